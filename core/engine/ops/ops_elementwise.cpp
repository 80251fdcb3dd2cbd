// Element-wise ops, activations, reshape, softmax family and losses.
#include <algorithm>
#include <cmath>

#include "core/engine/ops/op_util.h"
#include "core/engine/ops/ops.h"
#include "core/engine/ops/ops_device.h"
#include "core/engine/tensor/parallel.h"

namespace ts::engine::ops {

using detail::detach;
using detail::requireF32;
using detail::requireSameShape;
using detail::run1;

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

template <class F>
Tensor binary(std::string_view op, const Tensor& a, const Tensor& b, F f) {
    requireF32(op, a);
    requireF32(op, b);
    requireSameShape(op, a, b);
    return run1(op, {a, b}, [&](std::vector<Tensor>& in) { return map2(in[0], in[1], f); });
}

}  // namespace

Tensor addN(const Tensor& a, const Tensor& b) {
    if (dev::any({&a, &b})) return dev::addN(a, b);
    return binary("AddN", a, b, [](float x, float y) { return x + y; });
}

Tensor add(const Tensor& a, const Tensor& b) {
    if (dev::any({&a, &b})) return dev::add(a, b);
    if (a.defined() && b.defined() && a.shape() != b.shape()) return detail::broadcastAdd(a, b);
    Tensor out = binary("Add", a, b, [](float x, float y) { return x + y; });
    return record(out, "Add", {a, b}, [](const Tensor& g) { return std::vector<Tensor>{g, g}; });
}

Tensor sub(const Tensor& a, const Tensor& b) {
    if (dev::any({&a, &b})) return dev::sub(a, b);
    Tensor out = binary("Sub", a, b, [](float x, float y) { return x - y; });
    return record(out, "Sub", {a, b}, [](const Tensor& g) {
        return std::vector<Tensor>{
            g, run1(
                   "Neg", {g},
                   [](std::vector<Tensor>& in) { return map1(in[0], [](float x) { return -x; }); },
                   true)};
    });
}

Tensor mul(const Tensor& a, const Tensor& b) {
    if (dev::any({&a, &b})) return dev::mul(a, b);
    Tensor out = binary("Mul", a, b, [](float x, float y) { return x * y; });
    const Tensor da = detach(a), db = detach(b);
    return record(out, "Mul", {a, b}, [da, db](const Tensor& g) {
        auto k = [](std::vector<Tensor>& in) {
            return map2(in[0], in[1], [](float x, float y) { return x * y; });
        };
        return std::vector<Tensor>{run1("MulGrad", {g, db}, k, true),
                                   run1("MulGrad", {g, da}, k, true)};
    });
}

Tensor div(const Tensor& a, const Tensor& b) {
    if (dev::any({&a, &b})) return dev::div(a, b);
    Tensor out = binary("RealDiv", a, b, [](float x, float y) { return x / y; });
    const Tensor da = detach(a), db = detach(b);
    return record(out, "RealDiv", {a, b}, [da, db](const Tensor& g) {
        Tensor ga = run1(
            "RealDivGrad", {g, db},
            [](std::vector<Tensor>& in) {
                return map2(in[0], in[1], [](float x, float y) { return x / y; });
            },
            true);
        Tensor gb = run1(
            "RealDivGrad", {g, da, db},
            [](std::vector<Tensor>& in) {
                Tensor o = Tensor::empty(in[0].shape());
                const float *pg = in[0].f32(), *pa = in[1].f32(), *pb = in[2].f32();
                for (int64_t i = 0, n = o.numel(); i < n; ++i)
                    o.f32()[i] = -pg[i] * pa[i] / (pb[i] * pb[i]);
                return o;
            },
            true);
        return std::vector<Tensor>{ga, gb};
    });
}

Tensor scale(const Tensor& x, float s) {
    if (dev::any({&x})) return dev::scale(x, s);
    requireF32("Mul", x);
    Tensor out = run1("Mul", {x}, [s](std::vector<Tensor>& in) {
        return map1(in[0], [s](float v) { return v * s; });
    });
    return record(out, "Mul", {x}, [s](const Tensor& g) {
        return std::vector<Tensor>{run1(
            "MulGrad", {g},
            [s](std::vector<Tensor>& in) { return map1(in[0], [s](float v) { return v * s; }); },
            true)};
    });
}

Tensor relu(const Tensor& x) {
    if (dev::any({&x})) return dev::relu(x);
    requireF32("ReLU", x);
    Tensor out = run1("ReLU", {x}, [](std::vector<Tensor>& in) {
        return map1(in[0], [](float v) { return std::max(v, 0.f); });
    });
    const Tensor y = detach(out);
    return record(out, "ReLU", {x}, [y](const Tensor& g) {
        return std::vector<Tensor>{run1(
            "ReluGrad", {g, y},
            [](std::vector<Tensor>& in) {
                return map2(in[0], in[1], [](float gv, float yv) { return yv > 0.f ? gv : 0.f; });
            },
            true)};
    });
}

