#pragma once
// Sample statistics: the bottom-up table of a CPU profiler's stack samples (Chrome `P` events
// and top-level `samples`, instants of scope 's' whose frame_id is the leaf of their stack).
// One row per function (a frame's name and category): self = samples whose stack ends in it,
// total = samples whose stack holds it (once per sample, however deep it recurses), each also
// as a share of all samples in scope; over the session, one source, or the samples inside a
// time range. No Qt; the stats view's Samples mode and `trainscope-cli stats --samples` share
// it.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/common/job_control.h"
#include "core/common/result.h"

namespace ts::store {
class TraceStore;
}

namespace ts::timeline {

struct SampleStatsOptions {
    std::optional<int64_t> sourceId;                   // only this source's samples
    std::optional<std::pair<int64_t, int64_t>> range;  // only samples in [a, b)
};

struct SampleStatsRow {
    std::string name;      // the function (frame name)
    std::string category;  // its module or category ("" when none)
    int64_t self = 0, total = 0;
    double selfPercent = 0, totalPercent = 0;  // of SampleStats::samples
};

struct SampleStats {
    std::vector<SampleStatsRow> rows;  // by self, then total, descending
    int64_t samples = 0;               // samples in scope
    int64_t withoutStack = 0;          // of those, samples whose stack is unknown
};

Result<SampleStats> computeSampleStats(store::TraceStore& store, const SampleStatsOptions& options,
                                       JobControl* job = nullptr);
/// Same, opening `path` read-only.
Result<SampleStats> computeSampleStats(const std::string& path, const SampleStatsOptions& options,
                                       JobControl* job = nullptr);

/// The table as CSV: name,category,self,self_percent,total,total_percent.
std::string sampleStatsCsv(const SampleStats& stats);

}  // namespace ts::timeline
