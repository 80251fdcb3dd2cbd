#pragma once
// Op statistics: the table PyTorch's profiler prints with key_averages() — per op name
// (or per category) calls, self time, total, avg, min, max and two shares: self % (of the
// listing's self time: the column sums to 100 %) and total % (of the range) — over the
// whole session, a time range, or one ProfilerStep#N, for one source or one run's profile.
// Self time = duration minus the durations of direct children on the same track (thread),
// children found by containment. A slice belongs to the range when it starts inside it
// (durations are not clipped). No Qt; the stats view and `trainscope-cli stats` share it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/common/job_control.h"
#include "core/common/result.h"

namespace ts::store {
class TraceStore;
}

namespace ts::timeline {

enum class StatsGroupBy { Name, Category };

struct OpStatsOptions {
    StatsGroupBy by = StatsGroupBy::Name;
    std::optional<int64_t> sourceId;  // only this source's tracks
    std::optional<int64_t> runId;     // only this run's profile source (runs.profile_source_id)
    std::optional<int64_t> step;      // only slices starting inside ProfilerStep#<step>
    std::optional<std::pair<int64_t, int64_t>> range;  // only slices starting in [a, b)
    std::vector<int64_t> trackIds;  // only these tracks (empty = all slice tracks)
    /// Splits rows by the slice's input shapes (args "Input Dims" or "input_shapes"),
    /// like key_averages(group_by_input_shape=True).
    bool groupByInputShape = false;
    /// Also list trace-span annotations (isTraceSpan: Kineto's "PyTorch Profiler (0)",
    /// which covers the whole recording and says nothing about any op); left out by default.
    bool includeTraceSpans = false;
};

/// A slice that marks the profiler's recording window rather than work: Kineto writes one,
/// category "Trace", named "PyTorch Profiler (N)".
bool isTraceSpan(std::string_view name, std::string_view category);

struct OpStatsRow {
    std::string name;         // op name (the category when grouped by category)
    std::string category;     // slice category ("" when none)
    std::string inputShapes;  // JSON text of the shapes, "" when not grouped or unknown
    int64_t calls = 0, selfNs = 0, totalNs = 0, minNs = 0, maxNs = 0;
    double avgNs = 0;
    double selfPercent = 0;   // 100 * selfNs / (sum of selfNs over all rows): sums to 100
    double totalPercent = 0;  // 100 * totalNs / (range end - range start)
    int64_t maxSliceId = 0;   // the longest call (to jump to it in the timeline)
};

struct OpStats {
    std::vector<OpStatsRow> rows;          // sorted by self time, descending
    int64_t rangeStart = 0, rangeEnd = 0;  // the range the rows cover
    int64_t slices = 0;                    // slices counted
    int64_t selfNs = 0;                    // self time of every row (self % is of this)
    int64_t traceSpans = 0;                // trace-span annotations left out (not counted)
};

/// Computes the table. Errors: unknown run/source, run without profile, no such step.
Result<OpStats> computeOpStats(store::TraceStore& store, const OpStatsOptions& options,
                               JobControl* job = nullptr);
/// Same, opening `path` read-only.
Result<OpStats> computeOpStats(const std::string& path, const OpStatsOptions& options,
                               JobControl* job = nullptr);

/// A ProfilerStep#N slice of the session.
struct ProfilerStep {
    int64_t number = 0, sourceId = 0, ts = 0, dur = 0, sliceId = 0;
};
/// Every ProfilerStep#N slice, by source then start.
Result<std::vector<ProfilerStep>> listProfilerSteps(store::TraceStore& store);

/// The table as CSV (header + one line per row; fields quoted when needed).
std::string opStatsCsv(const OpStats& stats);

/// The input shapes in a slice's args JSON object ("Input Dims", "input_shapes", ...) as
/// compact JSON text; "" when absent or not an object. What grouping by input shape keys on.
std::string inputShapesOf(std::string_view argsJson);

}  // namespace ts::timeline
