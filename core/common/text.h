#pragma once
// Small text helpers shared across core (no locale: ASCII only, as the formats we read are).
#include <cctype>
#include <string>
#include <string_view>

namespace ts {

/// `s` with ASCII letters in lower case.
inline std::string asciiLower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

/// `s` as a JSON string literal: quotes and backslashes escaped, control bytes as spaces.
inline std::string jsonQuoted(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    }
    return out + "\"";
}

}  // namespace ts
