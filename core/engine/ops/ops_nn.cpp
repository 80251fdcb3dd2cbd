// Dense-algebra and neural-network ops: MatMul, BiasAdd, pooling, dropout. Conv2D lives in
// ops_conv.cpp, BatchNorm in ops_norm.cpp; their host kernels in cpu_*.cpp.
#include <algorithm>
#include <random>

#include "core/engine/ops/op_util.h"
#include "core/engine/ops/ops.h"

namespace ts::engine::ops {

using detail::detach;
using detail::kernelsFor;
using detail::requireF32;
using detail::run1;
using kernels::PoolShape;

namespace {

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
    require2("MatMul", a);
    require2("MatMul", b);
    const KernelTable* k = kernelsFor("MatMul", {&a, &b});
    const std::string attrs = detail::attrsIfObserved([&] {
        return std::string("\"transpose_a\":") + (transA ? "true" : "false") +
               ",\"transpose_b\":" + (transB ? "true" : "false");
    });
    Tensor out = run1(
        k, "MatMul", {a, b},
        [&](std::vector<Tensor>& in) { return k->gemm(in[0], transA, in[1], transB); }, false,
        attrs);
    const Tensor da = detach(a), db = detach(b);
    const bool ga = a.requiresGrad(), gb = b.requiresGrad();
    return record(out, "MatMul", {a, b}, [=](const Tensor& g) {
        Tensor gradA, gradB;
        if (ga)
            gradA = run1(
                k, "MatMulGrad", {g, db},
                [&](std::vector<Tensor>& in) {
                    return transA ? k->gemm(in[1], transB, in[0], true)
                                  : k->gemm(in[0], false, in[1], !transB);
                },
                true);
        if (gb)
            gradB = run1(
                k, "MatMulGrad", {g, da},
                [&](std::vector<Tensor>& in) {
                    return transB ? k->gemm(in[0], true, in[1], transA)
                                  : k->gemm(in[1], !transA, in[0], false);
                },
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
    const KernelTable* k = kernelsFor("BiasAdd", {&x, &b});
    const int64_t N = x.dim(0), C = x.dim(1), inner = x.numel() / std::max<int64_t>(1, N * C);
    Tensor out = run1(k, "BiasAdd", {x, b}, [&](std::vector<Tensor>& in) {
        return k->biasAdd(in[0], in[1], N, C, inner);
    });
    return record(out, "BiasAdd", {x, b}, [k, N, C, inner](const Tensor& g) {
        Tensor gb = run1(
            k, "BiasAddGrad", {g},
            [&](std::vector<Tensor>& in) { return k->biasGrad(in[0], N, C, inner); }, true);
        return std::vector<Tensor>{g, gb};
    });
}

namespace {

std::string poolAttrs(const PoolShape& g) {
    return detail::attrsIfObserved(
        [&] { return "\"kernel\":" + std::to_string(g.k) + ",\"stride\":" + std::to_string(g.s); });
}

PoolShape poolShape(std::string_view op, const Tensor& x, int k, int s) {
    require4(op, x);
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
    const KernelTable* k = kernelsFor("MaxPool", {&x});
    Tensor argmax = emptyOn(k->device, {g.N, g.C, g.OH, g.OW}, DType::Int32);
    Tensor out = run1(
        k, "MaxPool", {x}, [&](std::vector<Tensor>& in) { return k->maxPool(in[0], g, argmax); },
        false, poolAttrs(g));
    return record(out, "MaxPool", {x}, [k, g, argmax](const Tensor& grad) {
        return std::vector<Tensor>{run1(
            k, "MaxPoolGrad", {grad, argmax},
            [&](std::vector<Tensor>& in) { return k->maxPoolGrad(in[0], in[1], g); }, true)};
    });
}

Tensor avgPool2d(const Tensor& x, int kernel, int stride) {
    const PoolShape g = poolShape("AvgPool", x, kernel, stride);
    const KernelTable* k = kernelsFor("AvgPool", {&x});
    Tensor out = run1(
        k, "AvgPool", {x}, [&](std::vector<Tensor>& in) { return k->avgPool(in[0], g); }, false,
        poolAttrs(g));
    return record(out, "AvgPool", {x}, [k, g](const Tensor& grad) {
        return std::vector<Tensor>{run1(
            k, "AvgPoolGrad", {grad},
            [&](std::vector<Tensor>& in) { return k->avgPoolGrad(in[0], g); }, true)};
    });
}

Tensor dropout(const Tensor& x, float p, bool training, uint64_t seed) {
    requireF32("Dropout", x);
    if (!(p >= 0.f && p < 1.f))
        throw std::invalid_argument("Dropout: probability must be in [0, 1)");
    if (!training || p == 0.f) return x;
    const KernelTable* k = kernelsFor("Dropout", {&x});
    // The mask is drawn on the host from the seed's generator whatever the device, so a run
    // on a device drops the same units as on the CPU.
    Tensor hostMask = Tensor::empty(x.shape());
    const float keepScale = 1.f / (1.f - p);
    {
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<float> u(0.f, 1.f);
        for (int64_t i = 0, n = hostMask.numel(); i < n; ++i)
            hostMask.f32()[i] = u(rng) >= p ? keepScale : 0.f;
    }
    const Tensor mask = toDevice(hostMask, k->device);
    auto times = [k](std::vector<Tensor>& in) {
        return k->binary(kernels::Binary::Mul, in[0], in[1]);
    };
    Tensor out = run1(k, "Dropout", {x}, [&](std::vector<Tensor>& in) {
        return k->binary(kernels::Binary::Mul, in[0], mask);
    });
    return record(out, "Dropout", {x}, [k, mask, times](const Tensor& grad) {
        return std::vector<Tensor>{run1(k, "DropoutGrad", {grad, mask}, times, true)};
    });
}

}  // namespace ts::engine::ops
