#pragma once
// Define-by-run autograd: each differentiable op that saw an input requiring grad records a
// Node holding its inputs and a backward function; Tensor::backward() walks the graph in
// reverse topological order. Backward kernels run through the Dispatcher as backward ops.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/tensor.h"

namespace ts::engine {

struct Node {
    std::string opType;          // forward op type
    std::string scope;           // full scope name of the forward op ("" when unobserved)
    std::vector<Tensor> inputs;  // forward inputs (gradients flow to those that require it)
    /// Gradient w.r.t. each input given the output gradient (undefined = none).
    std::function<std::vector<Tensor>(const Tensor& gradOut)> backward;
};

/// True when any input requires grad and recording is on.
bool needsGrad(const std::vector<Tensor>& inputs);
/// Attaches a node to `out` when needsGrad(inputs); returns `out`.
Tensor record(Tensor out, std::string opType, std::vector<Tensor> inputs,
              std::function<std::vector<Tensor>(const Tensor&)> backward);

}  // namespace ts::engine
