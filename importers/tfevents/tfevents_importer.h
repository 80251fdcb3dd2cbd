#pragma once
// The TensorBoard event-file importer ("tfevents"): TFRecord-framed Event protos (masked
// CRC32C checked) read by the summary decoder MindSpore summary files share (core/summary,
// importers/summary): scalars (simple_value, or TF2 scalar tensors) into the run's scalars,
// histograms, images, tensors and HParams (PyTorch's add_histogram, add_image, add_hparams)
// into summary_values and run_params, tagged as in the file.
#include <string>
#include <string_view>
#include <vector>

#include "core/common/job_control.h"
#include "core/engine/train/tb_events.h"
#include "importers/registry.h"

namespace ts::importers {

/// Registry entry for TensorBoard event files.
Importer tfeventsImporter();

namespace tfevents {

/// 90 for a file named events.out.tfevents.*, 70 when its first record is a TensorBoard
/// Event; else 0.
int sniffTfevents(const std::string& path, std::string_view head);

struct ScalarPoint {
    std::string tag;
    int64_t step = 0;
    double wallTime = 0;  // seconds
    double value = 0;
};
struct ParsedEvents {
    std::vector<ScalarPoint> scalars;
    int64_t records = 0;
    int64_t badRecords = 0;  // CRC mismatch or undecodable event (skipped)
    int64_t nonScalar = 0;   // values that are not scalars (histograms, images, ...)
    bool truncated = false;  // the file ends inside a record
    std::string fileVersion;
};
/// Reads a whole event file (plain or gzip); error when it cannot be read at all.
Result<ParsedEvents> readEventFile(const std::string& path);

/// Imports the file as one source and run (`runName`, "" -> named by its folder).
ImportReport importEventFile(const std::string& path, store::TraceStore& store, JobControl& control,
                             const std::string& runName = {});

}  // namespace tfevents
}  // namespace ts::importers
