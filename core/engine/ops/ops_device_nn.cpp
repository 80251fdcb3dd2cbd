// MatMul, BiasAdd, Conv2D, pooling, batch norm, dropout and the optimizer updates on device
// tensors (ops_nn.cpp, ops_conv.cpp and optimizer.cpp's ops; GEMMs by the backend, cuBLAS on
// CUDA). Conv2D is im2col over the batch + one strided batched GEMM.
#include <algorithm>
#include <random>
#include <stdexcept>

#include "core/engine/device/device.h"
#include "core/engine/ops/conv_geometry.h"
#include "core/engine/ops/op_util.h"
#include "core/engine/ops/ops_device.h"
#include "core/engine/ops/ops_device_util.h"

namespace ts::engine::ops::dev {

using detail::detach;
using detail::requireF32;
using detail::run1;
using kernels::ConvShape;
using kernels::PoolShape;

namespace {

template <class F>
auto on(Device d, F f) {
    return [d, f](std::vector<Tensor>& in) {
        toDeviceAll(in, d);
        return f(in);
    };
}

/// op(A)[M,K] x op(B)[K,N] (the CPU op's gemm()).
Tensor gemm(const Tensor& A, bool tA, const Tensor& B, bool tB) {
    const int64_t M = tA ? A.dim(1) : A.dim(0);
    const int64_t K = tA ? A.dim(0) : A.dim(1);
    const int64_t KB = tB ? B.dim(1) : B.dim(0);
    const int64_t N = tB ? B.dim(0) : B.dim(1);
    if (K != KB)
        throw std::invalid_argument("MatMul: inner dimensions differ: " + shapeString(A.shape()) +
                                    (tA ? "^T" : "") + " x " + shapeString(B.shape()) +
                                    (tB ? "^T" : ""));
    Tensor C = emptyOn(A.device(), {M, N});
    backendOf(A.device())
        .sgemm(tA, tB, M, N, K, 1.f, A.f32(), A.dim(1), B.f32(), B.dim(1), 0.f, C.f32(), N);
    return C;
}

void require(std::string_view op, const Tensor& t, int rank) {
    requireF32(op, t);
    if (t.rank() != rank)
        throw std::invalid_argument(
            std::string(op) +
            (rank == 4 ? ": expects NCHW, got " : ": expects a 2-D tensor, got ") +
            shapeString(t.shape()));
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b, bool transA, bool transB) {
    require("MatMul", a, 2);
    require("MatMul", b, 2);
    const Device d = commonDevice("MatMul", {&a, &b});
    Tensor out =
        run1("MatMul", {a, b},
             on(d, [&](std::vector<Tensor>& in) { return gemm(in[0], transA, in[1], transB); }));
    const Tensor da = detach(a), db = detach(b);
    const bool ga = a.requiresGrad(), gb = b.requiresGrad();
    return record(out, "MatMul", {a, b}, [=](const Tensor& g) {
        Tensor gradA, gradB;
        if (ga)
            gradA = run1("MatMulGrad", {g, db},
                         on(d,
                            [&](std::vector<Tensor>& in) {
                                return transA ? gemm(in[1], transB, in[0], true)
                                              : gemm(in[0], false, in[1], !transB);
                            }),
                         true);
        if (gb)
            gradB = run1("MatMulGrad", {g, da},
                         on(d,
                            [&](std::vector<Tensor>& in) {
                                return transB ? gemm(in[0], true, in[1], transA)
                                              : gemm(in[1], !transA, in[0], false);
                            }),
                         true);
        return std::vector<Tensor>{gradA, gradB};
    });
}

Tensor biasAdd(const Tensor& x, const Tensor& b) {
    requireF32("BiasAdd", x);
    requireF32("BiasAdd", b);
    if (x.rank() < 2 || b.rank() != 1 || b.dim(0) != x.dim(1))
        throw std::invalid_argument("BiasAdd: bias " + shapeString(b.shape()) + " does not match " +
                                    shapeString(x.shape()));
    const Device d = commonDevice("BiasAdd", {&x, &b});
    const int64_t N = x.dim(0), C = x.dim(1), inner = x.numel() / std::max<int64_t>(1, N * C);
    Tensor out = run1("BiasAdd", {x, b}, on(d, [&](std::vector<Tensor>& in) {
                          Tensor o = emptyOn(d, in[0].shape());
                          backendOf(d).biasAdd(in[0].f32(), in[1].f32(), o.f32(), N, C, inner);
                          return o;
                      }));
    return record(out, "BiasAdd", {x, b}, [d, N, C, inner](const Tensor& g) {
        Tensor gb = run1("BiasAddGrad", {g},
                         on(d,
                            [&](std::vector<Tensor>& in) {
                                Tensor o = emptyOn(d, {C});
                                backendOf(d).biasGrad(in[0].f32(), o.f32(), N, C, inner);
                                return o;
                            }),
                         true);
        return std::vector<Tensor>{g, gb};
    });
}

namespace {

/// The CPU op's geometry (conv_geometry.h): the same checks and messages.
ConvShape convShape(const Tensor& x, const Tensor& w, const Conv2dOptions& opt) {
    if (opt.groups != 1)
        throw std::invalid_argument(
            "Conv2D: grouped and depthwise convolution are not available on a CUDA device yet "
            "(CPU only; docs/GPU.md)");
    const detail::ConvGeom g = detail::convGeometry("Conv2D", x, w, opt);
    return {g.N, g.C, g.H, g.W, g.O, g.KH, g.KW, g.OH, g.OW, g.sh, g.sw, g.pt, g.pl};
}

Tensor columns(const Tensor& x, const ConvShape& g) {
    Tensor cols = emptyOn(x.device(), {g.N, g.ckk() * g.ohw()});
    backendOf(x.device()).im2col(x.f32(), cols.f32(), g);
    return cols;
}

}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dOptions& opt) {
    const ConvShape g = convShape(x, w, opt);
    const bool hasBias = bias.defined();
    if (hasBias && (bias.dtype() != DType::Float32 || bias.rank() != 1 || bias.dim(0) != g.O))
        throw std::invalid_argument("Conv2D: bias " + shapeString(bias.shape()) +
                                    " does not match " + std::to_string(g.O) + " output channels");
    const Device d = commonDevice("Conv2D", {&x, &w, &bias});
    std::vector<Tensor> inputs{x, w};
    if (hasBias) inputs.push_back(bias);
    const int64_t ckk = g.ckk(), ohw = g.ohw();
    Tensor out =
        run1("Conv2D", inputs, on(d, [&](std::vector<Tensor>& in) {
                 DeviceBackend& be = backendOf(d);
                 const Tensor cols = columns(in[0], g);
                 Tensor o = emptyOn(d, {g.N, g.O, g.OH, g.OW});
                 be.sgemmStrided(false, false, g.O, ohw, ckk, 1.f, in[1].f32(), ckk, 0, cols.f32(),
                                 ohw, ckk * ohw, 0.f, o.f32(), ohw, g.O * ohw, g.N);
                 if (hasBias) be.biasAdd(o.f32(), in[2].f32(), o.f32(), g.N, g.O, ohw);
                 return o;
             }));
    const Tensor dx = detach(x), dw = detach(w);
    const bool gx = x.requiresGrad(), gw = w.requiresGrad();
    return record(out, "Conv2D", inputs, [g, d, dx, dw, gx, gw, hasBias](const Tensor& grad) {
        const int64_t ckk = g.ckk(), ohw = g.ohw();
        std::vector<Tensor> grads(hasBias ? 3 : 2);
        if (gw)  // dW = sum_n dy_n[O, OHW] x cols_n^T, added sample by sample
            grads[1] = run1("Conv2DBackpropFilter", {grad, dx},
                            on(d,
                               [&](std::vector<Tensor>& in) {
                                   DeviceBackend& be = backendOf(d);
                                   const Tensor cols = columns(in[1], g);
                                   Tensor o = emptyOn(d, {g.O, g.C, g.KH, g.KW});
                                   for (int64_t n = 0; n < g.N; ++n)
                                       be.sgemm(false, true, g.O, ckk, ohw, 1.f,
                                                in[0].f32() + n * g.O * ohw, ohw,
                                                cols.f32() + n * ckk * ohw, ohw, n == 0 ? 0.f : 1.f,
                                                o.f32(), ckk);
                                   return o;
                               }),
                            true);
        if (gx)  // dx = col2im(W^T[CKK, O] x dy_n)
            grads[0] = run1("Conv2DBackpropInput", {grad, dw},
                            on(d,
                               [&](std::vector<Tensor>& in) {
                                   DeviceBackend& be = backendOf(d);
                                   Tensor cols = emptyOn(d, {g.N, ckk * ohw});
                                   be.sgemmStrided(true, false, ckk, ohw, g.O, 1.f, in[1].f32(),
                                                   ckk, 0, in[0].f32(), ohw, g.O * ohw, 0.f,
                                                   cols.f32(), ohw, ckk * ohw, g.N);
                                   Tensor o = emptyOn(d, {g.N, g.C, g.H, g.W});
                                   be.col2im(cols.f32(), o.f32(), g);
                                   return o;
                               }),
                            true);
        if (hasBias)
            grads[2] = run1("BiasAddGrad", {grad},
                            on(d,
                               [&](std::vector<Tensor>& in) {
                                   Tensor o = emptyOn(d, {g.O});
                                   backendOf(d).biasGrad(in[0].f32(), o.f32(), g.N, g.O, ohw);
                                   return o;
                               }),
                            true);
        return grads;
    });
}

namespace {
PoolShape poolShape(std::string_view op, const Tensor& x, int k, int s) {
    require(op, x, 4);
    if (k < 1 || s < 1)
        throw std::invalid_argument(std::string(op) + ": kernel and stride must be >= 1");
    PoolShape g{x.dim(0), x.dim(1), x.dim(2), x.dim(3), 0, 0, k, s};
    g.OH = (g.H - k) / s + 1;
    g.OW = (g.W - k) / s + 1;
    if (g.H < k || g.W < k)
        throw std::invalid_argument(std::string(op) + ": kernel " + std::to_string(k) +
                                    " larger than input " + shapeString(x.shape()));
    return g;
}
}  // namespace

Tensor maxPool2d(const Tensor& x, int kernel, int stride) {
    const PoolShape g = poolShape("MaxPool", x, kernel, stride);
    const Device d = x.device();
    Tensor argmax = emptyOn(d, {g.N, g.C, g.OH, g.OW}, DType::Int32);
    Tensor out = run1("MaxPool", {x}, on(d, [&](std::vector<Tensor>& in) {
                          Tensor o = emptyOn(d, {g.N, g.C, g.OH, g.OW});
                          backendOf(d).maxPool(in[0].f32(), o.f32(), argmax.i32(), g);
                          return o;
                      }));
    return record(out, "MaxPool", {x}, [g, d, argmax](const Tensor& grad) {
        return std::vector<Tensor>{run1("MaxPoolGrad", {grad, argmax},
                                        on(d,
                                           [&](std::vector<Tensor>& in) {
                                               Tensor dx = emptyOn(d, {g.N, g.C, g.H, g.W});
                                               backendOf(d).maxPoolGrad(in[0].f32(), in[1].i32(),
                                                                        dx.f32(), g);
                                               return dx;
                                           }),
                                        true)};
    });
}

Tensor avgPool2d(const Tensor& x, int kernel, int stride) {
    const PoolShape g = poolShape("AvgPool", x, kernel, stride);
    const Device d = x.device();
    Tensor out = run1("AvgPool", {x}, on(d, [&](std::vector<Tensor>& in) {
                          Tensor o = emptyOn(d, {g.N, g.C, g.OH, g.OW});
                          backendOf(d).avgPool(in[0].f32(), o.f32(), g);
                          return o;
                      }));
    return record(out, "AvgPool", {x}, [g, d](const Tensor& grad) {
        return std::vector<Tensor>{run1("AvgPoolGrad", {grad},
                                        on(d,
                                           [&](std::vector<Tensor>& in) {
                                               Tensor dx = emptyOn(d, {g.N, g.C, g.H, g.W});
                                               backendOf(d).avgPoolGrad(in[0].f32(), dx.f32(), g);
                                               return dx;
                                           }),
                                        true)};
    });
}

Tensor batchNorm2d(const Tensor& x, const Tensor& gamma, const Tensor& beta, Tensor& runningMean,
                   Tensor& runningVar, bool training, float momentum, float eps) {
    require("BatchNorm", x, 4);
    const int64_t N = x.dim(0), C = x.dim(1), HW = x.dim(2) * x.dim(3);
    for (const Tensor* t :
         std::initializer_list<const Tensor*>{&gamma, &beta, &runningMean, &runningVar})
        if (!t->defined() || t->rank() != 1 || t->dim(0) != C)
            throw std::invalid_argument("BatchNorm: parameters must have shape [" +
                                        std::to_string(C) + "]");
    const Device d = commonDevice("BatchNorm", {&x, &gamma, &beta, &runningMean, &runningVar});
    const kernels::BatchNormArgs args{N, C, HW, training, momentum, eps};
    Tensor xhat = emptyOn(d, x.shape());
    Tensor invstd = emptyOn(d, {C});
    Tensor rm = runningMean, rv = runningVar;
    Tensor out = run1("BatchNorm", {x, gamma, beta, runningMean, runningVar},
                      on(d, [&](std::vector<Tensor>& in) {
                          Tensor o = emptyOn(d, in[0].shape());
                          backendOf(d).batchNorm(in[0].f32(), in[1].f32(), in[2].f32(), rm.f32(),
                                                 rv.f32(), o.f32(), xhat.f32(), invstd.f32(), args);
                          return o;
                      }));
    const Tensor dg = detach(gamma);
    return record(out, "BatchNorm", {x, gamma, beta}, [=](const Tensor& grad) {
        Tensor dgamma = emptyOn(d, {C}), dbeta = emptyOn(d, {C});
        Tensor dx = run1("BatchNormGrad", {grad, xhat, dg, invstd},
                         on(d,
                            [&](std::vector<Tensor>& in) {
                                Tensor o = emptyOn(d, in[0].shape());
                                backendOf(d).batchNormGrad(in[0].f32(), in[1].f32(), in[2].f32(),
                                                           in[3].f32(), o.f32(), dgamma.f32(),
                                                           dbeta.f32(), args);
                                return o;
                            }),
                         true);
        return std::vector<Tensor>{dx, dgamma, dbeta};
    });
}

Tensor dropout(const Tensor& x, float p, bool training, uint64_t seed) {
    requireF32("Dropout", x);
    if (!(p >= 0.f && p < 1.f))
        throw std::invalid_argument("Dropout: probability must be in [0, 1)");
    if (!training || p == 0.f) return x;
    const Device d = x.device();
    // The mask of the CPU op, drawn on the host from the same generator, so a run on the
    // device drops the same units as on the CPU.
    Tensor hostMask = Tensor::empty(x.shape());
    const float keepScale = 1.f / (1.f - p);
    {
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<float> u(0.f, 1.f);
        for (int64_t i = 0, n = hostMask.numel(); i < n; ++i)
            hostMask.f32()[i] = u(rng) >= p ? keepScale : 0.f;
    }
    const Tensor mask = toDevice(hostMask, d);
    auto times = [d](const Tensor& a, const Tensor& b) {
        Tensor o = emptyOn(d, a.shape());
        backendOf(d).binary(kernels::Binary::Mul, a.f32(), b.f32(), o.f32(), a.numel());
        return o;
    };
    Tensor out =
        run1("Dropout", {x}, on(d, [&](std::vector<Tensor>& in) { return times(in[0], mask); }));
    return record(out, "Dropout", {x}, [mask, d, times](const Tensor& grad) {
        return std::vector<Tensor>{
            run1("DropoutGrad", {grad, mask},
                 on(d, [&](std::vector<Tensor>& in) { return times(in[0], in[1]); }), true)};
    });
}

void applyMomentum(const Tensor& w, const Tensor& g, const Tensor& v, float lr, float momentum,
                   float weightDecay, bool nesterov) {
    const Device d = commonDevice("ApplyMomentum", {&w, &g, &v});
    const kernels::SgdArgs a{lr, momentum, weightDecay, nesterov};
    run1("ApplyMomentum", {w, g, v}, on(d, [&](std::vector<Tensor>& in) {
             backendOf(d).sgd(in[0].f32(), in[1].f32(), in[2].f32(), in[0].numel(), a);
             return in[0];
         }));
}

void applyAdam(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v, float stepSize,
               float beta1, float beta2, float eps, float weightDecay, float sqrtBc2) {
    const Device d = commonDevice("Adam", {&w, &g, &m, &v});
    const kernels::AdamArgs a{beta1, beta2, eps, weightDecay, stepSize, sqrtBc2};
    run1("Adam", {w, g, m, v}, on(d, [&](std::vector<Tensor>& in) {
             backendOf(d).adam(in[0].f32(), in[1].f32(), in[2].f32(), in[3].f32(), in[0].numel(),
                               a);
             return in[0];
         }));
}

}  // namespace ts::engine::ops::dev
