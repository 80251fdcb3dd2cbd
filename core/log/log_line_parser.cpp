#include "core/log/log_line_parser.h"

#include <cctype>
#include <charconv>
#include <cstdio>

namespace ts::log {
namespace {

std::string_view ltrim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    return s;
}

std::optional<int64_t> toInt(std::string_view s, int base = 10) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

bool isModuleChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

bool isFunctionChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '~' ||
           c == '<' || c == '>' || c == '.';
}

bool containsNoCase(std::string_view hay, std::string_view needle) {
    if (needle.size() > hay.size()) return false;
    for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
        size_t k = 0;
        while (k < needle.size() &&
               std::tolower(static_cast<unsigned char>(hay[i + k])) == needle[k])
            ++k;
        if (k == needle.size()) return true;
    }
    return false;
}

// "file.cc:42" -> file, line
void splitFileLine(std::string_view loc, LogRecord& r) {
    const size_t colon = loc.rfind(':');
    if (colon != std::string_view::npos) {
        if (auto n = toInt(loc.substr(colon + 1))) {
            r.file = std::string(loc.substr(0, colon));
            r.line = *n;
            return;
        }
    }
    r.file = std::string(loc);
}

bool allDigits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

// Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg
std::optional<ParsedHeader> parseClassicGlog(std::string_view s, int year) {
    if (s.size() < 24 || s[5] != ' ' || s[8] != ':' || s[11] != ':' || s[14] != '.')
        return std::nullopt;
    Level level;
    switch (s[0]) {
        case 'I':
            level = Level::Info;
            break;
        case 'W':
            level = Level::Warning;
            break;
        case 'E':
            level = Level::Error;
            break;
        case 'F':
            level = Level::Critical;
            break;
        default:
            return std::nullopt;
    }
    if (!allDigits(s.substr(1, 4)) || !allDigits(s.substr(6, 2)) || !allDigits(s.substr(9, 2)) ||
        !allDigits(s.substr(12, 2)) || !allDigits(s.substr(15, 6)))
        return std::nullopt;
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%04d-%.2s-%.2s-%.2s:%.2s:%.2s", year, s.data() + 1,
                  s.data() + 3, s.data() + 6, s.data() + 9, s.data() + 12);
    const auto secs = parseLogTime(stamp);
    if (!secs) return std::nullopt;
    ParsedHeader h;
    h.format = LineFormat::GlogClassic;
    LogRecord& r = h.record;
    r.level = level;
    r.tsNs = *secs + *toInt(s.substr(15, 6)) * 1000;
    std::string_view rest = ltrim(s.substr(21));
    size_t d = 0;
    while (d < rest.size() && std::isdigit(static_cast<unsigned char>(rest[d]))) ++d;
    if (d == 0 || d >= rest.size() || rest[d] != ' ') return std::nullopt;
    r.tid = toInt(rest.substr(0, d)).value_or(0);
    rest = ltrim(rest.substr(d));
    const size_t close = rest.find("] ");
    const size_t closeEnd =
        rest.size() && rest.back() == ']' ? rest.size() - 1 : std::string_view::npos;
    const size_t end = close != std::string_view::npos ? close : closeEnd;
    if (end == std::string_view::npos) return std::nullopt;
    splitFileLine(rest.substr(0, end), r);
    if (r.line == 0) return std::nullopt;
    r.message = std::string(end + 2 <= rest.size() ? rest.substr(end + 2) : std::string_view());
    return h;
}

// Python logging's level names, exactly as logging prints them.
std::optional<Level> pyLevel(std::string_view s) {
    if (s == "DEBUG") return Level::Debug;
    if (s == "INFO") return Level::Info;
    if (s == "WARNING") return Level::Warning;
    if (s == "ERROR") return Level::Error;
    if (s == "CRITICAL") return Level::Critical;
    return std::nullopt;
}

// "LEVEL:name:message" (logging.basicConfig's default format). The logger name is a dotted
// identifier without spaces.
std::optional<ParsedHeader> parsePyLoggingDefault(std::string_view s) {
    const size_t c1 = s.find(':');
    if (c1 == std::string_view::npos || c1 > 8) return std::nullopt;
    const auto level = pyLevel(s.substr(0, c1));
    if (!level) return std::nullopt;
    const size_t c2 = s.find(':', c1 + 1);
    if (c2 == std::string_view::npos || c2 == c1 + 1) return std::nullopt;
    const std::string_view name = s.substr(c1 + 1, c2 - c1 - 1);
    for (char c : name)
        if (c == ' ' || c == '\t') return std::nullopt;
    ParsedHeader h;
    h.format = LineFormat::PyLogging;
    h.record.level = *level;
    h.record.module = std::string(name);
    h.record.message = std::string(s.substr(c2 + 1));
    return h;
}

