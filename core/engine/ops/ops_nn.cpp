// Dense-algebra and neural-network ops: MatMul (OpenBLAS through the intra-op pool), BiasAdd,
// pooling, dropout. Conv2D lives in ops_conv.cpp, BatchNorm in ops_norm.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "core/engine/ops/op_util.h"
#include "core/engine/ops/ops.h"
#include "core/engine/ops/ops_device.h"
#include "core/engine/tensor/parallel.h"

namespace ts::engine::ops {

using detail::detach;
using detail::requireF32;
using detail::run1;

namespace {

/// op(A)[M,K] x op(B)[K,N] for row-major 2-D A and B (split over the intra-op pool).
Tensor gemm(const Tensor& A, bool tA, const Tensor& B, bool tB) {
    const int64_t M = tA ? A.dim(1) : A.dim(0);
    const int64_t K = tA ? A.dim(0) : A.dim(1);
    const int64_t KB = tB ? B.dim(1) : B.dim(0);
    const int64_t N = tB ? B.dim(0) : B.dim(1);
    if (K != KB)
        throw std::invalid_argument("MatMul: inner dimensions differ: " + shapeString(A.shape()) +
                                    (tA ? "^T" : "") + " x " + shapeString(B.shape()) +
                                    (tB ? "^T" : ""));
    Tensor C = Tensor::empty({M, N});
    sgemm(tA, tB, M, N, K, 1.f, A.f32(), A.dim(1), B.f32(), B.dim(1), 0.f, C.f32(), N);
    return C;
}

void require2(std::string_view op, const Tensor& t) {
    requireF32(op, t);
    if (t.rank() != 2)
        throw std::invalid_argument(std::string(op) + ": expects a 2-D tensor, got " +
                                    shapeString(t.shape()));
}

void require4(std::string_view op, const Tensor& t) {
    requireF32(op, t);
    if (t.rank() != 4)
        throw std::invalid_argument(std::string(op) + ": expects NCHW, got " +
                                    shapeString(t.shape()));
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b, bool transA, bool transB) {
    if (dev::any({&a, &b})) return dev::matmul(a, b, transA, transB);
    require2("MatMul", a);
    require2("MatMul", b);
    const std::string attrs = detail::attrsIfObserved([&] {
        return std::string("\"transpose_a\":") + (transA ? "true" : "false") +
               ",\"transpose_b\":" + (transB ? "true" : "false");
    });
    Tensor out = run1(
        "MatMul", {a, b},
        [&](std::vector<Tensor>& in) { return gemm(in[0], transA, in[1], transB); }, false, attrs);
    const Tensor da = detach(a), db = detach(b);
    const bool ga = a.requiresGrad(), gb = b.requiresGrad();
    return record(out, "MatMul", {a, b}, [=](const Tensor& g) {
        Tensor gradA, gradB;
        if (ga)
            gradA = run1(
                "MatMulGrad", {g, db},
                [&](std::vector<Tensor>& in) {
                    return transA ? gemm(in[1], transB, in[0], true)
                                  : gemm(in[0], false, in[1], !transB);
                },
                true);
        if (gb)
            gradB = run1(
                "MatMulGrad", {g, da},
                [&](std::vector<Tensor>& in) {
                    return transB ? gemm(in[0], true, in[1], transA)
                                  : gemm(in[1], !transA, in[0], false);
                },
                true);
        return std::vector<Tensor>{gradA, gradB};
    });
}

Tensor biasAdd(const Tensor& x, const Tensor& b) {
    if (dev::any({&x, &b})) return dev::biasAdd(x, b);
    requireF32("BiasAdd", x);
    requireF32("BiasAdd", b);
    if (x.rank() < 2 || b.rank() != 1 || b.dim(0) != x.dim(1))
        throw std::invalid_argument("BiasAdd: bias " + shapeString(b.shape()) + " does not match " +
                                    shapeString(x.shape()));
    const int64_t N = x.dim(0), C = x.dim(1), inner = x.numel() / std::max<int64_t>(1, N * C);
    Tensor out = run1("BiasAdd", {x, b}, [&](std::vector<Tensor>& in) {
        Tensor o = Tensor::empty(in[0].shape());
        const float* px = in[0].f32();
        const float* pb = in[1].f32();
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
    });
    return record(out, "BiasAdd", {x, b}, [N, C, inner](const Tensor& g) {
        Tensor gb = run1(
            "BiasAddGrad", {g},
            [&](std::vector<Tensor>& in) {
                Tensor o = Tensor::zeros({C});
                const float* pg = in[0].f32();
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
            },
            true);
        return std::vector<Tensor>{g, gb};
    });
}

namespace {
struct PoolGeom {
    int64_t N, C, H, W, OH, OW, k, s;
};
std::string poolAttrs(const PoolGeom& g) {
    return detail::attrsIfObserved(
        [&] { return "\"kernel\":" + std::to_string(g.k) + ",\"stride\":" + std::to_string(g.s); });
}

PoolGeom poolGeom(std::string_view op, const Tensor& x, int k, int s) {
    require4(op, x);
    if (k < 1 || s < 1)
        throw std::invalid_argument(std::string(op) + ": kernel and stride must be >= 1");
    PoolGeom g{x.dim(0), x.dim(1), x.dim(2), x.dim(3), 0, 0, k, s};
    g.OH = (g.H - k) / s + 1;
    g.OW = (g.W - k) / s + 1;
    if (g.H < k || g.W < k)
        throw std::invalid_argument(std::string(op) + ": kernel " + std::to_string(k) +
                                    " larger than input " + shapeString(x.shape()));
    return g;
}

/// Max pooling of one [H,W] plane; `arg` gets the flat index of each maximum (the first one
/// on ties, as the gradient goes to one input only). A NaN input wins its window.
void maxPoolPlane(const float* x, float* out, int32_t* arg, const PoolGeom& g) {
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

Tensor maxPool2d(const Tensor& x, int kernel, int stride) {
    if (dev::any({&x})) return dev::maxPool2d(x, kernel, stride);
    const PoolGeom g = poolGeom("MaxPool", x, kernel, stride);
    Tensor argmax = Tensor::empty({g.N, g.C, g.OH, g.OW}, DType::Int32);
    Tensor out = run1(
        "MaxPool", {x},
        [&](std::vector<Tensor>& in) {
            Tensor o = Tensor::empty({g.N, g.C, g.OH, g.OW});
            const float* px = in[0].f32();
            float* po = o.f32();
            int32_t* pa = argmax.i32();
            const int64_t ohw = g.OH * g.OW, hw = g.H * g.W;
            parallelFor(g.N * g.C, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, hw)),
                        [&](int64_t b, int64_t e) {
                            for (int64_t nc = b; nc < e; ++nc)
                                maxPoolPlane(px + nc * hw, po + nc * ohw, pa + nc * ohw, g);
                        });
            return o;
        },
        false, poolAttrs(g));
    return record(out, "MaxPool", {x}, [g, argmax](const Tensor& grad) {
        return std::vector<Tensor>{run1(
            "MaxPoolGrad", {grad, argmax},
            [&](std::vector<Tensor>& in) {
                Tensor dx = Tensor::empty({g.N, g.C, g.H, g.W});
                const int64_t ohw = g.OH * g.OW, hw = g.H * g.W;
                parallelFor(g.N * g.C, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, hw)),
                            [&](int64_t b, int64_t e) {
                                for (int64_t nc = b; nc < e; ++nc) {
                                    float* d = dx.f32() + nc * hw;
                                    std::memset(d, 0, sizeof(float) * static_cast<size_t>(hw));
                                    const float* gp = in[0].f32() + nc * ohw;
                                    const int32_t* ap = in[1].i32() + nc * ohw;
                                    for (int64_t p = 0; p < ohw; ++p) d[ap[p]] += gp[p];
                                }
                            });
                return dx;
            },
            true)};
    });
}

