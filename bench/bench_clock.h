#pragma once
// The clocks the benchmarks read: wall milliseconds since a point, and the calling thread's
// CPU time (which, unlike wall time, does not grow while other processes hold the cores),
// and the median of repeated timings.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace ts::bench {

using Clock = std::chrono::steady_clock;

inline double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

inline double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

/// The median of `v` (the mean of the middle two of an even count; 0 when empty).
inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace ts::bench
