#pragma once
// A double as int64 without undefined behaviour: NaN gives `nan`, values beyond int64's range
// the nearest end (a cast of those is undefined; inputs that come from files can hold them).
#include <cmath>
#include <cstdint>

namespace ts {

inline int64_t saturatingInt64(double d, int64_t nan = 0) {
    if (std::isnan(d)) return nan;
    if (d >= 9223372036854775807.0) return INT64_MAX;
    if (d <= -9223372036854775808.0) return INT64_MIN;
    return static_cast<int64_t>(d);
}

}  // namespace ts
