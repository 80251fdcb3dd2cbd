#pragma once
// Define-by-run autograd: each differentiable op that saw an input requiring grad records a
// Node holding its inputs and a backward function; Tensor::backward() walks the graph of
// nodes in reverse topological order. Backward kernels run through the Dispatcher as
// backward ops. An op with several outputs (Split) records one node for all of them: its
// backward runs once, with the gradients of every output (undefined where none arrived).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/tensor/tensor.h"

namespace ts::engine {

struct Node {
    std::string opType;          // forward op type
    std::string scope;           // full scope name of the forward op ("" when unobserved)
    std::vector<Tensor> inputs;  // forward inputs (gradients flow to those that require it)
    /// Gradient w.r.t. each input given the output gradient (undefined = none).
    std::function<std::vector<Tensor>(const Tensor& gradOut)> backward;
    /// Multi-output ops: the number of outputs and the backward taking one gradient per
    /// output (undefined for outputs no gradient reached); `backward` is then unset.
    int outputs = 1;
    std::function<std::vector<Tensor>(const std::vector<Tensor>& gradOuts)> backwardMulti;
};

/// True when any input requires grad and recording is on.
bool needsGrad(const std::vector<Tensor>& inputs);
/// Attaches a node to `out` when needsGrad(inputs); returns `out`.
Tensor record(Tensor out, std::string opType, std::vector<Tensor> inputs,
              std::function<std::vector<Tensor>(const Tensor&)> backward);
/// The same for an op with several outputs: one node shared by all of `outs`.
std::vector<Tensor> recordMulti(
    std::vector<Tensor> outs, std::string opType, std::vector<Tensor> inputs,
    std::function<std::vector<Tensor>(const std::vector<Tensor>&)> backward);

}  // namespace ts::engine