// "2021-01-01 12:00:00,123 - name - LEVEL - message" (the logging cookbook's format).
std::optional<ParsedHeader> parsePyLoggingCookbook(std::string_view s) {
    size_t used = 0;
    const auto ts = parseLogTime(s, &used);
    if (!ts || s.substr(used, 3) != " - ") return std::nullopt;
    std::string_view rest = s.substr(used + 3);
    const size_t d1 = rest.find(" - ");
    if (d1 == std::string_view::npos || d1 == 0) return std::nullopt;
    const std::string_view name = rest.substr(0, d1);
    rest.remove_prefix(d1 + 3);
    const size_t d2 = rest.find(" - ");
    const auto level = pyLevel(rest.substr(0, d2));
    if (!level || d2 == std::string_view::npos) return std::nullopt;
    ParsedHeader h;
    h.format = LineFormat::PyLogging;
    h.record.tsNs = *ts;
    h.record.level = *level;
    h.record.module = std::string(name);
    h.record.message = std::string(rest.substr(d2 + 3));
    return h;
}

}  // namespace

int glogFileHeaderYear(std::string_view line) {
    constexpr std::string_view prefix = "Log file created at: ";
    if (!line.starts_with(prefix) || line.size() < prefix.size() + 4) return 0;
    const auto y = toInt(line.substr(prefix.size(), 4));
    return y && *y >= 1900 && *y <= 2261 ? static_cast<int>(*y) : 0;
}

std::string_view formatName(LineFormat f) {
    switch (f) {
        case LineFormat::Glog:
            return "glog";
        case LineFormat::Python:
            return "python";
        case LineFormat::Plog:
            return "plog";
        case LineFormat::PlogShort:
            return "plog_short";
        case LineFormat::GlogClassic:
            return "glog_classic";
        case LineFormat::PyLogging:
            return "pylogging";
    }
    return "glog";
}

