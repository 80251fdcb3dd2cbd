#pragma once
// Inspecting MindSpore-style protobuf checkpoints (*.ckpt) without generated code:
//   message Checkpoint { repeated Value value = 1; }
//   message Value { string tag = 1; TensorProto tensor = 2; }
//   message TensorProto { repeated int64 dims = 1; string tensor_type = 2; bytes tensor_content =
//   3; }
// Lists every tensor's name, shape, dtype, element count and content size, and the
// parameter counts (total and trainable). Tensor contents are skipped, never loaded.
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/result.h"

namespace ts::checkpoint_info {

/// One tensor of a checkpoint.
struct ParamInfo {
    std::string name;
    std::vector<int64_t> dims;  // empty for a scalar
    std::string dtype;          // as written: Float32, Float16, Int32, Int64, UInt8, ...
    int64_t elements = 0;       // product of dims (1 for a scalar)
    int64_t contentBytes = 0;   // size of tensor_content
    bool trainable = false;     // see isTrainableName
};

struct CheckpointInfo {
    std::string path;
    uint64_t fileBytes = 0;
    std::vector<ParamInfo> params;  // in file order
    int64_t totalElements = 0;      // over every tensor
    int64_t trainableElements = 0;  // over trainable tensors
    /// Tensors that look wrong but do not stop the listing (content size that does not
    /// match shape x dtype, unknown dtype, negative dims).
    std::vector<std::string> warnings;
};

/// Whether a checkpoint entry is a trainable weight, by its name. Not trainable:
/// optimizer state (prefixes "moments.", "moment1.", "moment2.", "accum.", "adam_m.",
/// "adam_v.", "adam_", "beta1_power", "beta2_power"), training state ("global_step",
/// "learning_rate", "momentum", "epoch", "step", "cur_epoch_num", "cur_step_num",
/// "loss_scale", "scale_sense", "current_iterator_step", "last_overflow_iterator_step"),
/// and batch-norm statistics (suffixes ".moving_mean", ".moving_variance",
/// ".running_mean", ".running_var", ".num_batches_tracked"). Everything else is.
bool isTrainableName(std::string_view name);

/// Bytes per element of a dtype name (case-insensitive, MindSpore and numpy spellings);
/// 0 when unknown.
int dtypeSize(std::string_view dtype);

/// Reads the checkpoint message in the first `size` bytes of `in`. Top-level fields other
/// than `value` (e.g. the engine's train state, field 15) are skipped.
/// Errors (with a byte offset): not a checkpoint (no entries, bad wire data), truncated or
/// malformed data.
Result<CheckpointInfo> parseCheckpoint(std::istream& in, uint64_t size);

/// Opens and reads a checkpoint file; error when it cannot be opened or read.
Result<CheckpointInfo> readCheckpointInfo(const std::string& path);

}  // namespace ts::checkpoint_info
