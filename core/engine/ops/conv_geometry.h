#pragma once
// Internal to Conv2D: the geometry of a convolution (the op's checks in ops_conv.cpp, the
// kernels of every backend) and the per-sample column-matrix helpers of the host's kernels
// (cpu_conv.cpp, cpu_conv_grouped.cpp).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/engine/ops/ops.h"
#include "core/engine/tensor/parallel.h"

namespace ts::engine::detail {

/// C and O are per group when `groups` > 1 (a group's slice of a sample is contiguous).
struct ConvGeom {
    int64_t N, C, H, W, O, KH, KW, OH, OW, sh, sw, pt, pl;
    int64_t groups = 1;
    int64_t ckk() const { return C * KH * KW; }
    int64_t ohw() const { return OH * OW; }
    int64_t chw() const { return C * H * W; }
    /// Padding below and right as ONNX's pads give it: what the last window reaches past the
    /// input, 0 when it stops short (rows a stride skips are simply not read).
    int64_t pb() const { return std::max<int64_t>(0, (OH - 1) * sh + KH - H - pt); }
    int64_t pr() const { return std::max<int64_t>(0, (OW - 1) * sw + KW - W - pl); }
};

inline void requireNchw(std::string_view op, const Tensor& t) {
    if (!t.defined() || t.dtype() != DType::Float32 || t.rank() != 4)
        throw std::invalid_argument(std::string(op) + ": expects a float32 NCHW tensor, got " +
                                    (t.defined() ? shapeString(t.shape()) : "none"));
}

/// Checks x[N, C, H, W] against w[O, C/groups, KH, KW] and computes the output size; C and O
/// of the result are per group.
inline ConvGeom convGeometry(std::string_view op, const Tensor& x, const Tensor& w,
                             const ops::Conv2dOptions& opt) {
    requireNchw(op, x);
    requireNchw(op, w);
    const int64_t groups = opt.groups;
    if (groups < 1 || x.dim(1) % groups != 0 || w.dim(0) % groups != 0 ||
        w.dim(1) * groups != x.dim(1))
        throw std::invalid_argument(std::string(op) + ": weight " + shapeString(w.shape()) +
                                    " with " + std::to_string(groups) +
                                    " groups does not fit input " + shapeString(x.shape()));
    if (opt.strideH < 1 || opt.strideW < 1)
        throw std::invalid_argument(std::string(op) + ": stride must be >= 1");
    if (opt.padH < 0 || opt.padW < 0)
        throw std::invalid_argument(std::string(op) + ": padding must be >= 0");
    ConvGeom g{x.dim(0),    x.dim(1) / groups, x.dim(2), x.dim(3), w.dim(0) / groups,
               w.dim(2),    w.dim(3),          0,        0,        opt.strideH,
               opt.strideW, opt.padH,          opt.padW, groups};
    if (opt.padSame) {
        g.OH = (g.H + g.sh - 1) / g.sh;
        g.OW = (g.W + g.sw - 1) / g.sw;
        g.pt = std::max<int64_t>(0, (g.OH - 1) * g.sh + g.KH - g.H) / 2;
        g.pl = std::max<int64_t>(0, (g.OW - 1) * g.sw + g.KW - g.W) / 2;
    } else {
        g.OH = (g.H + 2 * g.pt - g.KH) / g.sh + 1;
        g.OW = (g.W + 2 * g.pl - g.KW) / g.sw + 1;
    }
    if (g.OH <= 0 || g.OW <= 0 || g.H + 2 * g.pt < g.KH || g.W + 2 * g.pl < g.KW)
        throw std::invalid_argument(std::string(op) + ": kernel " + shapeString(w.shape()) +
                                    " larger than input " + shapeString(x.shape()));
    return g;
}

/// The op's attributes for observers (profile args, ONNX export): strides, pads (top, left,
/// bottom, right), group.
std::string convAttrs(const ConvGeom& g);

/// Column matrix [C*KH*KW, OH*OW] of one sample's x[C,H,W] (or one group's channels).
void im2col(const float* x, float* col, const ConvGeom& g);
/// Adds a column-matrix gradient back into dx[C,H,W] (which the caller zeroed).
void col2im(const float* col, float* x, const ConvGeom& g);
/// True for 1x1 stride-1 unpadded convolutions, whose column matrix is the input itself.
inline bool pointwise(const ConvGeom& g) {
    return g.KH == 1 && g.KW == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pl == 0 &&
           g.OH == g.H && g.OW == g.W;
}
/// Parts to split N samples into: four per pool thread (at most one per sample).
inline int sampleParts(const ConvGeom& g) {
    return static_cast<int>(std::clamp<int64_t>(g.N, 1, 4 * intraOpThreads()));
}
inline int64_t partBegin(const ConvGeom& g, int p, int parts) {
    return g.N * p / parts;
}

/// Adds the per-part sums of a filter gradient in part order into `out`: out[i] = part 0's +
/// part 1's + ... (`partial` holds `parts` rows of `size` floats; `out` may be `partial`, row
/// 0). The order is fixed, so the sum does not depend on which thread ran which part.
inline void sumParts(const float* partial, int parts, int64_t size, float* out) {
    if (out != partial) std::memcpy(out, partial, sizeof(float) * static_cast<size_t>(size));
    for (int p = 1; p < parts; ++p) {
        const float* s = partial + p * size;
        for (int64_t i = 0; i < size; ++i) out[i] += s[i];
    }
}

}  // namespace ts::engine::detail
