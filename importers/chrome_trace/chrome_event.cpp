#include "importers/chrome_trace/chrome_event.h"

#include <climits>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace ts::importers::chrome {

void ChromeEvent::clear() {
    kind = Kind::Event;
    hasPh = hasName = hasTs = hasDur = hasPid = hasTid = hasId = hasBindId = hasSf = hasParent =
        false;
    flowIn = flowOut = argsTrailingCommas = false;
    category.clear();
    stack.clear();
    ph.clear();
    name.clear();
    cat.clear();
    bp.clear();
    scope.clear();
    args.clear();
    argNumberCount = argStringCount = 0;
}

const std::string* ChromeEvent::argString(std::string_view key) const {
    for (size_t i = 0; i < argStringCount; ++i)
        if (argStrings[i].first == key) return &argStrings[i].second;
    return nullptr;
}

const std::string* ChromeEvent::argNumber(std::string_view key) const {
    for (size_t i = 0; i < argNumberCount; ++i)
        if (argNumbers[i].first == key) return &argNumbers[i].second;
    return nullptr;
}

std::optional<int64_t> microsToNs(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    if (s.empty()) return std::nullopt;
    bool neg = false;
    size_t i = 0;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        i = 1;
    }
    int64_t whole = 0;
    constexpr int64_t kMaxWhole = INT64_MAX / 1000 - 1;
    size_t digits = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
        if (whole > kMaxWhole / 10) return std::nullopt;
        whole = whole * 10 + (s[i] - '0');
    }
    int64_t frac = 0;  // nanoseconds from the first 3 fraction digits
    int fracDigits = 0;
    bool roundUp = false;
    if (i < s.size() && s[i] == '.') {
        ++i;
        for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
            if (fracDigits < 3) {
                frac = frac * 10 + (s[i] - '0');
                ++fracDigits;
            } else if (fracDigits == 3) {
                roundUp = s[i] >= '5';
                ++fracDigits;
            }
        }
    }
    if (digits == 0) return std::nullopt;
    if (whole > kMaxWhole) return std::nullopt;  // whole * 1000 + 999 would overflow
    if (i < s.size()) {
        // Exponent or anything else: fall back to a double (exponents are rare in traces).
        if (s[i] != 'e' && s[i] != 'E') return std::nullopt;
        std::string tmp(s);
        char* end = nullptr;
        const double v = std::strtod(tmp.c_str(), &end);
        if (end != tmp.c_str() + tmp.size() || !std::isfinite(v) || std::fabs(v) > 9e15)
            return std::nullopt;
        return static_cast<int64_t>(std::llround(v * 1000.0));
    }
    while (fracDigits < 3) {
        frac *= 10;
        ++fracDigits;
    }
    const int64_t ns = whole * 1000 + frac + (roundUp ? 1 : 0);
    return neg ? -ns : ns;
}

std::string withoutTrailingCommas(std::string_view json) {
    std::string out;
    out.reserve(json.size());
    bool inString = false;
    for (size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < json.size())
                out += json[++i];
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') inString = true;
        if (c == ',') {
            size_t j = i + 1;
            while (j < json.size() &&
                   (json[j] == ' ' || json[j] == '\t' || json[j] == '\n' || json[j] == '\r'))
                ++j;
            if (j < json.size() && (json[j] == '}' || json[j] == ']')) continue;
        }
        out += c;
    }
    return out;
}

}  // namespace ts::importers::chrome