Tensor sigmoid(const Tensor& x) {
    if (dev::any({&x})) return dev::sigmoid(x);
    requireF32("Sigmoid", x);
    Tensor out = run1("Sigmoid", {x}, [](std::vector<Tensor>& in) {
        return map1(in[0], [](float v) { return 1.f / (1.f + std::exp(-v)); });
    });
    const Tensor y = detach(out);
    return record(out, "Sigmoid", {x}, [y](const Tensor& g) {
        return std::vector<Tensor>{run1(
            "SigmoidGrad", {g, y},
            [](std::vector<Tensor>& in) {
                return map2(in[0], in[1], [](float gv, float yv) { return gv * yv * (1.f - yv); });
            },
            true)};
    });
}

Tensor tanh(const Tensor& x) {
    if (dev::any({&x})) return dev::tanh(x);
    requireF32("Tanh", x);
    Tensor out = run1("Tanh", {x}, [](std::vector<Tensor>& in) {
        return map1(in[0], [](float v) { return std::tanh(v); });
    });
    const Tensor y = detach(out);
    return record(out, "Tanh", {x}, [y](const Tensor& g) {
        return std::vector<Tensor>{run1(
            "TanhGrad", {g, y},
            [](std::vector<Tensor>& in) {
                return map2(in[0], in[1], [](float gv, float yv) { return gv * (1.f - yv * yv); });
            },
            true)};
    });
}

Tensor reshape(const Tensor& x, const Shape& shape) {
    Shape s = shape;
    int64_t known = 1;
    int infer = -1;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == -1)
            infer = static_cast<int>(i);
        else
            known *= s[i];
    }
    if (infer >= 0 && known > 0) s[static_cast<size_t>(infer)] = x.numel() / known;
    if (numel(s) != x.numel())
        throw std::invalid_argument("Reshape: cannot reshape " + shapeString(x.shape()) + " to " +
                                    shapeString(shape));
    Tensor out = run1("Reshape", {x}, [&s](std::vector<Tensor>& in) { return in[0].view(s); });
    const Shape inShape = x.shape();
    return record(out, "Reshape", {x}, [inShape](const Tensor& g) {
        return std::vector<Tensor>{run1(
            "ReshapeGrad", {g}, [&inShape](std::vector<Tensor>& in) { return in[0].view(inShape); },
            true)};
    });
}

Tensor flatten(const Tensor& x) {
    if (x.rank() < 1) throw std::invalid_argument("Flatten: expects a tensor of rank >= 1");
    return reshape(x, {x.dim(0), x.numel() / std::max<int64_t>(1, x.dim(0))});
}

