#pragma once
// TensorBoard summary values in the summary model (summary_event.h): simple_value and
// rank-0 tensors are scalars; HistogramProto (and TF2's [k, 3] histogram tensors) become
// MindSpore histograms (bucket left/width/count); images (and TF2's string-tensor images)
// MindSpore images; other numeric tensors MindSpore TensorProtos; the HParams plugin's
// session start/end and experiment records JSON. Audio, text and obsolete histograms are
// skipped with a reason. Internal to core/summary, as are the item helpers both decoders use.
#include <string_view>

#include "core/proto/tensorboard_summary.pb.h"
#include "core/summary/summary_event.h"

namespace ts::summary {

/// A value left out, with its reason.
SummaryItem skippedItem(std::string tag, std::string reason);

/// A value of `kind` keeping `m`'s bytes; skipped when `m` lacks a required field (proto2:
/// a histogram bucket without its count) or cannot be written.
SummaryItem messageItem(std::string tag, ValueKind kind, const google::protobuf::MessageLite& m);

/// One value; `plugin` is the tag's plugin as its first value's metadata named it ("" when
/// none was seen).
SummaryItem convertTensorBoardValue(const tensorboard::Summary::Value& v, std::string_view plugin);

}  // namespace ts::summary
