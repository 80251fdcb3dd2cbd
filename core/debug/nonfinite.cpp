#include "core/debug/nonfinite.h"

#include <cstring>

namespace ts::debug {
namespace {

// Exponent all ones marks a non-finite value; a non-zero mantissa makes it a NaN.
template <class U>
[[gnu::always_inline]] inline U load(const unsigned char* p, size_t i) {
    U x;
    std::memcpy(&x, p + i * sizeof(U), sizeof(U));  // a plain load; no aliasing questions
    return x;
}

// Inlined into each SIMD clone below, so each is compiled for its target.
template <class U, U kExp, U kMant, U kSign>
[[gnu::always_inline]] inline NonFiniteCounts countBits(const void* data, size_t n) {
    const auto* v = static_cast<const unsigned char*>(data);
    NonFiniteCounts c;
    // Fast scan: one OR-reduction of "exponent is all ones" over lanes; the exact
    // classification below only runs when some lane saw a non-finite value.
    constexpr size_t L = 16;
    size_t i = 0;
    while (i < n) {
        const size_t end = n - i >= 4096 ? i + 4096 : n;
        U hit = 0;
        size_t k = i;
        for (; k + L <= end; k += L) {
            U lane = 0;
            for (size_t j = 0; j < L; ++j)
                lane |= static_cast<U>((load<U>(v, k + j) & kExp) == kExp);
            hit |= lane;
        }
        for (; k < end; ++k) hit |= static_cast<U>((load<U>(v, k) & kExp) == kExp);
        if (hit) {
            for (size_t j = i; j < end; ++j) {
                const U x = load<U>(v, j);
                if ((x & kExp) != kExp) continue;
                if (x & kMant)
                    ++c.nan;
                else if (x & kSign)
                    ++c.neginf;
                else
                    ++c.posinf;
            }
        }
        i = end;
    }
    return c;
}

}  // namespace

// AVX2 where the CPU has it (GCC picks the clone at load time), SSE2 otherwise: the scan
// is the overflow check's whole cost, and AVX2 nearly doubles it on data in cache.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TS_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TS_SIMD_CLONES
#endif

TS_SIMD_CLONES NonFiniteCounts countNonFiniteF32(const float* v, size_t n) {
    static_assert(sizeof(float) == sizeof(uint32_t));
    return countBits<uint32_t, 0x7f800000u, 0x007fffffu, 0x80000000u>(v, n);
}

TS_SIMD_CLONES NonFiniteCounts countNonFiniteF16(const uint16_t* v, size_t n) {
    return countBits<uint16_t, 0x7c00u, 0x03ffu, 0x8000u>(v, n);
}

}  // namespace ts::debug