std::optional<ParsedHeader> parseHeaderLine(std::string_view line, int year) {
    std::string_view s = ltrim(line);
    if (s.size() >= 24 && s[0] != '[' && s[5] == ' ') return parseClassicGlog(s, year);
    if (!s.empty() && s[0] >= 'C' && s[0] <= 'W') return parsePyLoggingDefault(s);
    if (s.size() >= 26 && s[0] >= '0' && s[0] <= '9' && s[4] == '-')
        return parsePyLoggingCookbook(s);
    if (s.size() < 6 || s[0] != '[') return std::nullopt;
    const size_t close = s.find(']');
    if (close == std::string_view::npos || close > 12) return std::nullopt;
    const auto level = parseLevel(s.substr(1, close - 1));
    if (!level || close == 2) return std::nullopt;  // "[2]" is not a level name
    s.remove_prefix(close + 1);
    if (s.empty() || s[0] != ' ') return std::nullopt;
    s = ltrim(s);
    size_t m = 0;
    while (m < s.size() && isModuleChar(s[m])) ++m;
    if (m == 0 || m >= s.size() || s[m] != '(') return std::nullopt;
    ParsedHeader h;
    LogRecord& r = h.record;
    r.level = *level;
    r.module = std::string(s.substr(0, m));
    const size_t paren = s.find(')', m);
    if (paren == std::string_view::npos) return std::nullopt;
    const std::string_view inside = s.substr(m + 1, paren - m - 1);
    s.remove_prefix(paren + 1);

    // (pid) | (pid,program) | (pid,tidhex,program) | (pid:tid,ProcessName)
    const size_t c1 = inside.find(',');
    const std::string_view first = inside.substr(0, c1);
    int fields = 1;
    if (const size_t colon = first.find(':'); colon != std::string_view::npos) {
        const auto pid = toInt(first.substr(0, colon));
        const auto tid = toInt(first.substr(colon + 1));
        if (!pid || !tid) return std::nullopt;
        r.pid = *pid;
        r.tid = *tid;
        h.format = LineFormat::Python;
        if (c1 != std::string_view::npos) r.program = std::string(inside.substr(c1 + 1));
    } else {
        const auto pid = toInt(first);
        if (!pid) return std::nullopt;
        r.pid = *pid;
        if (c1 != std::string_view::npos) {
            const std::string_view rest = inside.substr(c1 + 1);
            const size_t c2 = rest.find(',');
            if (c2 != std::string_view::npos) {
                const auto tid = toInt(rest.substr(0, c2), 16);
                if (!tid) return std::nullopt;
                r.tid = *tid;
                r.program = std::string(rest.substr(c2 + 1));
                fields = 3;
            } else {
                r.program = std::string(rest);
                fields = 2;
            }
        }
    }
    if (s.empty() || s[0] != ':') {
        if (fields != 1 || h.format == LineFormat::Python) return std::nullopt;
        h.format = LineFormat::PlogShort;
        r.message = std::string(ltrim(s));
        return h;
    }
    s.remove_prefix(1);
    size_t used = 0;
    const auto ts = parseLogTime(s, &used);
    if (!ts) return std::nullopt;
    r.tsNs = *ts;
    s = ltrim(s.substr(used));
    if (!s.empty() && s[0] == '[') {
        const size_t end = s.find(']');
        if (end != std::string_view::npos) {
            splitFileLine(s.substr(1, end - 1), r);
            s.remove_prefix(end + 1);
        }
    }
    if (h.format != LineFormat::Python) {
        // plog: "]12828 msg" - the thread id right after the location.
        size_t d = 0;
        while (d < s.size() && std::isdigit(static_cast<unsigned char>(s[d]))) ++d;
        if (d > 0 && (d == s.size() || s[d] == ' ')) {
            if (auto tid = toInt(s.substr(0, d))) r.tid = *tid;
            h.format = LineFormat::Plog;
            s.remove_prefix(d);
        } else {
            h.format = LineFormat::Glog;
            // glog C++: "Func] msg"
            const std::string_view t = ltrim(s);
            size_t f = 0;
            while (f < t.size() && isFunctionChar(t[f])) ++f;
            if (f > 0 && f < t.size() && t[f] == ']') {
                r.function = std::string(t.substr(0, f));
                s = t.substr(f + 1);
            }
        }
    }
    r.message = std::string(ltrim(s));
    return h;
}

bool isTracebackStart(std::string_view line) {
    return ltrim(line).starts_with("Traceback (most recent call last):");
}

bool isTracebackChain(std::string_view line) {
    const std::string_view s = ltrim(line);
    return s.starts_with("During handling of the above exception") ||
           s.starts_with("The above exception was the direct cause");
}

Level guessLevel(std::string_view line) {
    if (containsNoCase(line, "critical") || containsNoCase(line, "fatal")) return Level::Critical;
    if (containsNoCase(line, "error") || containsNoCase(line, "exception") ||
        containsNoCase(line, "failed"))
        return Level::Error;
    if (containsNoCase(line, "warn")) return Level::Warning;
    return Level::Info;
}

std::string sanitizeUtf8(std::string_view s) {
    size_t plain = 0;  // fast path: printable ASCII and tabs need no work
    while (plain < s.size() && ((s[plain] >= 0x20 && s[plain] < 0x7F) || s[plain] == '\t')) ++plain;
    if (plain == s.size()) return std::string(s);
    std::string out;
    out.reserve(s.size());
    size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        size_t len = 0;
        if (c < 0x80)
            len = 1;
        else if ((c & 0xE0) == 0xC0 && c >= 0xC2)
            len = 2;
        else if ((c & 0xF0) == 0xE0)
            len = 3;
        else if ((c & 0xF8) == 0xF0 && c <= 0xF4)
            len = 4;
        bool ok = len > 0 && i + len <= s.size();
        for (size_t k = 1; ok && k < len; ++k)
            ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
        if (ok && len == 3) {
            const auto c1 = static_cast<unsigned char>(s[i + 1]);
            ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);
        } else if (ok && len == 4) {
            const auto c1 = static_cast<unsigned char>(s[i + 1]);
            ok = !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
        }
        if (ok && (c >= 0x20 || c == '\t' || len > 1)) {
            out.append(s.substr(i, len));
            i += len;
        } else if (ok) {
            out += ' ';  // control characters
            ++i;
        } else {
            out += "\xEF\xBF\xBD";
            ++i;
        }
    }
    return out;
}

}  // namespace ts::log
