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

/// `s` without the ASCII white space (spaces, tabs, CR, LF, VT, FF) at either end.
inline std::string_view asciiTrim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

}  // namespace ts
