#pragma once
// The clocks TrainScope reads, in one place: the wall clock (Unix time, what the session
// stores: runs.started_ns, logs, import times) and the monotonic clock (durations, profile
// timestamps within a process). Header-only, no state.
#include <chrono>
#include <cstdint>

namespace ts {

/// Wall-clock time as Unix nanoseconds.
inline int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// Wall-clock time as Unix seconds.
inline double wallSeconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// Monotonic time in nanoseconds (an arbitrary origin: only differences mean anything).
inline int64_t steadyNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// Monotonic time in seconds (an arbitrary origin: only differences mean anything).
inline double steadySeconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace ts
