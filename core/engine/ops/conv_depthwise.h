#pragma once
// Direct kernels for depthwise convolution (groups == channels, one KHxKW filter per
// channel), the convolution ShuffleNet and MobileNet spend their spatial work in. Neither
// im2col + GEMM (each channel's GEMM is a single row of KH*KW taps) nor a loop over one
// [H, W] plane at a time (ShuffleNet's planes are 16x16 down to 4x4: loop overhead and short
// rows dominate) is fast there. These kernels turn one sample around to channels-last
// ([H, W, C], zero-padded, C rounded up to 8) so that 8 channels fill a vector: each output
// pixel is 8 channels x KH*KW multiply-adds in registers, 4 pixels at a time, whatever the
// plane size and stride; the result is turned back to [C, H, W]. Plain GCC vector code
// (AVX2 clone chosen at load time, SSE otherwise; multiply then add, no FMA), so both clones
// give the same bits and every sum runs in a fixed order (deterministic).
#include <cstdint>

namespace ts::engine::depthwise {

struct Geometry {
    int64_t C, H, W, KH, KW, OH, OW, sh, sw, pt, pl;
};

/// Floats of scratch one sample needs.
int64_t scratchFloats(const Geometry& g);
/// Floats of packed weights: [KH*KW + 1][Cp] (taps, then the bias), Cp = C rounded up to 8.
int64_t packedFloats(const Geometry& g);
/// w[C][KH][KW] and bias[C] (nullptr: zeros) into the packed layout.
void packWeights(const float* w, const float* bias, float* packed, const Geometry& g);

/// One sample: out[C][OH][OW] = depthwise convolution of x[C][H][W] + bias.
void forward(const float* x, const float* packed, float* out, float* scratch, const Geometry& g);
/// One sample: dx[C][H][W] (overwritten) for output gradient dy[C][OH][OW].
void backwardInput(const float* dy, const float* packed, float* dx, float* scratch,
                   const Geometry& g);
/// One sample's filter gradient added to dwPacked[KH*KW][Cp] (zeroed by the caller first).
void accumulateFilter(const float* x, const float* dy, float* dwPacked, float* scratch,
                      const Geometry& g);
/// [KH*KW][Cp] back to dw[C][KH][KW].
void unpackFilter(const float* dwPacked, float* dw, const Geometry& g);

}  // namespace ts::engine::depthwise
