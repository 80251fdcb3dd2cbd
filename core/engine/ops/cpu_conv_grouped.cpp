// The host's grouped and depthwise Conv2D kernels.
// - Depthwise (groups == C == O): the channels-last kernels of conv_depthwise.h.
// - Other groupings (and depthwise with a channel multiplier): per sample and group im2col +
//   GEMM as cpu_conv.cpp does for one group.
// Samples are spread over the intra-op pool in fixed parts; the filter gradients are summed
// per part and the parts added in order, so results do not depend on the thread count.
#include <cstring>

#include "core/engine/ops/conv_depthwise.h"
#include "core/engine/ops/cpu_kernels.h"
#include "core/engine/tensor/parallel.h"

namespace ts::engine::cpu {

using detail::col2im;
using detail::ConvGeom;
using detail::im2col;
using detail::partBegin;
using detail::pointwise;
using detail::sampleParts;
using detail::sumParts;

namespace {

depthwise::Geometry dwGeometry(const ConvGeom& g) {
    return {g.groups, g.H, g.W, g.KH, g.KW, g.OH, g.OW, g.sh, g.sw, g.pt, g.pl};
}

/// The weights (and bias) in the kernels' channels-last layout.
Tensor packDepthwise(const Tensor& w, const Tensor& bias, const depthwise::Geometry& dg) {
    Tensor packed = Tensor::empty({depthwise::packedFloats(dg)});
    depthwise::packWeights(w.f32(), bias.defined() ? bias.f32() : nullptr, packed.f32(), dg);
    return packed;
}

}  // namespace

Tensor depthwiseConv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeom& g) {
    const int64_t C = g.groups, chw = C * g.H * g.W, cohw = C * g.ohw();
    const depthwise::Geometry dg = dwGeometry(g);
    const Tensor packed = packDepthwise(w, bias, dg);
    const int64_t scratch = depthwise::scratchFloats(dg);
    const int np = sampleParts(g);
    Tensor buf = Tensor::empty({np, scratch});
    Tensor out = Tensor::empty({g.N, C, g.OH, g.OW});
    parallelParts(np, [&](int p) {
        for (int64_t n = partBegin(g, p, np); n < partBegin(g, p + 1, np); ++n)
            depthwise::forward(x.f32() + n * chw, packed.f32(), out.f32() + n * cohw,
                               buf.f32() + p * scratch, dg);
    });
    return out;
}

Tensor depthwiseInput(const Tensor& dy, const Tensor& w, const ConvGeom& g) {
    const int64_t C = g.groups, chw = C * g.H * g.W, cohw = C * g.ohw();
    const depthwise::Geometry dg = dwGeometry(g);
    const Tensor packed = packDepthwise(w, Tensor(), dg);
    const int64_t scratch = depthwise::scratchFloats(dg);
    const int np = sampleParts(g);
    Tensor buf = Tensor::empty({np, scratch});
    Tensor dx = Tensor::empty({g.N, C, g.H, g.W});
    parallelParts(np, [&](int p) {
        for (int64_t n = partBegin(g, p, np); n < partBegin(g, p + 1, np); ++n)
            depthwise::backwardInput(dy.f32() + n * cohw, packed.f32(), dx.f32() + n * chw,
                                     buf.f32() + p * scratch, dg);
    });
    return dx;
}

Tensor depthwiseFilter(const Tensor& dy, const Tensor& x, const ConvGeom& g) {
    const int64_t C = g.groups, chw = C * g.H * g.W, cohw = C * g.ohw();
    const depthwise::Geometry dg = dwGeometry(g);
    const int64_t scratch = depthwise::scratchFloats(dg), packed = depthwise::packedFloats(dg);
    const int np = sampleParts(g);
    Tensor buf = Tensor::empty({np, scratch});
    Tensor partial = Tensor::zeros({np, packed});
    parallelParts(np, [&](int p) {
        for (int64_t n = partBegin(g, p, np); n < partBegin(g, p + 1, np); ++n)
            depthwise::accumulateFilter(x.f32() + n * chw, dy.f32() + n * cohw,
                                        partial.f32() + p * packed, buf.f32() + p * scratch, dg);
    });
    sumParts(partial.f32(), np, packed, partial.f32());
    Tensor dw = Tensor::empty({C, 1, g.KH, g.KW});
    depthwise::unpackFilter(partial.f32(), dw.f32(), dg);
    return dw;
}

