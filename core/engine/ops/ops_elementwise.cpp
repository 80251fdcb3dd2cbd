// Element-wise ops, activations, reshape, the softmax family and the losses: each op's
// checks, dispatcher calls and gradient rule, on the kernels of its inputs' device.
#include <algorithm>

#include "core/engine/ops/op_util.h"
#include "core/engine/ops/ops.h"

namespace ts::engine::ops {

using detail::detach;
using detail::kernelsFor;
using detail::requireF32;
using detail::requireSameShape;
using detail::run1;
using kernels::Binary;
using kernels::Unary;

namespace {

/// The checks of a two-operand element-wise op; the kernels of its operands' device.
const KernelTable* binaryKernels(std::string_view op, const Tensor& a, const Tensor& b) {
    requireF32(op, a);
    requireF32(op, b);
    requireSameShape(op, a, b);
    return kernelsFor(op, {&a, &b});
}

Tensor binary(const KernelTable* k, std::string_view op, const Tensor& a, const Tensor& b,
              Binary kind) {
    return run1(k, op, {a, b},
                [k, kind](std::vector<Tensor>& in) { return k->binary(kind, in[0], in[1]); });
}

Tensor negate(const KernelTable* k, const Tensor& g) {
    return run1(
        k, "Neg", {g}, [k](std::vector<Tensor>& in) { return k->unary(Unary::Neg, in[0], 0.f); },
        true);
}

/// An activation: y = fwd(x), its gradient grad(g, y) from the output.
Tensor activation(std::string_view op, std::string_view gradOp, const Tensor& x, Unary fwd,
                  Binary grad) {
    requireF32(op, x);
    const KernelTable* k = kernelsFor(op, {&x});
    Tensor out =
        run1(k, op, {x}, [k, fwd](std::vector<Tensor>& in) { return k->unary(fwd, in[0], 0.f); });
    const Tensor y = detach(out);
    const std::string gname(gradOp);
    return record(out, std::string(op), {x}, [k, y, gname, grad](const Tensor& g) {
        return std::vector<Tensor>{run1(
            k, gname, {g, y},
            [k, grad](std::vector<Tensor>& in) { return k->binary(grad, in[0], in[1]); }, true)};
    });
}

void require2d(std::string_view op, const Tensor& x) {
    requireF32(op, x);
    if (x.rank() != 2)
        throw std::invalid_argument(std::string(op) + ": expects a 2-D tensor, got " +
                                    shapeString(x.shape()));
}

}  // namespace

Tensor addN(const Tensor& a, const Tensor& b) {
    return binary(binaryKernels("AddN", a, b), "AddN", a, b, Binary::Add);
}

Tensor add(const Tensor& a, const Tensor& b) {
    if (a.defined() && b.defined() && a.shape() != b.shape()) return detail::broadcastAdd(a, b);
    Tensor out = binary(binaryKernels("Add", a, b), "Add", a, b, Binary::Add);
    return record(out, "Add", {a, b}, [](const Tensor& g) { return std::vector<Tensor>{g, g}; });
}

Tensor sub(const Tensor& a, const Tensor& b) {
    const KernelTable* k = binaryKernels("Sub", a, b);
    Tensor out = binary(k, "Sub", a, b, Binary::Sub);
    return record(out, "Sub", {a, b}, [k](const Tensor& g) {
        return std::vector<Tensor>{g, negate(k, g)};
    });
}

Tensor mul(const Tensor& a, const Tensor& b) {
    const KernelTable* k = binaryKernels("Mul", a, b);
    Tensor out = binary(k, "Mul", a, b, Binary::Mul);
    const Tensor da = detach(a), db = detach(b);
    return record(out, "Mul", {a, b}, [k, da, db](const Tensor& g) {
        auto times = [k](std::vector<Tensor>& in) { return k->binary(Binary::Mul, in[0], in[1]); };
        return std::vector<Tensor>{run1(k, "MulGrad", {g, db}, times, true),
                                   run1(k, "MulGrad", {g, da}, times, true)};
    });
}

Tensor div(const Tensor& a, const Tensor& b) {
    const KernelTable* k = binaryKernels("RealDiv", a, b);
    Tensor out = binary(k, "RealDiv", a, b, Binary::Div);
    const Tensor da = detach(a), db = detach(b);
    return record(out, "RealDiv", {a, b}, [k, da, db](const Tensor& g) {
        Tensor ga = run1(
            k, "RealDivGrad", {g, db},
            [k](std::vector<Tensor>& in) { return k->binary(Binary::Div, in[0], in[1]); }, true);
        Tensor gb = run1(
            k, "RealDivGrad", {g, da, db},
            [k](std::vector<Tensor>& in) { return k->divGradB(in[0], in[1], in[2]); }, true);
        return std::vector<Tensor>{ga, gb};
    });
}

Tensor scale(const Tensor& x, float s) {
    requireF32("Mul", x);
    const KernelTable* k = kernelsFor("Mul", {&x});
    auto times = [k, s](std::vector<Tensor>& in) { return k->unary(Unary::Scale, in[0], s); };
    Tensor out = run1(k, "Mul", {x}, times);
    return record(out, "Mul", {x}, [k, times](const Tensor& g) {
        return std::vector<Tensor>{run1(k, "MulGrad", {g}, times, true)};
    });
}

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
    const KernelTable* k = kernelsFor("Cast", {&x});
    auto round = [k](std::vector<Tensor>& in) { return k->unary(Unary::RoundFp16, in[0], 0.f); };
    Tensor out = run1(k, "Cast", {x}, round);
    return record(out, "Cast", {x}, [k, round](const Tensor& g) {
        return std::vector<Tensor>{run1(k, "CastGrad", {g}, round, true)};
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
    // A view, on any device: no kernel.
    const KernelTable* k = kernelsFor("Reshape", {&x});
    Tensor out = run1(k, "Reshape", {x}, [&s](std::vector<Tensor>& in) { return in[0].view(s); });
    const Shape inShape = x.shape();
    return record(out, "Reshape", {x}, [k, inShape](const Tensor& g) {
        return std::vector<Tensor>{run1(
            k, "ReshapeGrad", {g},
            [&inShape](std::vector<Tensor>& in) { return in[0].view(inShape); }, true)};
    });
}

Tensor flatten(const Tensor& x) {
    if (x.rank() < 1) throw std::invalid_argument("Flatten: expects a tensor of rank >= 1");
    return reshape(x, {x.dim(0), x.numel() / std::max<int64_t>(1, x.dim(0))});
}

Tensor softmax(const Tensor& x) {
    require2d("Softmax", x);
    const KernelTable* k = kernelsFor("Softmax", {&x});
    Tensor out =
        run1(k, "Softmax", {x}, [k](std::vector<Tensor>& in) { return k->softmax(in[0]); });
    const Tensor y = detach(out);
    return record(out, "Softmax", {x}, [k, y](const Tensor& g) {
        return std::vector<Tensor>{run1(
            k, "SoftmaxGrad", {g, y},
            [k](std::vector<Tensor>& in) { return k->softmaxGrad(in[0], in[1]); }, true)};
    });
}

Tensor logSoftmax(const Tensor& x) {
    require2d("LogSoftmax", x);
    const KernelTable* k = kernelsFor("LogSoftmax", {&x});
    Tensor out =
        run1(k, "LogSoftmax", {x}, [k](std::vector<Tensor>& in) { return k->logSoftmax(in[0]); });
    const Tensor y = detach(out);
    return record(out, "LogSoftmax", {x}, [k, y](const Tensor& g) {
        return std::vector<Tensor>{run1(
            k, "LogSoftmaxGrad", {g, y},
            [k](std::vector<Tensor>& in) { return k->logSoftmaxGrad(in[0], in[1]); }, true)};
    });
}

Tensor softmaxCrossEntropy(const Tensor& logits, const Tensor& labels) {
    const char* op = "SparseSoftmaxCrossEntropyWithLogits";
    require2d(op, logits);
    if (labels.dtype() != DType::Int32 || labels.rank() != 1 || labels.dim(0) != logits.dim(0))
        throw std::invalid_argument(std::string(op) + ": labels must be int32 [" +
                                    std::to_string(logits.dim(0)) + "], got " +
                                    shapeString(labels.shape()));
    const KernelTable* k = kernelsFor(op, {&logits, &labels});
    const int64_t rows = logits.dim(0), cols = logits.dim(1);
    // Host labels are checked here. A device's kernel checks its own: a label out of range
    // fails the op at the backend's next synchronisation (the loss read back) with the same
    // message, as a CUDA device assertion does, instead of a wait for the device every step.
    if (!onDevice(labels))
        for (int64_t r = 0; r < rows; ++r)
            if (labels.i32()[r] < 0 || labels.i32()[r] >= cols)
                throw std::invalid_argument(std::string(op) + ": label " +
                                            std::to_string(labels.i32()[r]) + " out of range [0, " +
                                            std::to_string(cols) + ")");
    Tensor logp = emptyOn(k->device, logits.shape());
    Tensor out = run1(k, op, {logits, labels},
                      [&](std::vector<Tensor>& in) { return k->crossEntropy(in[0], in[1], logp); });
    const Tensor lab = detach(labels);
    return record(out, op, {logits, labels}, [k, logp, lab](const Tensor& g) {
        Tensor gl = run1(
            k, "SparseSoftmaxCrossEntropyWithLogitsGrad", {g, logp, lab},
            [k](std::vector<Tensor>& in) { return k->crossEntropyGrad(in[0], in[1], in[2]); },
            true);
        return std::vector<Tensor>{gl, Tensor()};
    });
}

Tensor mseLoss(const Tensor& pred, const Tensor& target) {
    requireF32("MSELoss", pred);
    requireF32("MSELoss", target);
    requireSameShape("MSELoss", pred, target);
    const KernelTable* k = kernelsFor("MSELoss", {&pred, &target});
    Tensor out = run1(k, "MSELoss", {pred, target},
                      [k](std::vector<Tensor>& in) { return k->mse(in[0], in[1]); });
    const Tensor p = detach(pred), t = detach(target);
    return record(out, "MSELoss", {pred, target}, [k, p, t](const Tensor& g) {
        Tensor gp = run1(
            k, "MSELossGrad", {g, p, t},
            [k](std::vector<Tensor>& in) { return k->mseGrad(in[0], in[1], in[2]); }, true);
        return std::vector<Tensor>{gp, negate(k, gp)};
    });
}

}  // namespace ts::engine::ops
