#include "core/common/units.h"

#include <cmath>
#include <cstdio>

namespace ts {

std::string formatNumber(double v, int significant) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    const double a = std::fabs(v);
    const int before = a >= 1 ? static_cast<int>(std::floor(std::log10(a))) + 1 : 1;
    int decimals = std::max(0, significant - before);
    if (a > 0 && a < 1) {
        // 0.012345 with 4 significant digits: the leading zeros after the point do not count
        decimals = std::min(30, significant - static_cast<int>(std::floor(std::log10(a))) - 1);
    }
    char buf[400];
    std::snprintf(buf, sizeof buf, "%.*f", std::max(0, decimals), v);
    std::string out = buf;
    if (out.find('.') != std::string::npos) {
        while (out.back() == '0') out.pop_back();
        if (out.back() == '.') out.pop_back();
    }
    if (out == "-0") out = "0";
    return out;
}

namespace {
struct Unit {
    double scale;
    const char* symbol;
};
}  // namespace

std::string formatDuration(double ns, int significant) {
    if (!std::isfinite(ns)) return formatNumber(ns) + " ns";
    static constexpr Unit kUnits[] = {{86400e9, "d"}, {3600e9, "h"}, {60e9, "min"}, {1e9, "s"},
                                      {1e6, "ms"},    {1e3, "µs"},   {1, "ns"}};
    const double a = std::fabs(ns);
    // Seconds up to 1000, minutes below 100, hours below 100, then days: each reads in at
    // most four digits before the point.
    static constexpr double kFrom[] = {100 * 3600e9, 100 * 60e9, 1000e9, 1e9, 1e6, 1e3, 0};
    for (size_t i = 0; i < std::size(kUnits); ++i)
        if (a >= kFrom[i])
            return formatNumber(ns / kUnits[i].scale, significant) + " " + kUnits[i].symbol;
    return formatNumber(ns, significant) + " ns";
}

std::string formatShare(double share) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%", share * 100.0);
    return b;
}

std::string formatBytes(double bytes, int significant) {
    if (!std::isfinite(bytes)) return formatNumber(bytes) + " B";
    static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = bytes;
    size_t u = 0;
    while (std::fabs(v) >= 1024 && u + 1 < std::size(kUnits)) v /= 1024, ++u;
    if (u == 0) return formatNumber(std::round(v), 0) + " B";
    return formatNumber(v, significant) + " " + kUnits[u];
}

size_t displayWidth(const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

}  // namespace ts
