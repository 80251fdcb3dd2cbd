// Broadcasting Add (numpy rules) with its ReduceSum gradient, and global average pooling.
#include "core/engine/ops/op_util.h"
#include "core/engine/ops/ops.h"

namespace ts::engine {

using detail::kernelsFor;
using detail::requireF32;
using detail::run1;

Tensor detail::broadcastAdd(const Tensor& a, const Tensor& b) {
    requireF32("Add", a);
    requireF32("Add", b);
    const KernelTable* k =
        kernelsFor("Add", {&a, &b}, &KernelTable::broadcastAdd, &KernelTable::reduceSumTo);
    const Broadcast bc = broadcastOf(a, b);
    Tensor out = run1(k, "Add", {a, b},
                      [&](std::vector<Tensor>& in) { return k->broadcastAdd(in[0], in[1], bc); });
    const Shape sa = a.shape(), sb = b.shape();
    return record(out, "Add", {a, b}, [k, bc, sa, sb](const Tensor& g) {
        auto grad = [&](bool first, const Shape& s) {
            if (s == bc.out) return g;
            return run1(
                k, "ReduceSum", {g},
                [&](std::vector<Tensor>& in) { return k->reduceSumTo(in[0], bc, first, s); }, true);
        };
        return std::vector<Tensor>{grad(true, sa), grad(false, sb)};
    });
}

Tensor ops::globalAvgPool(const Tensor& x) {
    const KernelTable* k = kernelsFor("GlobalAvgPool", {&x}, &KernelTable::globalAvgPool,
                                      &KernelTable::globalAvgPoolGrad);
    requireF32("GlobalAvgPool", x);
    if (x.rank() != 4)
        throw std::invalid_argument("GlobalAvgPool: expects NCHW, got " + shapeString(x.shape()));
    Tensor out = run1(k, "GlobalAvgPool", {x},
                      [k](std::vector<Tensor>& in) { return k->globalAvgPool(in[0]); });
    const Shape inShape = x.shape();
    return record(out, "GlobalAvgPool", {x}, [k, inShape](const Tensor& g) {
        return std::vector<Tensor>{run1(
            k, "GlobalAvgPoolGrad", {g},
            [&](std::vector<Tensor>& in) { return k->globalAvgPoolGrad(in[0], inShape); }, true)};
    });
}

}  // namespace ts::engine
