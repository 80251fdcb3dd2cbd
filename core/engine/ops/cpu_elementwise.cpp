// The host's element-wise, softmax-family and loss kernels.
#include <algorithm>
#include <cmath>

#include "core/engine/ops/cpu_kernels.h"
#include "core/engine/tensor/parallel.h"

namespace ts::engine::cpu {

using kernels::Binary;
using kernels::Unary;

namespace {

/// Element-wise loops split over the intra-op pool above this many elements.
constexpr int64_t kGrain = 1 << 15;

template <class F>
Tensor map2(const Tensor& a, const Tensor& b, F f) {
    Tensor out = Tensor::empty(a.shape());
    const float* __restrict pa = a.f32();
    const float* __restrict pb = b.f32();
    float* __restrict po = out.f32();
    parallelFor(a.numel(), kGrain, [&](int64_t b0, int64_t b1) {
        for (int64_t i = b0; i < b1; ++i) po[i] = f(pa[i], pb[i]);
    });
    return out;
}

template <class F>
Tensor map1(const Tensor& a, F f) {
    Tensor out = Tensor::empty(a.shape());
    const float* __restrict pa = a.f32();
    float* __restrict po = out.f32();
    parallelFor(a.numel(), kGrain, [&](int64_t b0, int64_t b1) {
        for (int64_t i = b0; i < b1; ++i) po[i] = f(pa[i]);
    });
    return out;
}

// Row-wise log-softmax into out.
void logSoftmaxRows(const float* x, float* out, int64_t rows, int64_t cols) {
    for (int64_t r = 0; r < rows; ++r) {
        const float* xr = x + r * cols;
        float* o = out + r * cols;
        float m = xr[0];
        for (int64_t c = 1; c < cols; ++c) m = std::max(m, xr[c]);
        double s = 0;
        for (int64_t c = 0; c < cols; ++c) s += std::exp(static_cast<double>(xr[c] - m));
        const float lse = m + static_cast<float>(std::log(s));
        for (int64_t c = 0; c < cols; ++c) o[c] = xr[c] - lse;
    }
}

}  // namespace

Tensor unary(Unary op, const Tensor& x, float alpha) {
    switch (op) {
        case Unary::Neg:
            return map1(x, [](float v) { return -v; });
        case Unary::Relu:
            return map1(x, [](float v) { return std::max(v, 0.f); });
        case Unary::Sigmoid:
            return map1(x, [](float v) { return 1.f / (1.f + std::exp(-v)); });
        case Unary::Tanh:
            return map1(x, [](float v) { return std::tanh(v); });
        case Unary::Scale:
            return map1(x, [alpha](float v) { return v * alpha; });
        case Unary::RoundFp16:
            return map1(x, [](float v) { return halfToFloat(floatToHalf(v)); });
        case Unary::Exp:
            return map1(x, [](float v) { return std::exp(v); });
    }
    throw std::logic_error("unary: unknown op");
}

Tensor binary(Binary op, const Tensor& a, const Tensor& b) {
    switch (op) {
        case Binary::Add:
            return map2(a, b, [](float x, float y) { return x + y; });
        case Binary::Sub:
            return map2(a, b, [](float x, float y) { return x - y; });
        case Binary::Mul:
            return map2(a, b, [](float x, float y) { return x * y; });
        case Binary::Div:
            return map2(a, b, [](float x, float y) { return x / y; });
        case Binary::ReluGrad:
            return map2(a, b, [](float gv, float yv) { return yv > 0.f ? gv : 0.f; });
        case Binary::SigmoidGrad:
            return map2(a, b, [](float gv, float yv) { return gv * yv * (1.f - yv); });
        case Binary::TanhGrad:
            return map2(a, b, [](float gv, float yv) { return gv * (1.f - yv * yv); });
    }
    throw std::logic_error("binary: unknown op");
}

Tensor divGradB(const Tensor& g, const Tensor& a, const Tensor& b) {
    Tensor o = Tensor::empty(g.shape());
    const float *pg = g.f32(), *pa = a.f32(), *pb = b.f32();
    for (int64_t i = 0, n = o.numel(); i < n; ++i) o.f32()[i] = -pg[i] * pa[i] / (pb[i] * pb[i]);
    return o;
}

Tensor softmax(const Tensor& x) {
    Tensor o = Tensor::empty(x.shape());
    logSoftmaxRows(x.f32(), o.f32(), x.dim(0), x.dim(1));
    for (int64_t i = 0, n = o.numel(); i < n; ++i) o.f32()[i] = std::exp(o.f32()[i]);
    return o;
}

Tensor logSoftmax(const Tensor& x) {
    Tensor o = Tensor::empty(x.shape());
    logSoftmaxRows(x.f32(), o.f32(), x.dim(0), x.dim(1));
    return o;
}

Tensor softmaxGrad(const Tensor& g, const Tensor& y) {
    const int64_t rows = g.dim(0), cols = g.dim(1);
    Tensor o = Tensor::empty(g.shape());
    for (int64_t r = 0; r < rows; ++r) {
        const float* gr = g.f32() + r * cols;
        const float* yr = y.f32() + r * cols;
        float dot = 0;
        for (int64_t c = 0; c < cols; ++c) dot += gr[c] * yr[c];
        for (int64_t c = 0; c < cols; ++c) o.f32()[r * cols + c] = yr[c] * (gr[c] - dot);
    }
    return o;
}

Tensor logSoftmaxGrad(const Tensor& g, const Tensor& y) {
    const int64_t rows = g.dim(0), cols = g.dim(1);
    Tensor o = Tensor::empty(g.shape());
    for (int64_t r = 0; r < rows; ++r) {
        const float* gr = g.f32() + r * cols;
        const float* yr = y.f32() + r * cols;
        float s = 0;
        for (int64_t c = 0; c < cols; ++c) s += gr[c];
        for (int64_t c = 0; c < cols; ++c) o.f32()[r * cols + c] = gr[c] - std::exp(yr[c]) * s;
    }
    return o;
}

Tensor crossEntropy(const Tensor& logits, const Tensor& labels, const Tensor& logp) {
    const int64_t rows = logits.dim(0), cols = logits.dim(1);
    logSoftmaxRows(logits.f32(), logp.f32(), rows, cols);
    double loss = 0;
    for (int64_t r = 0; r < rows; ++r) loss -= logp.f32()[r * cols + labels.i32()[r]];
    return Tensor::scalar(static_cast<float>(loss / static_cast<double>(rows)));
}

Tensor crossEntropyGrad(const Tensor& g, const Tensor& logp, const Tensor& labels) {
    const int64_t rows = logp.dim(0), cols = logp.dim(1);
    const float scale = g.item() / static_cast<float>(rows);
    Tensor o = Tensor::empty(logp.shape());
    for (int64_t i = 0; i < rows * cols; ++i) o.f32()[i] = std::exp(logp.f32()[i]) * scale;
    for (int64_t r = 0; r < rows; ++r) o.f32()[r * cols + labels.i32()[r]] -= scale;
    return o;
}

Tensor mse(const Tensor& a, const Tensor& b) {
    double s = 0;
    for (int64_t i = 0, n = a.numel(); i < n; ++i) {
        const double d = a.f32()[i] - b.f32()[i];
        s += d * d;
    }
    return Tensor::scalar(
        static_cast<float>(s / static_cast<double>(std::max<int64_t>(1, a.numel()))));
}

Tensor mseGrad(const Tensor& g, const Tensor& a, const Tensor& b) {
    const float k = 2.f * g.item() / static_cast<float>(std::max<int64_t>(1, a.numel()));
    return map2(a, b, [k](float x, float y) { return k * (x - y); });
}

}  // namespace ts::engine::cpu
