#pragma once
// The clocks the benchmarks read: wall milliseconds since a point, and the calling thread's
// CPU time (which, unlike wall time, does not grow while other processes hold the cores).
#include <time.h>

#include <chrono>

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

}  // namespace ts::bench
