#pragma once
// Direct convolution kernels for small convolutions (few output channels, small kernels, as
// in LeNet-5), vectorized over output channels with AVX2/FMA: no column matrix, the
// accumulators stay in registers. Used by Conv2D and Conv2DBackpropFilter when the CPU has
// AVX2 and FMA (checked at run time) and the shape is small (directConvApplies()); otherwise
// the per-sample im2col + GEMM path runs. Deterministic: every sum runs in a fixed order.
#include <cstdint>

namespace ts::engine::direct {

struct Geometry {
    int64_t C, H, W, O, KH, KW, OH, OW, sh, sw, pt, pl;
};

/// True when this CPU can run the kernels, they are enabled, and the shape is one they are
/// made for.
bool applies(const Geometry& g);
/// Turns the direct kernels on or off (default: on unless TS_CONV_DIRECT=0), e.g. to compare
/// them with the im2col + GEMM path.
void setEnabled(bool on);

/// Floats of scratch one sample needs (padded input plane, weight and output staging).
int64_t scratchFloats(const Geometry& g);

/// Weights [O][C][KH][KW] rearranged to [C*KH*KW][Op] (Op = O rounded up to 16, zero-padded),
/// followed by the bias padded to Op (zeros when `bias` is null); `wt` has weightFloats(g)
/// floats.
int64_t weightFloats(const Geometry& g);
void packWeights(const float* w, const float* bias, float* wt, const Geometry& g);

/// One sample: out[O][OH][OW] = conv(x[C][H][W]) + bias, with packed weights.
void forward(const float* x, const float* wt, float* out, float* scratch, const Geometry& g);

/// One sample's filter gradient added to dwt[C*KH*KW][Op] (packed layout, see packWeights):
/// dwt += x (*) dy[O][OH][OW].
void accumulateFilter(const float* x, const float* dy, float* dwt, float* scratch,
                      const Geometry& g);

/// Packed [C*KH*KW][Op] back to [O][C][KH][KW].
void unpackWeights(const float* wt, float* w, const Geometry& g);

}  // namespace ts::engine::direct