namespace {
void require2d(std::string_view op, const Tensor& x) {
    requireF32(op, x);
    if (x.rank() != 2)
        throw std::invalid_argument(std::string(op) + ": expects a 2-D tensor, got " +
                                    shapeString(x.shape()));
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

Tensor softmax(const Tensor& x) {
    if (dev::any({&x})) return dev::softmax(x);
    require2d("Softmax", x);
    Tensor out = run1("Softmax", {x}, [](std::vector<Tensor>& in) {
        Tensor o = Tensor::empty(in[0].shape());
        logSoftmaxRows(in[0].f32(), o.f32(), in[0].dim(0), in[0].dim(1));
        for (int64_t i = 0, n = o.numel(); i < n; ++i) o.f32()[i] = std::exp(o.f32()[i]);
        return o;
    });
    const Tensor y = detach(out);
    return record(out, "Softmax", {x}, [y](const Tensor& g) {
        return std::vector<Tensor>{run1(
            "SoftmaxGrad", {g, y},
            [](std::vector<Tensor>& in) {
                const int64_t rows = in[0].dim(0), cols = in[0].dim(1);
                Tensor o = Tensor::empty(in[0].shape());
                for (int64_t r = 0; r < rows; ++r) {
                    const float* gr = in[0].f32() + r * cols;
                    const float* yr = in[1].f32() + r * cols;
                    float dot = 0;
                    for (int64_t c = 0; c < cols; ++c) dot += gr[c] * yr[c];
                    for (int64_t c = 0; c < cols; ++c)
                        o.f32()[r * cols + c] = yr[c] * (gr[c] - dot);
                }
                return o;
            },
            true)};
    });
}

Tensor logSoftmax(const Tensor& x) {
    if (dev::any({&x})) return dev::logSoftmax(x);
    require2d("LogSoftmax", x);
    Tensor out = run1("LogSoftmax", {x}, [](std::vector<Tensor>& in) {
        Tensor o = Tensor::empty(in[0].shape());
        logSoftmaxRows(in[0].f32(), o.f32(), in[0].dim(0), in[0].dim(1));
        return o;
    });
    const Tensor y = detach(out);
    return record(out, "LogSoftmax", {x}, [y](const Tensor& g) {
        return std::vector<Tensor>{run1(
            "LogSoftmaxGrad", {g, y},
            [](std::vector<Tensor>& in) {
                const int64_t rows = in[0].dim(0), cols = in[0].dim(1);
                Tensor o = Tensor::empty(in[0].shape());
                for (int64_t r = 0; r < rows; ++r) {
                    const float* gr = in[0].f32() + r * cols;
                    const float* yr = in[1].f32() + r * cols;
                    float s = 0;
                    for (int64_t c = 0; c < cols; ++c) s += gr[c];
                    for (int64_t c = 0; c < cols; ++c)
                        o.f32()[r * cols + c] = gr[c] - std::exp(yr[c]) * s;
                }
                return o;
            },
            true)};
    });
}

Tensor softmaxCrossEntropy(const Tensor& logits, const Tensor& labels) {
    if (dev::any({&logits, &labels})) return dev::softmaxCrossEntropy(logits, labels);
    require2d("SparseSoftmaxCrossEntropyWithLogits", logits);
    if (labels.dtype() != DType::Int32 || labels.rank() != 1 || labels.dim(0) != logits.dim(0))
        throw std::invalid_argument("SparseSoftmaxCrossEntropyWithLogits: labels must be int32 [" +
                                    std::to_string(logits.dim(0)) + "], got " +
                                    shapeString(labels.shape()));
    const int64_t rows = logits.dim(0), cols = logits.dim(1);
    for (int64_t r = 0; r < rows; ++r)
        if (labels.i32()[r] < 0 || labels.i32()[r] >= cols)
            throw std::invalid_argument("SparseSoftmaxCrossEntropyWithLogits: label " +
                                        std::to_string(labels.i32()[r]) + " out of range [0, " +
                                        std::to_string(cols) + ")");
    Tensor logp = Tensor::empty(logits.shape());
    Tensor out =
        run1("SparseSoftmaxCrossEntropyWithLogits", {logits, labels}, [&](std::vector<Tensor>& in) {
            logSoftmaxRows(in[0].f32(), logp.f32(), rows, cols);
            double loss = 0;
            for (int64_t r = 0; r < rows; ++r) loss -= logp.f32()[r * cols + in[1].i32()[r]];
            return Tensor::scalar(static_cast<float>(loss / static_cast<double>(rows)));
        });
    const Tensor lab = detach(labels);
    return record(out, "SparseSoftmaxCrossEntropyWithLogits", {logits, labels},
                  [logp, lab](const Tensor& g) {
                      Tensor gl = run1(
                          "SparseSoftmaxCrossEntropyWithLogitsGrad", {g, logp, lab},
                          [](std::vector<Tensor>& in) {
                              const int64_t rows = in[1].dim(0), cols = in[1].dim(1);
                              const float scale = in[0].item() / static_cast<float>(rows);
                              Tensor o = Tensor::empty(in[1].shape());
                              for (int64_t i = 0; i < rows * cols; ++i)
                                  o.f32()[i] = std::exp(in[1].f32()[i]) * scale;
                              for (int64_t r = 0; r < rows; ++r)
                                  o.f32()[r * cols + in[2].i32()[r]] -= scale;
                              return o;
                          },
                          true);
                      return std::vector<Tensor>{gl, Tensor()};
                  });
}

Tensor mseLoss(const Tensor& pred, const Tensor& target) {
    if (dev::any({&pred, &target})) return dev::mseLoss(pred, target);
    requireF32("MSELoss", pred);
    requireF32("MSELoss", target);
    requireSameShape("MSELoss", pred, target);
    Tensor out = run1("MSELoss", {pred, target}, [](std::vector<Tensor>& in) {
        double s = 0;
        for (int64_t i = 0, n = in[0].numel(); i < n; ++i) {
            const double d = in[0].f32()[i] - in[1].f32()[i];
            s += d * d;
        }
        return Tensor::scalar(
            static_cast<float>(s / static_cast<double>(std::max<int64_t>(1, in[0].numel()))));
    });
    const Tensor p = detach(pred), t = detach(target);
    return record(out, "MSELoss", {pred, target}, [p, t](const Tensor& g) {
        Tensor gp = run1(
            "MSELossGrad", {g, p, t},
            [](std::vector<Tensor>& in) {
                const float k =
                    2.f * in[0].item() / static_cast<float>(std::max<int64_t>(1, in[1].numel()));
                return map2(in[1], in[2], [k](float a, float b) { return k * (a - b); });
            },
            true);
        Tensor gt = run1(
            "Neg", {gp},
            [](std::vector<Tensor>& in) { return map1(in[0], [](float v) { return -v; }); }, true);
        return std::vector<Tensor>{gp, gt};
    });
}

Tensor castFp16(const Tensor& x) {
    if (dev::any({&x})) return dev::castFp16(x);
    requireF32("Cast", x);
    auto round = [](std::vector<Tensor>& in) {
        return map1(in[0], [](float v) { return halfToFloat(floatToHalf(v)); });
    };
    Tensor out = run1("Cast", {x}, round);
    return record(out, "Cast", {x}, [round](const Tensor& g) {
        return std::vector<Tensor>{run1("CastGrad", {g}, round, true)};
    });
}

}  // namespace ts::engine::ops
