// Element-wise ops, activations, the softmax family and the losses on device tensors
// (ops_elementwise.cpp's ops, kernels from the DeviceBackend).
#include <stdexcept>

#include "core/engine/device/device.h"
#include "core/engine/ops/op_util.h"
#include "core/engine/ops/ops_device.h"
#include "core/engine/ops/ops_device_util.h"

namespace ts::engine::ops::dev {

using detail::detach;
using detail::requireF32;
using detail::requireSameShape;
using detail::run1;
using kernels::Binary;
using kernels::Unary;

bool any(std::initializer_list<const Tensor*> tensors) {
    for (const Tensor* t : tensors)
        if (t && onDevice(*t)) return true;
    return false;
}

namespace {

Tensor unaryOp(const Tensor& x, Unary op, float alpha = 0.f) {
    Tensor out = emptyOn(x.device(), x.shape());
    backendOf(x.device()).unary(op, x.f32(), out.f32(), x.numel(), alpha);
    return out;
}

Tensor binaryOp(const Tensor& a, const Tensor& b, Binary op) {
    Tensor out = emptyOn(a.device(), a.shape());
    backendOf(a.device()).binary(op, a.f32(), b.f32(), out.f32(), a.numel());
    return out;
}

/// A kernel over in[0..] put on device `d` (observers in load mode may hand host tensors).
template <class F>
auto on(Device d, F f) {
    return [d, f](std::vector<Tensor>& in) {
        toDeviceAll(in, d);
        return f(in);
    };
}

Tensor binary(std::string_view op, const Tensor& a, const Tensor& b, Binary kind) {
    requireF32(op, a);
    requireF32(op, b);
    requireSameShape(op, a, b);
    const Device d = commonDevice(op, {&a, &b});
    return run1(op, {a, b},
                on(d, [kind](std::vector<Tensor>& in) { return binaryOp(in[0], in[1], kind); }));
}

Tensor unaryGrad(std::string_view op, const Tensor& g, const Tensor& y, Binary kind) {
    return run1(
        op, {g, y},
        on(g.device(), [kind](std::vector<Tensor>& in) { return binaryOp(in[0], in[1], kind); }),
        true);
}

Tensor negate(const Tensor& g) {
    return run1("Neg", {g},
                on(g.device(), [](std::vector<Tensor>& in) { return unaryOp(in[0], Unary::Neg); }),
                true);
}

void require2d(std::string_view op, const Tensor& x) {
    requireF32(op, x);
    if (x.rank() != 2)
        throw std::invalid_argument(std::string(op) + ": expects a 2-D tensor, got " +
                                    shapeString(x.shape()));
}

}  // namespace

Tensor addN(const Tensor& a, const Tensor& b) {
    return binary("AddN", a, b, Binary::Add);
}

Tensor add(const Tensor& a, const Tensor& b) {
    Tensor out = binary("Add", a, b, Binary::Add);
    return record(out, "Add", {a, b}, [](const Tensor& g) { return std::vector<Tensor>{g, g}; });
}

Tensor sub(const Tensor& a, const Tensor& b) {
    Tensor out = binary("Sub", a, b, Binary::Sub);
    return record(out, "Sub", {a, b}, [](const Tensor& g) {
        return std::vector<Tensor>{g, negate(g)};
    });
}

Tensor mul(const Tensor& a, const Tensor& b) {
    Tensor out = binary("Mul", a, b, Binary::Mul);
    const Tensor da = detach(a), db = detach(b);
    return record(out, "Mul", {a, b}, [da, db](const Tensor& g) {
        return std::vector<Tensor>{unaryGrad("MulGrad", g, db, Binary::Mul),
                                   unaryGrad("MulGrad", g, da, Binary::Mul)};
    });
}

Tensor div(const Tensor& a, const Tensor& b) {
    Tensor out = binary("RealDiv", a, b, Binary::Div);
    const Tensor da = detach(a), db = detach(b);
    return record(out, "RealDiv", {a, b}, [da, db](const Tensor& g) {
        Tensor ga = unaryGrad("RealDivGrad", g, db, Binary::Div);
        Tensor gb =
            run1("RealDivGrad", {g, da, db},
                 on(g.device(),
                    [](std::vector<Tensor>& in) {
                        Tensor o = emptyOn(in[0].device(), in[0].shape());
                        backendOf(o.device())
                            .divGradB(in[0].f32(), in[1].f32(), in[2].f32(), o.f32(), o.numel());
                        return o;
                    }),
                 true);
        return std::vector<Tensor>{ga, gb};
    });
}

Tensor scale(const Tensor& x, float s) {
    requireF32("Mul", x);
    auto k = [s](std::vector<Tensor>& in) { return unaryOp(in[0], Unary::Scale, s); };
    Tensor out = run1("Mul", {x}, on(x.device(), k));
    return record(out, "Mul", {x}, [k](const Tensor& g) {
        return std::vector<Tensor>{run1("MulGrad", {g}, on(g.device(), k), true)};
    });
}

namespace {
/// An activation: forward `fwd`, gradient `grad` from the output.
Tensor activation(std::string_view op, std::string_view gradOp, const Tensor& x, Unary fwd,
                  Binary grad) {
    requireF32(op, x);
    Tensor out = run1(
        op, {x}, on(x.device(), [fwd](std::vector<Tensor>& in) { return unaryOp(in[0], fwd); }));
    const Tensor y = detach(out);
    const std::string gname(gradOp);
    return record(out, std::string(op), {x}, [y, gname, grad](const Tensor& g) {
        return std::vector<Tensor>{unaryGrad(gname, g, y, grad)};
    });
}
}  // namespace

Tensor relu(const Tensor& x) {
    return activation("ReLU", "ReluGrad", x, Unary::Relu, Binary::ReluGrad);
}
Tensor sigmoid(const Tensor& x) {
    return activation("Sigmoid", "SigmoidGrad", x, Unary::Sigmoid, Binary::SigmoidGrad);
}
Tensor tanh(const Tensor& x) {
    return activation("Tanh", "TanhGrad", x, Unary::Tanh, Binary::TanhGrad);
}

Tensor castFp16(const Tensor& x) {
    requireF32("Cast", x);
    auto round = [](std::vector<Tensor>& in) { return unaryOp(in[0], Unary::RoundFp16); };
    Tensor out = run1("Cast", {x}, on(x.device(), round));
    return record(out, "Cast", {x}, [round](const Tensor& g) {
        return std::vector<Tensor>{run1("CastGrad", {g}, on(g.device(), round), true)};
    });
}

namespace {
Tensor logSoftmaxOf(const Tensor& x) {
    Tensor o = emptyOn(x.device(), x.shape());
    backendOf(x.device()).logSoftmax(x.f32(), o.f32(), x.dim(0), x.dim(1));
    return o;
}
}  // namespace

Tensor softmax(const Tensor& x) {
    require2d("Softmax", x);
    Tensor out = run1("Softmax", {x}, on(x.device(), [](std::vector<Tensor>& in) {
                          Tensor lp = logSoftmaxOf(in[0]);
                          return unaryOp(lp, Unary::Exp);
                      }));
    const Tensor y = detach(out);
    return record(out, "Softmax", {x}, [y](const Tensor& g) {
        return std::vector<Tensor>{run1("SoftmaxGrad", {g, y},
                                        on(g.device(),
                                           [](std::vector<Tensor>& in) {
                                               Tensor o = emptyOn(in[0].device(), in[0].shape());
                                               backendOf(o.device())
                                                   .softmaxGrad(in[0].f32(), in[1].f32(), o.f32(),
                                                                o.dim(0), o.dim(1));
                                               return o;
                                           }),
                                        true)};
    });
}

Tensor logSoftmax(const Tensor& x) {
    require2d("LogSoftmax", x);
    Tensor out = run1("LogSoftmax", {x},
                      on(x.device(), [](std::vector<Tensor>& in) { return logSoftmaxOf(in[0]); }));
    const Tensor y = detach(out);
    return record(out, "LogSoftmax", {x}, [y](const Tensor& g) {
        return std::vector<Tensor>{run1("LogSoftmaxGrad", {g, y},
                                        on(g.device(),
                                           [](std::vector<Tensor>& in) {
                                               Tensor o = emptyOn(in[0].device(), in[0].shape());
                                               backendOf(o.device())
                                                   .logSoftmaxGrad(in[0].f32(), in[1].f32(),
                                                                   o.f32(), o.dim(0), o.dim(1));
                                               return o;
                                           }),
                                        true)};
    });
}

Tensor softmaxCrossEntropy(const Tensor& logits, const Tensor& labels) {
    const char* op = "SparseSoftmaxCrossEntropyWithLogits";
    require2d(op, logits);
    if (labels.dtype() != DType::Int32 || labels.rank() != 1 || labels.dim(0) != logits.dim(0))
        throw std::invalid_argument(std::string(op) + ": labels must be int32 [" +
                                    std::to_string(logits.dim(0)) + "], got " +
                                    shapeString(labels.shape()));
    const Device d = commonDevice(op, {&logits, &labels});
    const int64_t rows = logits.dim(0), cols = logits.dim(1);
    const Tensor hostLabels = toHost(labels);  // a batch of ints: the range check of the CPU op
    for (int64_t r = 0; r < rows; ++r)
        if (hostLabels.i32()[r] < 0 || hostLabels.i32()[r] >= cols)
            throw std::invalid_argument(std::string(op) + ": label " +
                                        std::to_string(hostLabels.i32()[r]) + " out of range [0, " +
                                        std::to_string(cols) + ")");
    Tensor logp = emptyOn(d, logits.shape());
    Tensor out = run1(op, {logits, labels}, on(d, [&](std::vector<Tensor>& in) {
                          DeviceBackend& be = backendOf(d);
                          be.logSoftmax(in[0].f32(), logp.f32(), rows, cols);
                          Tensor loss = emptyOn(d, {});
                          be.crossEntropy(logp.f32(), in[1].i32(), loss.f32(), rows, cols);
                          return loss;
                      }));
    const Tensor lab = detach(labels);
    return record(out, op, {logits, labels}, [logp, lab](const Tensor& g) {
        Tensor gl = run1("SparseSoftmaxCrossEntropyWithLogitsGrad", {g, logp, lab},
                         on(logp.device(),
                            [](std::vector<Tensor>& in) {
                                Tensor o = emptyOn(in[1].device(), in[1].shape());
                                backendOf(o.device())
                                    .crossEntropyGrad(in[0].f32(), in[1].f32(), in[2].i32(),
                                                      o.f32(), in[1].dim(0), in[1].dim(1));
                                return o;
                            }),
                         true);
        return std::vector<Tensor>{gl, Tensor()};
    });
}

Tensor mseLoss(const Tensor& pred, const Tensor& target) {
    requireF32("MSELoss", pred);
    requireF32("MSELoss", target);
    requireSameShape("MSELoss", pred, target);
    const Device d = commonDevice("MSELoss", {&pred, &target});
    Tensor out =
        run1("MSELoss", {pred, target}, on(d, [](std::vector<Tensor>& in) {
                 Tensor loss = emptyOn(in[0].device(), {});
                 backendOf(loss.device()).mse(in[0].f32(), in[1].f32(), loss.f32(), in[0].numel());
                 return loss;
             }));
    const Tensor p = detach(pred), t = detach(target);
    return record(out, "MSELoss", {pred, target}, [p, t](const Tensor& g) {
        Tensor gp =
            run1("MSELossGrad", {g, p, t},
                 on(p.device(),
                    [](std::vector<Tensor>& in) {
                        Tensor o = emptyOn(in[1].device(), in[1].shape());
                        backendOf(o.device())
                            .mseGrad(in[0].f32(), in[1].f32(), in[2].f32(), o.f32(), o.numel());
                        return o;
                    }),
                 true);
        return std::vector<Tensor>{gp, negate(gp)};
    });
}

}  // namespace ts::engine::ops::dev
