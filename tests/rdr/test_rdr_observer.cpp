// tensorFinite, the NaN/Inf scan the RDR observer runs over forward outputs: every position
// (vector body, block edges, scalar tail), NaN, +Inf, -Inf, float16, other dtypes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/debug/rdr/rdr_observer.h"

using namespace ts::engine;

TEST(RdrObserver, TensorFiniteFindsEveryBadValueAnywhere) {
    const float bad[] = {std::numeric_limits<float>::quiet_NaN(),
                         std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity()};
    for (int64_t n : {1, 7, 15, 16, 17, 100, 8192, 8193, 20000}) {
        Tensor t = Tensor::full({n}, 1.5f);
        EXPECT_TRUE(ts::rdr::tensorFinite(t)) << n;
        for (int64_t pos : {int64_t{0}, n / 2, n - 1, std::min<int64_t>(n - 1, 8191),
                            std::min<int64_t>(n - 1, 8192)}) {
            for (float b : bad) {
                t.f32()[pos] = b;
                EXPECT_FALSE(ts::rdr::tensorFinite(t)) << "n=" << n << " pos=" << pos << " " << b;
                t.f32()[pos] = -3.0e38f;  // large but finite
                EXPECT_TRUE(ts::rdr::tensorFinite(t)) << "n=" << n << " pos=" << pos;
            }
        }
    }
    Tensor half = Tensor::zeros({33}, DType::Float16);
    EXPECT_TRUE(ts::rdr::tensorFinite(half));
    static_cast<uint16_t*>(half.raw())[32] = 0x7c00;  // +Inf in float16
    EXPECT_FALSE(ts::rdr::tensorFinite(half));
    Tensor ints = Tensor::zeros({8}, DType::Int32);
    ints.i32()[3] = 0x7f800000;  // the bits of +Inf, but an int
    EXPECT_TRUE(ts::rdr::tensorFinite(ints));
    EXPECT_TRUE(ts::rdr::tensorFinite(Tensor()));
}
