// The host's dense-algebra and pooling kernels: GEMM (OpenBLAS through the intra-op pool),
// BiasAdd and its gradient, max and average pooling with their gradients.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "core/engine/ops/cpu_kernels.h"
#include "core/engine/tensor/parallel.h"

namespace ts::engine::cpu {

using kernels::PoolShape;

Tensor gemm(const Tensor& A, bool tA, const Tensor& B, bool tB) {
    const auto [M, N, K] = detail::gemmShape(A, tA, B, tB);
    Tensor C = Tensor::empty({M, N});
    sgemm(tA, tB, M, N, K, 1.f, A.f32(), A.dim(1), B.f32(), B.dim(1), 0.f, C.f32(), N);
    return C;
}

Tensor biasAdd(const Tensor& x, const Tensor& b, int64_t N, int64_t C, int64_t inner) {
    Tensor o = Tensor::empty(x.shape());
    const float* px = x.f32();
    const float* pb = b.f32();
    float* po = o.f32();
    const int64_t row = C * inner;
    parallelFor(N, std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(1, row)),
                [&](int64_t n0, int64_t n1) {
                    for (int64_t n = n0; n < n1; ++n) {
                        const float* xs = px + n * row;
                        float* os = po + n * row;
                        if (inner == 1) {
                            for (int64_t c = 0; c < C; ++c) os[c] = xs[c] + pb[c];
                            continue;
                        }
                        for (int64_t c = 0; c < C; ++c)
                            for (int64_t i = 0; i < inner; ++i)
                                os[c * inner + i] = xs[c * inner + i] + pb[c];
                    }
                });
    return o;
}

Tensor biasGrad(const Tensor& g, int64_t N, int64_t C, int64_t inner) {
    Tensor o = Tensor::zeros({C});
    const float* pg = g.f32();
    float* po = o.f32();
    for (int64_t n = 0; n < N; ++n) {
        const float* row = pg + n * C * inner;
        if (inner == 1) {
            for (int64_t c = 0; c < C; ++c) po[c] += row[c];
            continue;
        }
        for (int64_t c = 0; c < C; ++c) {
            float s = 0;
            for (int64_t i = 0; i < inner; ++i) s += row[c * inner + i];
            po[c] += s;
        }
    }
    return o;
}

namespace {

/// Max pooling of one [H,W] plane; `arg` gets the flat index of each maximum (the first one
/// on ties, as the gradient goes to one input only). A NaN input wins its window.
void maxPoolPlane(const float* x, float* out, int32_t* arg, const PoolShape& g) {
    if (g.k == 2 && g.s == 2) {
        // Branch-free (select, not jump): after a ReLU the window maxima are unpredictable,
        // and mispredicted branches tripled this loop's time.
        for (int64_t oh = 0; oh < g.OH; ++oh) {
            const float* __restrict r0 = x + (2 * oh) * g.W;
            const float* __restrict r1 = r0 + g.W;
            float* __restrict o = out + oh * g.OW;
            int32_t* __restrict ai = arg + oh * g.OW;
            const int32_t base = static_cast<int32_t>(2 * oh * g.W);
            const int32_t w = static_cast<int32_t>(g.W);
            for (int64_t ow = 0; ow < g.OW; ++ow) {
                const float a = r0[2 * ow], b = r0[2 * ow + 1], c = r1[2 * ow], d = r1[2 * ow + 1];
                const bool tb = (b > a) | (b != b);
                float m = tb ? b : a;
                int32_t i = tb ? 1 : 0;
                const bool tc = (c > m) | (c != c);
                m = tc ? c : m;
                i = tc ? w : i;
                const bool td = (d > m) | (d != d);
                m = td ? d : m;
                i = td ? w + 1 : i;
                o[ow] = m;
                ai[ow] = base + static_cast<int32_t>(2 * ow) + i;
            }
        }
        return;
    }
    for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow) {
            int64_t bi = (oh * g.s) * g.W + ow * g.s;
            float best = x[bi];
            for (int64_t i = 0; i < g.k; ++i)
                for (int64_t j = 0; j < g.k; ++j) {
                    const int64_t idx = (oh * g.s + i) * g.W + ow * g.s + j;
                    if (x[idx] > best || (std::isnan(x[idx]) && !std::isnan(best))) {
                        best = x[idx];
                        bi = idx;
                    }
                }
            out[oh * g.OW + ow] = best;
            arg[oh * g.OW + ow] = static_cast<int32_t>(bi);
        }
}

}  // namespace

