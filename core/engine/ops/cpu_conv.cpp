// The host's Conv2D kernels for one group: forward, filter gradient, input gradient.
// Per-sample im2col + GEMM (Caffe's scheme): a sample's column matrix [C*KH*KW, OH*OW] stays
// in the core's L2 cache, the GEMM writes the output straight into NCHW, and samples are
// spread over the intra-op pool (each part with its own column buffer). The gradients
// rebuild the columns from x instead of keeping a batch-sized matrix alive between forward
// and backward. Small convolutions take the direct kernels of conv_direct.h instead. Every
// kernel is deterministic: parts cover fixed sample ranges and partial sums are added in
// part order. Each kernel first offers the convolution to oneDNN (conv_dnnl.h) and runs its own
// code when that declines (no oneDNN in the build, TRAINSCOPE_CONV, or the shape).
#include <algorithm>
#include <cstring>

#include "core/engine/ops/conv_direct.h"
#include "core/engine/ops/conv_dnnl.h"
#include "core/engine/ops/cpu_kernels.h"
#include "core/engine/tensor/parallel.h"

namespace ts::engine::detail {

namespace {

// The column copies are short rows: with AVX2 (chosen at load time where the CPU has it) a
// row of 28 floats is 4 moves instead of 7.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TS_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TS_VECTOR_CLONES
#endif

/// Output columns [lo, hi) of kernel column `kw` that read inside the image.
inline void validColumns(const ConvGeom& g, int64_t kw, int64_t& lo, int64_t& hi) {
    lo = 0;
    hi = g.OW;
    while (lo < g.OW && lo * g.sw - g.pl + kw < 0) ++lo;
    while (hi > lo && (hi - 1) * g.sw - g.pl + kw >= g.W) --hi;
}

}  // namespace

// Rows are short (OW floats), so plain loops the compiler vectorizes beat a memcpy per row.
TS_VECTOR_CLONES void im2col(const float* __restrict x, float* __restrict col, const ConvGeom& g) {
    const int64_t ohw = g.ohw();
    for (int64_t c = 0; c < g.C; ++c)
        for (int64_t kh = 0; kh < g.KH; ++kh)
            for (int64_t kw = 0; kw < g.KW; ++kw) {
                float* __restrict row = col + ((c * g.KH + kh) * g.KW + kw) * ohw;
                const float* __restrict xc = x + c * g.H * g.W;
                int64_t lo, hi;
                validColumns(g, kw, lo, hi);
                for (int64_t oh = 0; oh < g.OH; ++oh) {
                    float* __restrict ro = row + oh * g.OW;
                    const int64_t ih = oh * g.sh - g.pt + kh;
                    if (ih < 0 || ih >= g.H) {
                        for (int64_t ow = 0; ow < g.OW; ++ow) ro[ow] = 0.f;
                        continue;
                    }
                    for (int64_t ow = 0; ow < lo; ++ow) ro[ow] = 0.f;
                    const float* __restrict xr = xc + ih * g.W - g.pl + kw;
                    if (g.sw == 1) {
                        for (int64_t ow = lo; ow < hi; ++ow) ro[ow] = xr[ow];
                    } else {
                        for (int64_t ow = lo; ow < hi; ++ow) ro[ow] = xr[ow * g.sw];
                    }
                    for (int64_t ow = hi; ow < g.OW; ++ow) ro[ow] = 0.f;
                }
            }
}

TS_VECTOR_CLONES void col2im(const float* __restrict col, float* __restrict x, const ConvGeom& g) {
    const int64_t ohw = g.ohw();
    for (int64_t c = 0; c < g.C; ++c)
        for (int64_t kh = 0; kh < g.KH; ++kh)
            for (int64_t kw = 0; kw < g.KW; ++kw) {
                const float* __restrict row = col + ((c * g.KH + kh) * g.KW + kw) * ohw;
                float* __restrict xc = x + c * g.H * g.W;
                int64_t lo, hi;
                validColumns(g, kw, lo, hi);
                for (int64_t oh = 0; oh < g.OH; ++oh) {
                    const int64_t ih = oh * g.sh - g.pt + kh;
                    if (ih < 0 || ih >= g.H) continue;
                    const float* __restrict ro = row + oh * g.OW;
                    float* __restrict xr = xc + ih * g.W - g.pl + kw;
                    if (g.sw == 1) {
                        for (int64_t ow = lo; ow < hi; ++ow) xr[ow] += ro[ow];
                    } else {
                        for (int64_t ow = lo; ow < hi; ++ow) xr[ow * g.sw] += ro[ow];
                    }
                }
            }
}

}  // namespace ts::engine::detail

