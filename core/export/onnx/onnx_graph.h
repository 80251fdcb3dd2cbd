#pragma once
// Internal to the ONNX exporter: a traced forward pass (op_tracer.h) as an ONNX GraphProto.
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/engine/model/cell.h"
#include "core/export/onnx/onnx_export.h"
#include "core/export/onnx/op_tracer.h"

namespace onnx {
class GraphProto;
}

namespace ts::onnx_export {

/// Fills `graph` with the nodes of `trace`; tensors of `params` become initializers under
/// their names. Error: an op with no ONNX mapping (named with its scope), or BatchNorm traced
/// in training mode.
Status buildGraph(const Trace& trace, const std::vector<engine::NamedParam>& params,
                  const ExportOptions& options, onnx::GraphProto* graph);

}  // namespace ts::onnx_export