Tensor avgPool2d(const Tensor& x, int kernel, int stride) {
    if (dev::any({&x})) return dev::avgPool2d(x, kernel, stride);
    const PoolGeom g = poolGeom("AvgPool", x, kernel, stride);
    const float inv = 1.f / static_cast<float>(g.k * g.k);
    Tensor out = run1(
        "AvgPool", {x},
        [&](std::vector<Tensor>& in) {
            Tensor o = Tensor::empty({g.N, g.C, g.OH, g.OW});
            for (int64_t nc = 0; nc < g.N * g.C; ++nc) {
                const float* xp = in[0].f32() + nc * g.H * g.W;
                float* op = o.f32() + nc * g.OH * g.OW;
                for (int64_t oh = 0; oh < g.OH; ++oh)
                    for (int64_t ow = 0; ow < g.OW; ++ow) {
                        float s = 0;
                        for (int64_t i = 0; i < g.k; ++i)
                            for (int64_t j = 0; j < g.k; ++j)
                                s += xp[(oh * g.s + i) * g.W + ow * g.s + j];
                        op[oh * g.OW + ow] = s * inv;
                    }
            }
            return o;
        },
        false, poolAttrs(g));
    return record(out, "AvgPool", {x}, [g, inv](const Tensor& grad) {
        return std::vector<Tensor>{run1(
            "AvgPoolGrad", {grad},
            [&](std::vector<Tensor>& in) {
                Tensor dx = Tensor::zeros({g.N, g.C, g.H, g.W});
                for (int64_t nc = 0; nc < g.N * g.C; ++nc) {
                    float* d = dx.f32() + nc * g.H * g.W;
                    const float* gp = in[0].f32() + nc * g.OH * g.OW;
                    for (int64_t oh = 0; oh < g.OH; ++oh)
                        for (int64_t ow = 0; ow < g.OW; ++ow) {
                            const float v = gp[oh * g.OW + ow] * inv;
                            for (int64_t i = 0; i < g.k; ++i)
                                for (int64_t j = 0; j < g.k; ++j)
                                    d[(oh * g.s + i) * g.W + ow * g.s + j] += v;
                        }
                }
                return dx;
            },
            true)};
    });
}

Tensor dropout(const Tensor& x, float p, bool training, uint64_t seed) {
    if (dev::any({&x})) return dev::dropout(x, p, training, seed);
    requireF32("Dropout", x);
    if (!(p >= 0.f && p < 1.f))
        throw std::invalid_argument("Dropout: probability must be in [0, 1)");
    if (!training || p == 0.f) return x;
    Tensor mask = Tensor::empty(x.shape());
    const float keepScale = 1.f / (1.f - p);
    Tensor out = run1("Dropout", {x}, [&](std::vector<Tensor>& in) {
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<float> u(0.f, 1.f);
        Tensor o = Tensor::empty(in[0].shape());
        for (int64_t i = 0, n = o.numel(); i < n; ++i) {
            mask.f32()[i] = u(rng) >= p ? keepScale : 0.f;
            o.f32()[i] = in[0].f32()[i] * mask.f32()[i];
        }
        return o;
    });
    return record(out, "Dropout", {x}, [mask](const Tensor& grad) {
        return std::vector<Tensor>{run1(
            "DropoutGrad", {grad, mask},
            [](std::vector<Tensor>& in) {
                Tensor o = Tensor::empty(in[0].shape());
                for (int64_t i = 0, n = o.numel(); i < n; ++i)
                    o.f32()[i] = in[0].f32()[i] * in[1].f32()[i];
                return o;
            },
            true)};
    });
}

}  // namespace ts::engine::ops