namespace ts::engine::cpu {

using detail::col2im;
using detail::ConvGeom;
using detail::im2col;
using detail::partBegin;
using detail::pointwise;
using detail::sampleParts;
using detail::sumParts;

namespace {

direct::Geometry directGeometry(const ConvGeom& g) {
    return {g.C, g.H, g.W, g.O, g.KH, g.KW, g.OH, g.OW, g.sh, g.sw, g.pt, g.pl};
}

}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeom& g) {
    if (Tensor out = dnnlconv::conv2d(x, w, bias, g); out.defined()) return out;
    const int64_t ckk = g.ckk(), ohw = g.ohw();
    Tensor out = Tensor::empty({g.N, g.O, g.OH, g.OW});
    const int parts = sampleParts(g);
    const direct::Geometry dg = directGeometry(g);
    if (!pointwise(g) && direct::applies(dg)) {
        Tensor wt = Tensor::empty({direct::weightFloats(dg)});
        direct::packWeights(w.f32(), bias.defined() ? bias.f32() : nullptr, wt.f32(), dg);
        const int64_t scratch = direct::scratchFloats(dg);
        Tensor buf = Tensor::empty({parts, scratch});
        parallelParts(parts, [&](int p) {
            for (int64_t n = partBegin(g, p, parts); n < partBegin(g, p + 1, parts); ++n)
                direct::forward(x.f32() + n * g.chw(), wt.f32(), out.f32() + n * g.O * ohw,
                                buf.f32() + p * scratch, dg);
        });
        return out;
    }
    // A 1x1 stride-1 convolution's column matrix is the sample itself.
    const bool direct1x1 = pointwise(g);
    Tensor cols = Tensor::empty({direct1x1 ? 1 : parts, direct1x1 ? 1 : ckk * ohw});
    const float* px = x.f32();
    const float* pw = w.f32();
    const float* pb = bias.defined() ? bias.f32() : nullptr;
    float* po = out.f32();
    parallelParts(parts, [&](int p) {
        float* buf = direct1x1 ? nullptr : cols.f32() + p * ckk * ohw;
        for (int64_t n = partBegin(g, p, parts); n < partBegin(g, p + 1, parts); ++n) {
            const float* col = px + n * g.chw();
            if (!direct1x1) {
                im2col(col, buf, g);
                col = buf;
            }
            float* on = po + n * g.O * ohw;
            sgemmSerial(false, false, g.O, ohw, ckk, 1.f, pw, ckk, col, ohw, 0.f, on, ohw);
            if (pb)
                for (int64_t oc = 0; oc < g.O; ++oc) {
                    float* r = on + oc * ohw;
                    const float b = pb[oc];
                    for (int64_t i = 0; i < ohw; ++i) r[i] += b;
                }
        }
    });
    return out;
}

/// dW[O, C*KH*KW] = sum_n dy_n[O, OHW] x col_n^T.
Tensor conv2dFilter(const Tensor& dy, const Tensor& x, const ConvGeom& g) {
    if (Tensor dw = dnnlconv::conv2dFilter(dy, x, g); dw.defined()) return dw;
    const int64_t ckk = g.ckk(), ohw = g.ohw(), wsize = g.O * ckk;
    const int parts = sampleParts(g);
    const direct::Geometry dg = directGeometry(g);
    if (!pointwise(g) && direct::applies(dg)) {
        const int64_t packed = direct::weightFloats(dg), scratch = direct::scratchFloats(dg);
        Tensor buf = Tensor::empty({parts, scratch});
        Tensor partial = Tensor::zeros({parts, packed});
        parallelParts(parts, [&](int p) {
            for (int64_t n = partBegin(g, p, parts); n < partBegin(g, p + 1, parts); ++n)
                direct::accumulateFilter(x.f32() + n * g.chw(), dy.f32() + n * g.O * ohw,
                                         partial.f32() + p * packed, buf.f32() + p * scratch, dg);
        });
        sumParts(partial.f32(), parts, packed, partial.f32());
        Tensor dw = Tensor::empty({g.O, g.C, g.KH, g.KW});
        direct::unpackWeights(partial.f32(), dw.f32(), dg);
        return dw;
    }
    const bool direct1x1 = pointwise(g);
    Tensor cols = Tensor::empty({direct1x1 ? 1 : parts, direct1x1 ? 1 : ckk * ohw});
    Tensor partial = Tensor::zeros({parts, wsize});
    parallelParts(parts, [&](int p) {
        float* buf = direct1x1 ? nullptr : cols.f32() + p * ckk * ohw;
        float* acc = partial.f32() + p * wsize;
        for (int64_t n = partBegin(g, p, parts); n < partBegin(g, p + 1, parts); ++n) {
            const float* col = x.f32() + n * g.chw();
            if (!direct1x1) {
                im2col(col, buf, g);
                col = buf;
            }
            sgemmSerial(false, true, g.O, ckk, ohw, 1.f, dy.f32() + n * g.O * ohw, ohw, col, ohw,
                        1.f, acc, ckk);
        }
    });
    Tensor dw = Tensor::empty({g.O, g.C, g.KH, g.KW});
    sumParts(partial.f32(), parts, wsize, dw.f32());
    return dw;
}