Tensor maxPool(const Tensor& x, const PoolShape& g, const Tensor& argmax) {
    Tensor o = Tensor::empty({g.N, g.C, g.OH, g.OW});
    const float* px = x.f32();
    float* po = o.f32();
    int32_t* pa = argmax.i32();
    const int64_t ohw = g.OH * g.OW, hw = g.H * g.W;
    parallelFor(g.N * g.C, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, hw)),
                [&](int64_t b, int64_t e) {
                    for (int64_t nc = b; nc < e; ++nc)
                        maxPoolPlane(px + nc * hw, po + nc * ohw, pa + nc * ohw, g);
                });
    return o;
}

Tensor maxPoolGrad(const Tensor& grad, const Tensor& argmax, const PoolShape& g) {
    Tensor dx = Tensor::empty({g.N, g.C, g.H, g.W});
    const int64_t ohw = g.OH * g.OW, hw = g.H * g.W;
    parallelFor(g.N * g.C, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, hw)),
                [&](int64_t b, int64_t e) {
                    for (int64_t nc = b; nc < e; ++nc) {
                        float* d = dx.f32() + nc * hw;
                        std::memset(d, 0, sizeof(float) * static_cast<size_t>(hw));
                        const float* gp = grad.f32() + nc * ohw;
                        const int32_t* ap = argmax.i32() + nc * ohw;
                        for (int64_t p = 0; p < ohw; ++p) d[ap[p]] += gp[p];
                    }
                });
    return dx;
}

Tensor avgPool(const Tensor& x, const PoolShape& g) {
    const float inv = 1.f / static_cast<float>(g.k * g.k);
    Tensor o = Tensor::empty({g.N, g.C, g.OH, g.OW});
    for (int64_t nc = 0; nc < g.N * g.C; ++nc) {
        const float* xp = x.f32() + nc * g.H * g.W;
        float* op = o.f32() + nc * g.OH * g.OW;
        for (int64_t oh = 0; oh < g.OH; ++oh)
            for (int64_t ow = 0; ow < g.OW; ++ow) {
                float s = 0;
                for (int64_t i = 0; i < g.k; ++i)
                    for (int64_t j = 0; j < g.k; ++j) s += xp[(oh * g.s + i) * g.W + ow * g.s + j];
                op[oh * g.OW + ow] = s * inv;
            }
    }
    return o;
}

Tensor avgPoolGrad(const Tensor& grad, const PoolShape& g) {
    const float inv = 1.f / static_cast<float>(g.k * g.k);
    Tensor dx = Tensor::zeros({g.N, g.C, g.H, g.W});
    for (int64_t nc = 0; nc < g.N * g.C; ++nc) {
        float* d = dx.f32() + nc * g.H * g.W;
        const float* gp = grad.f32() + nc * g.OH * g.OW;
        for (int64_t oh = 0; oh < g.OH; ++oh)
            for (int64_t ow = 0; ow < g.OW; ++ow) {
                const float v = gp[oh * g.OW + ow] * inv;
                for (int64_t i = 0; i < g.k; ++i)
                    for (int64_t j = 0; j < g.k; ++j) d[(oh * g.s + i) * g.W + ow * g.s + j] += v;
            }
    }
    return dx;
}

}  // namespace ts::engine::cpu