namespace {

/// Floats of one sample of the input and of the output (all groups).
int64_t sampleIn(const ConvGeom& g) {
    return g.groups * g.chw();
}
int64_t sampleOut(const ConvGeom& g) {
    return g.groups * g.O * g.ohw();
}

}  // namespace

Tensor groupedConv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeom& g) {
    const int64_t ckk = g.ckk(), ohw = g.ohw();
    const int np = sampleParts(g);
    const bool pw = pointwise(g);
    Tensor cols = Tensor::empty({pw ? 1 : np, pw ? 1 : ckk * ohw});
    Tensor out = Tensor::empty({g.N, g.groups * g.O, g.OH, g.OW});
    parallelParts(np, [&](int p) {
        float* buf = pw ? nullptr : cols.f32() + p * ckk * ohw;
        for (int64_t n = partBegin(g, p, np); n < partBegin(g, p + 1, np); ++n)
            for (int64_t gi = 0; gi < g.groups; ++gi) {
                const float* col = x.f32() + n * sampleIn(g) + gi * g.chw();
                if (!pw) {
                    im2col(col, buf, g);
                    col = buf;
                }
                float* on = out.f32() + n * sampleOut(g) + gi * g.O * ohw;
                sgemmSerial(false, false, g.O, ohw, ckk, 1.f, w.f32() + gi * g.O * ckk, ckk, col,
                            ohw, 0.f, on, ohw);
                if (bias.defined())
                    for (int64_t oc = 0; oc < g.O; ++oc)
                        for (int64_t i = 0; i < ohw; ++i)
                            on[oc * ohw + i] += bias.f32()[gi * g.O + oc];
            }
    });
    return out;
}

Tensor groupedFilter(const Tensor& dy, const Tensor& x, const ConvGeom& g) {
    const int64_t ckk = g.ckk(), ohw = g.ohw(), wsize = g.groups * g.O * ckk;
    const int np = sampleParts(g);
    const bool pw = pointwise(g);
    Tensor cols = Tensor::empty({pw ? 1 : np, pw ? 1 : ckk * ohw});
    Tensor partial = Tensor::zeros({np, wsize});
    parallelParts(np, [&](int p) {
        float* buf = pw ? nullptr : cols.f32() + p * ckk * ohw;
        for (int64_t n = partBegin(g, p, np); n < partBegin(g, p + 1, np); ++n)
            for (int64_t gi = 0; gi < g.groups; ++gi) {
                const float* col = x.f32() + n * sampleIn(g) + gi * g.chw();
                if (!pw) {
                    im2col(col, buf, g);
                    col = buf;
                }
                sgemmSerial(false, true, g.O, ckk, ohw, 1.f,
                            dy.f32() + n * sampleOut(g) + gi * g.O * ohw, ohw, col, ohw, 1.f,
                            partial.f32() + p * wsize + gi * g.O * ckk, ckk);
            }
    });
    Tensor dw = Tensor::empty({g.groups * g.O, g.C, g.KH, g.KW});
    sumParts(partial.f32(), np, wsize, dw.f32());
    return dw;
}

Tensor groupedInput(const Tensor& dy, const Tensor& w, const ConvGeom& g) {
    const int64_t ckk = g.ckk(), ohw = g.ohw();
    const int np = sampleParts(g);
    Tensor cols = Tensor::empty({np, ckk * ohw});
    Tensor dx = Tensor::empty({g.N, g.groups * g.C, g.H, g.W});
    parallelParts(np, [&](int p) {
        float* col = cols.f32() + p * ckk * ohw;
        for (int64_t n = partBegin(g, p, np); n < partBegin(g, p + 1, np); ++n) {
            float* dxn = dx.f32() + n * sampleIn(g);
            std::memset(dxn, 0, sizeof(float) * static_cast<size_t>(sampleIn(g)));
            for (int64_t gi = 0; gi < g.groups; ++gi) {
                sgemmSerial(true, false, ckk, ohw, g.O, 1.f, w.f32() + gi * g.O * ckk, ckk,
                            dy.f32() + n * sampleOut(g) + gi * g.O * ohw, ohw, 0.f, col, ohw);
                col2im(col, dxn + gi * g.chw(), g);
            }
        }
    });
    return dx;
}

}  // namespace ts::engine::cpu
