#pragma once
// Checkpoints in MindSpore's protobuf layout: Checkpoint{repeated Value value = 1;}
// Value{string tag = 1; TensorProto tensor = 2;} TensorProto{repeated int64 dims = 1;
// string tensor_type = 2; bytes tensor_content = 3;}. Besides the parameters it stores the
// optimizer state ("moments.<p>", "moment1.<p>", "moment2.<p>"), "epoch_num"/"step_num" (Int32)
// and "global_step" (Int64) as MindSpore does, and our TrainState in field 15 (ignored by
// MindSpore readers). Loading warns about names or shapes that do not match; it never throws.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/common/result.h"
#include "core/engine/model/cell.h"
#include "core/engine/train/optimizer.h"

namespace ts::engine {

struct TrainState {
    int epoch = 0;     // epochs completed
    int64_t step = 0;  // global steps completed
    std::string optimizer;
    double lossScale = 1.0;
    int64_t optimizerUpdates = 0;
    int64_t goodSteps = 0;
    std::string configJson;
};

struct CheckpointFile {
    std::vector<std::pair<std::string, Tensor>> values;  // in file order
    bool hasTrainState = false;
    TrainState state;
};

Result<std::string> encodeCheckpoint(const CheckpointFile& ckpt);
Result<CheckpointFile> decodeCheckpoint(std::string_view bytes);
/// Writes atomically (temp file + rename).
Status writeCheckpoint(const std::string& path, const CheckpointFile& ckpt);
Result<CheckpointFile> readCheckpoint(const std::string& path);

/// Parameters of `net`, the optimizer's state and `state` as one checkpoint.
CheckpointFile makeCheckpoint(const Cell& net, const Optimizer* opt, const TrainState& state);

struct LoadReport {
    int loaded = 0;
    std::vector<std::string>
        warnings;  // "fc1.weight: shape [10, 20] in checkpoint, [10, 30] in network", ...
    bool hasTrainState = false;
    TrainState state;
};
/// Copies matching parameters (and optimizer state) into `net` / `opt`.
Result<LoadReport> loadCheckpoint(const std::string& path, Cell& net, Optimizer* opt);

}  // namespace ts::engine
