#pragma once
// Tensors from outside HDF5 (a MindSpore dump's .npy, a summary file's TensorProto) written
// into an HDF5 file in the studio's dump layout (/<op>/<seqid>/<io>/<slot>, core/debug/
// dump_writer.h), so the tensor inspector (views/dumps/dataset_panel.h: statistics,
// histogram, paged values, slices, heatmap) shows them exactly as it shows HDF5 datasets.
// The element type is kept where HDF5 dumps have it (float16/32/64, int8/16/32/64, uint8,
// bool); uint16/32/64 widen to int32/int64/float64, bfloat16 to float32. No Qt.
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/debug/dump_writer.h"

namespace ts::debug::msdump {

/// Copies the .npy at `npyPath` into `w` as <op>/<seqid>/<io>/<slot>; `attrs.scope` names
/// the op. The note (e.g. "bfloat16 shown as float32") is returned, "" when none.
Result<std::string> copyNpy(const std::string& npyPath, DumpWriter& w, const std::string& op,
                            int64_t seqid, const std::string& io, int slot,
                            const DumpTensorAttrs& attrs);

/// Writes doubles of shape `dims` (dtype as numpy names it) into `w`: float32/float16 data
/// as float32, integers and bool as int64, the rest as float64.
Status writeValues(DumpWriter& w, const std::string& op, int64_t seqid, const std::string& io,
                   int slot, const std::vector<int64_t>& dims, const std::string& dtype,
                   const std::vector<double>& values, const DumpTensorAttrs& attrs);

}  // namespace ts::debug::msdump
