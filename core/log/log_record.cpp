#include "core/log/log_record.h"

#include <cstdio>
#include <ctime>

namespace ts::log {
namespace {

// Reads exactly `n` digits at `pos`; -1 when they are not all digits.
int digits(std::string_view s, size_t pos, size_t n) {
    if (pos + n > s.size()) return -1;
    int v = 0;
    for (size_t i = pos; i < pos + n; ++i) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

}  // namespace

std::string formatLogTime(int64_t unixNs) {
    const int64_t secs = unixNs >= 0 ? unixNs / 1000000000 : (unixNs - 999999999) / 1000000000;
    const int64_t subNs = unixNs - secs * 1000000000;
    // localtime_r takes a global lock; records of the same second share its result.
    thread_local int64_t cachedSecs = INT64_MIN;
    thread_local char cachedPrefix[80];
    if (secs != cachedSecs) {
        const time_t t = static_cast<time_t>(secs);
        std::tm tm{};
        localtime_r(&t, &tm);
        std::snprintf(cachedPrefix, sizeof cachedPrefix, "%04d-%02d-%02d-%02d:%02d:%02d",
                      tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                      tm.tm_sec);
        cachedSecs = secs;
    }
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s.%03d.%03d", cachedPrefix, static_cast<int>(subNs / 1000000),
                  static_cast<int>(subNs / 1000 % 1000));
    return buf;
}

std::optional<int64_t> parseLogTime(std::string_view s, size_t* consumed) {
    // YYYY-MM-DD?HH:MM:SS
    const int year = digits(s, 0, 4), mon = digits(s, 5, 2), day = digits(s, 8, 2);
    const int hour = digits(s, 11, 2), min = digits(s, 14, 2), sec = digits(s, 17, 2);
    if (year < 1900 || year > 2261 || mon < 1 || mon > 12 || day < 1 || day > 31 || hour < 0 ||
        hour > 23 || min < 0 || min > 59 || sec < 0 || sec > 60)
        return std::nullopt;
    if (s[4] != '-' || s[7] != '-' || (s[10] != '-' && s[10] != ' ') || s[13] != ':' ||
        s[16] != ':')
        return std::nullopt;
    size_t pos = 19;
    int64_t subNs = 0;
    // .mmm then optional .uuu (MindSpore), or ,mmm (Python logging)
    if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
        const int ms = digits(s, pos + 1, 3);
        if (ms >= 0) {
            subNs = int64_t{ms} * 1000000;
            pos += 4;
            if (pos < s.size() && s[pos] == '.') {
                const int us = digits(s, pos + 1, 3);
                if (us >= 0) {
                    subNs += int64_t{us} * 1000;
                    pos += 4;
                }
            }
        }
    }
    // mktime is slow (time zone lock, stat of /etc/localtime): cache a few hours' starts.
    struct HourCache {
        int64_t key = -1;
        int64_t start = 0;
    };
    thread_local HourCache cache[16];
    const int64_t hourKey = ((int64_t{year} * 13 + mon) * 32 + day) * 24 + hour;
    HourCache& slot = cache[static_cast<size_t>(hourKey % 16)];
    if (slot.key != hourKey) {
        std::tm tm{};
        tm.tm_year = year - 1900;
        tm.tm_mon = mon - 1;
        tm.tm_mday = day;
        tm.tm_hour = hour;
        tm.tm_isdst = -1;
        const time_t t = mktime(&tm);
        if (t == static_cast<time_t>(-1) && !(year == 1969 && mon == 12 && day == 31))
            return std::nullopt;
        slot.key = hourKey;
        slot.start = static_cast<int64_t>(t);
    }
    const int64_t cachedHourStart = slot.start;
    const int64_t unixSecs = cachedHourStart + min * 60 + sec;
    if (consumed) *consumed = pos;
    return unixSecs * 1000000000 + subNs;
}

std::string formatRecord(const LogRecord& r) {
    std::string out;
    out.reserve(96 + r.message.size());
    out += '[';
    out += levelName(r.level);
    out += "] ";
    out += r.module.empty() ? std::string_view("?") : std::string_view(r.module);
    char buf[64];
    std::snprintf(buf, sizeof buf, "(%lld,%llx,", static_cast<long long>(r.pid),
                  static_cast<unsigned long long>(r.tid));
    out += buf;
    out += r.program.empty() ? std::string_view("?") : std::string_view(r.program);
    out += "):";
    out += r.tsNs ? formatLogTime(*r.tsNs) : std::string("?");
    out += " [";
    out += r.file.empty() ? std::string_view("?") : std::string_view(r.file);
    out += ':';
    out += std::to_string(r.line);
    out += "] ";
    if (!r.function.empty()) {
        out += r.function;
        out += "] ";
    }
    out += r.message;
    return out;
}

}  // namespace ts::log