namespace {

/// Stride 1: the column gradient on a "wide" grid of OH rows of the padded width Wp, so that
/// each of its rows adds to one contiguous run of the padded input gradient (no per-row
/// col2im loop). dy is widened with zero columns first; those columns add zeros.
Tensor backpropInputWide(const Tensor& dy, const Tensor& w, const ConvGeom& g) {
    const int64_t ckk = g.ckk(), ohw = g.ohw();
    const int64_t Wp = g.OW - 1 + g.KW, Hp = g.OH - 1 + g.KH, L = g.OH * Wp;
    const int64_t dyw = g.O * L, dcol = ckk * L, dxp = g.C * Hp * Wp + g.KW;
    const int parts = sampleParts(g);
    Tensor buf = Tensor::empty({parts, dyw + dcol + dxp});
    Tensor dx = Tensor::empty({g.N, g.C, g.H, g.W});
    parallelParts(parts, [&](int p) {
        float* wideDy = buf.f32() + p * (dyw + dcol + dxp);
        float* wideCol = wideDy + dyw;
        float* padDx = wideCol + dcol;
        std::memset(wideDy, 0, sizeof(float) * static_cast<size_t>(dyw));
        for (int64_t n = partBegin(g, p, parts); n < partBegin(g, p + 1, parts); ++n) {
            const float* dyn = dy.f32() + n * g.O * ohw;
            for (int64_t o = 0; o < g.O; ++o)
                for (int64_t oh = 0; oh < g.OH; ++oh)
                    std::memcpy(wideDy + o * L + oh * Wp, dyn + o * ohw + oh * g.OW,
                                sizeof(float) * static_cast<size_t>(g.OW));
            sgemmSerial(true, false, ckk, L, g.O, 1.f, w.f32(), ckk, wideDy, L, 0.f, wideCol, L);
            std::memset(padDx, 0, sizeof(float) * static_cast<size_t>(dxp));
            for (int64_t c = 0; c < g.C; ++c)
                for (int64_t kh = 0; kh < g.KH; ++kh)
                    for (int64_t kw = 0; kw < g.KW; ++kw) {
                        const float* __restrict src = wideCol + ((c * g.KH + kh) * g.KW + kw) * L;
                        float* __restrict dst = padDx + c * Hp * Wp + kh * Wp + kw;
                        for (int64_t j = 0; j < L; ++j) dst[j] += src[j];
                    }
            float* dxn = dx.f32() + n * g.chw();
            for (int64_t c = 0; c < g.C; ++c)
                for (int64_t h = 0; h < g.H; ++h)
                    std::memcpy(dxn + (c * g.H + h) * g.W, padDx + (c * Hp + h + g.pt) * Wp + g.pl,
                                sizeof(float) * static_cast<size_t>(g.W));
        }
    });
    return dx;
}

}  // namespace

/// dx_n = col2im(W^T[C*KH*KW, O] x dy_n[O, OHW]).
Tensor conv2dInput(const Tensor& dy, const Tensor& w, const ConvGeom& g) {
    if (Tensor dx = dnnlconv::conv2dInput(dy, w, g); dx.defined()) return dx;
    const int64_t ckk = g.ckk(), ohw = g.ohw();
    if (pointwise(g)) {  // dx_n = W^T dy_n, no column matrix
        Tensor dx = Tensor::empty({g.N, g.C, g.H, g.W});
        const int parts = sampleParts(g);
        parallelParts(parts, [&](int p) {
            for (int64_t n = partBegin(g, p, parts); n < partBegin(g, p + 1, parts); ++n)
                sgemmSerial(true, false, ckk, ohw, g.O, 1.f, w.f32(), ckk, dy.f32() + n * g.O * ohw,
                            ohw, 0.f, dx.f32() + n * g.chw(), ohw);
        });
        return dx;
    }
    // The wide grid must cover the input: stride 1 and the padding inside the grid.
    if (g.sh == 1 && g.sw == 1 && g.pt + g.H <= g.OH - 1 + g.KH && g.pl + g.W <= g.OW - 1 + g.KW)
        return backpropInputWide(dy, w, g);
    const int parts = sampleParts(g);
    Tensor cols = Tensor::empty({parts, ckk * ohw});
    Tensor dx = Tensor::empty({g.N, g.C, g.H, g.W});
    parallelParts(parts, [&](int p) {
        float* col = cols.f32() + p * ckk * ohw;
        for (int64_t n = partBegin(g, p, parts); n < partBegin(g, p + 1, parts); ++n) {
            sgemmSerial(true, false, ckk, ohw, g.O, 1.f, w.f32(), ckk, dy.f32() + n * g.O * ohw,
                        ohw, 0.f, col, ohw);
            float* dxn = dx.f32() + n * g.chw();
            std::memset(dxn, 0, sizeof(float) * static_cast<size_t>(g.chw()));
            col2im(col, dxn, g);
        }
    });
    return dx;
}

}  // namespace ts::engine::cpu
