#pragma once
// ONNX export of engine models (torch.onnx.export's job for the engine): the model runs one
// forward pass in evaluation mode on a small batch through a dispatcher whose observer records
// every op with its inputs, outputs and attributes (OpTracer); each recorded op becomes ONNX
// nodes (Conv with group, BatchNormalization, Gemm, Concat, Split, Transpose, Reshape, Pad,
// GlobalAveragePool, ...), parameters become initializers named as in the checkpoint
// ("layer1.conv1.weight"), and the model is written with ONNX's own onnx.proto (opset 13 by
// default). The batch dimension is symbolic ("batch_size") unless fixed. No Qt, no libonnx.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/common/result.h"
#include "core/engine/model/cell.h"

namespace ts::onnx_export {

struct ExportOptions {
    int opset = 13;  // 13..17
    std::string inputName = "input";
    std::string outputName = "output";
    bool dynamicBatch = true;  // dim 0 of input and output named "batch_size"
    int64_t batch = 2;         // exportCheckpoint's trace batch (the fixed one when not dynamic)
    std::string graphName;     // "" = the model's type name
    /// Written as the model's metadata_props (Netron shows them): source checkpoint, ...
    std::vector<std::pair<std::string, std::string>> metadata;
};

struct ExportReport {
    std::string path;
    std::string model;  // the cell's type name (ResNet8, ShuffleNetV2, ...)
    int opset = 0;
    int64_t bytes = 0;  // size of the written file
    int64_t nodes = 0;  // ONNX nodes in the graph
    int64_t initializers = 0;
    int64_t parameters = 0;                        // float values in initializers
    std::vector<int64_t> inputShape, outputShape;  // as traced (dim 0: the trace batch)
    std::vector<std::string> opTypes;              // ONNX op types used, sorted
};

/// Traces `model` on a batch of `inputShape` (dim 0 = the trace batch; a batch of 2 is
/// enough) and returns the serialized ModelProto. The model is put in evaluation mode for the
/// trace and back after. Errors name the op that has no ONNX mapping.
Result<std::string> exportModel(engine::Cell& model, const engine::Shape& inputShape,
                                const ExportOptions& options, ExportReport* report = nullptr);

/// exportModel() written to `path` whole or not at all (core/common/file_io.h); refused when
/// `path` is one of `inputs`.
Result<ExportReport> exportModelToFile(engine::Cell& model, const engine::Shape& inputShape,
                                       const std::string& path, const ExportOptions& options = {},
                                       const std::vector<std::string>& inputs = {});

/// The model a checkpoint's train state names ("" when it names none); error when the file
/// cannot be read as a checkpoint.
Result<std::string> checkpointModel(const std::string& checkpointPath);

/// A trained checkpoint exported: the model `modelName` ("" = the one its train state names)
/// is built with the checkpoint's number of classes, every parameter must be in the file
/// with the same shape, and the input is [batch, 1, 28, 28] (784 features for the MLP).
Result<ExportReport> exportCheckpoint(const std::string& checkpointPath,
                                      const std::string& modelName, const std::string& outPath,
                                      const ExportOptions& options = {});

}  // namespace ts::onnx_export
