#pragma once
// Direct kernels for depthwise convolution (groups == channels, one filter per channel), the
// convolution ShuffleNet and MobileNet spend their 3x3 spatial work in. im2col + GEMM is a
// poor fit there: every GEMM would be one row of KH*KW taps. These kernels work on one
// [H, W] plane at a time: the plane is copied once into zero-padded "phase planes" (for
// stride s, s planes holding the padded columns j with j % s == p), so every tap of every
// output row reads a contiguous run and the loop over output columns vectorizes, for stride
// 2 as for stride 1. All sums run in a fixed order (deterministic).
#include <cstdint>

namespace ts::engine::depthwise {

struct Geometry {
    int64_t H, W, KH, KW, OH, OW, sh, sw, pt, pl;
};

/// Floats of scratch one plane needs (phase planes of the padded input or its gradient, plus
/// one output row).
int64_t scratchFloats(const Geometry& g);

/// out[OH][OW] = bias + sum over taps of w[kh][kw] * x_padded[oh*sh + kh][ow*sw + kw].
void forwardPlane(const float* x, const float* w, float bias, float* out, float* scratch,
                  const Geometry& g);
/// dx[H][W] (overwritten) = the gradient of forwardPlane's input for output gradient dy.
void inputPlane(const float* dy, const float* w, float* dx, float* scratch, const Geometry& g);
/// dw[KH][KW] += the gradient of forwardPlane's weights for input x and output gradient dy.
void filterPlane(const float* x, const float* dy, float* dw, float* scratch, const Geometry& g);

}  // namespace ts::engine::depthwise
