#pragma once
// OpTracer: records one forward pass of a model op by op (type, scope name, attributes, the
// input and output tensors, kept alive so their identities stay unique) through a dispatcher
// of its own. What the ONNX exporter turns into a graph.
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/engine/model/cell.h"
#include "core/engine/tensor/op_observer.h"

namespace ts::onnx_export {

struct TracedOp {
    std::string type;   // the engine's op type: Conv2D, BatchNorm, ...
    std::string scope;  // its full scope name
    std::string attrs;  // JSON object members ("strides":[1,1],...), may be empty
    std::vector<engine::Tensor> inputs, outputs;
};

struct Trace {
    engine::Tensor input, output;
    std::vector<TracedOp> ops;
};

/// Runs `model` on `input` in evaluation mode (restored after) without gradients, at AMP
/// level O0, and records every op. Errors are the forward pass's exceptions.
Result<Trace> traceForward(engine::Cell& model, const engine::Tensor& input);

}  // namespace ts::onnx_export
