// BatchNorm (training: batch statistics, running statistics updated; evaluation: running
// statistics) and its gradient, one op with three outputs (dx, dgamma, dbeta) so observers see
// the parameter gradients too. The node keeps the input as the kernel saw it (an observer may
// have replaced it) with the mean and 1/sqrt(var + eps) per channel; backward recomputes
// x - mean from them instead of keeping a normalized copy alive between forward and backward.
#include "core/engine/ops/op_util.h"
#include "core/engine/ops/ops.h"

namespace ts::engine::ops {

using detail::detach;
using detail::requireF32;

Tensor batchNorm2d(const Tensor& x, const Tensor& gamma, const Tensor& beta, Tensor& runningMean,
                   Tensor& runningVar, bool training, float momentum, float eps) {
    requireF32("BatchNorm", x);
    if (x.rank() != 4)
        throw std::invalid_argument("BatchNorm: expects NCHW, got " + shapeString(x.shape()));
    const kernels::BatchNormArgs a{x.dim(0), x.dim(1), x.dim(2) * x.dim(3),
                                   training, momentum, eps};
    for (const Tensor* t :
         std::initializer_list<const Tensor*>{&gamma, &beta, &runningMean, &runningVar})
        if (!t->defined() || t->rank() != 1 || t->dim(0) != a.C)
            throw std::invalid_argument("BatchNorm: parameters must have shape [" +
                                        std::to_string(a.C) + "]");
    const KernelTable* k =
        detail::kernelsFor("BatchNorm", {&x, &gamma, &beta, &runningMean, &runningVar});
    Tensor mean = emptyOn(k->device, {a.C}), invstd = emptyOn(k->device, {a.C});
    Tensor rm = runningMean, rv = runningVar;
    Tensor seen;  // the input as the kernel saw it (an observer may have replaced it)
    Tensor out = detail::run1(
        k, "BatchNorm", {x, gamma, beta, runningMean, runningVar},
        [&](std::vector<Tensor>& in) {
            seen = detach(in[0]);
            // Training updates the running statistics in place; evaluation reads them as the
            // op's inputs.
            return k->batchNorm(in[0], in[1], in[2], training ? rm : in[3], training ? rv : in[4],
                                mean, invstd, a);
        },
        false, detail::attrsIfObserved([&] {
            return "\"epsilon\":" + std::to_string(eps) +
                   ",\"momentum\":" + std::to_string(momentum) +
                   ",\"training\":" + (training ? "true" : "false");
        }));
    const Tensor dg = detach(gamma);
    return record(out, "BatchNorm", {x, gamma, beta}, [=](const Tensor& grad) {
        return detail::runN(
            k, "BatchNormGrad", {grad, seen, dg, mean, invstd},
            [&](std::vector<Tensor>& in) {
                return k->batchNormGrad(in[0], in[1], in[2], in[3], in[4], a);
            },
            true);
    });
}

}  // namespace ts::engine::ops
