#pragma once
// Scalar series of training runs, read from a session's `runs` and `scalars` tables for
// the loss-curve view and `trainscope-cli scalars`. Reading is incremental: a
// ScalarCursor remembers the last scalar row and overflow finding seen, so a live view
// asks only for rows written since its previous poll.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/result.h"
#include "core/store/status.h"

namespace ts::store {
class TraceStore;
}

namespace ts::curves {

/// One scalar sample: training step, Unix wall time in ns, value (may be NaN/Inf).
struct ScalarPoint {
    int64_t step = 0;
    int64_t wallTimeNs = 0;
    double value = 0;
};

/// Samples of one tag ("train/loss", "eval/accuracy", "lr", ...): a whole read has them
/// by step, an incremental read in write order.
struct ScalarSeries {
    std::string tag;
    std::vector<ScalarPoint> points;
};

/// A loss-scale step that overflowed and was skipped (overflow_findings, origin 'loss_scale').
struct OverflowMark {
    int64_t step = 0;
    int64_t tsNs = 0;  // 0 when the finding has no time
};

/// A run as listed for selection: its row in `runs` plus the tags it has scalars for.
struct RunEntry {
    int64_t id = 0;
    std::string name;
    store::RunStatus status = store::RunStatus::Running;
    std::string reason;
    int64_t startedAtNs = 0;
    int64_t endedAtNs = 0;
    std::vector<std::string> tags;  // in display order (see tagLess)
};

/// Where a reader of one run stopped: rows with larger ids are new.
struct ScalarCursor {
    int64_t scalarRowid = 0;
    int64_t overflowId = 0;
};

/// Scalars of one run: everything (cursor {}) or only what is newer than a cursor.
struct RunScalars {
    int64_t runId = 0;
    std::string name;
    store::RunStatus status = store::RunStatus::Running;
    int64_t startedAtNs = 0;
    std::vector<ScalarSeries> series;  // in display order (see tagLess)
    std::vector<OverflowMark> overflows;
    ScalarCursor cursor;  // pass back to read only newer rows
    const ScalarSeries* find(std::string_view tag) const;
};

/// Display order of tags: train/loss, eval/loss, eval/accuracy, other eval/*, lr,
/// loss_scale, samples_per_s, then the rest alphabetically.
bool tagLess(std::string_view a, std::string_view b);

/// Every run of the session (by id) with the tags it has scalars for.
Result<std::vector<RunEntry>> listRuns(store::TraceStore& store);

/// Scalars and loss-scale overflows of run `runId` newer than `after` (all of them for a
/// default cursor), optionally only tag `tag`. The run's status is read in the same
/// snapshot before the rows, so a status other than 'running' means nothing more is
/// coming. Error when the run does not exist or the store cannot be read.
Result<RunScalars> readRunScalars(store::TraceStore& store, int64_t runId, ScalarCursor after = {},
                                  std::string_view tag = {});

/// Appends `delta` (a later read of the same run) to `into`: points go to the series of
/// their tag, overflows are appended, status and cursor are taken from `delta`.
/// Returns the tags that `into` did not have before.
std::vector<std::string> mergeScalars(RunScalars& into, RunScalars&& delta);

}  // namespace ts::curves
