#pragma once
// Counting NaN, +Inf and -Inf in raw float32 / IEEE-half buffers: the inner loop of the
// overflow check that runs after every op, so it works on the bit patterns (no FP compares,
// no branches per element) and costs a small fraction of the op that produced the data.
#include <cstddef>
#include <cstdint>

namespace ts::debug {

struct NonFiniteCounts {
    uint64_t nan = 0, posinf = 0, neginf = 0;
    uint64_t total() const { return nan + posinf + neginf; }
    bool any() const { return total() > 0; }
    NonFiniteCounts& operator+=(const NonFiniteCounts& o) {
        nan += o.nan;
        posinf += o.posinf;
        neginf += o.neginf;
        return *this;
    }
};

/// Counts over n float32 values (IEEE binary32 in native byte order).
NonFiniteCounts countNonFiniteF32(const float* v, size_t n);
/// Counts over n IEEE binary16 values given as their 16-bit patterns.
NonFiniteCounts countNonFiniteF16(const uint16_t* v, size_t n);

}  // namespace ts::debug
