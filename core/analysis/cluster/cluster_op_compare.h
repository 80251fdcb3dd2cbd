#pragma once
// One rank's op statistics against the median rank's: per op (name and category) the
// calls and self time per step of both, the difference and the ratio, the ops where the
// rank spends the most extra time first. The table is the op statistics one
// (core/timeline/op_stats.h) over each rank's steps, divided by its step count so ranks
// with different step counts compare. No Qt.
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/cluster/cluster_summary.h"
#include "core/common/job_control.h"
#include "core/common/result.h"

namespace ts::analysis {

struct OpCompareRow {
    std::string name, category;
    double calls = 0, selfNs = 0;              // per step, this rank
    double medianCalls = 0, medianSelfNs = 0;  // per step, the median rank
    double deltaNs() const { return selfNs - medianSelfNs; }
    /// selfNs / medianSelfNs; +inf when the median rank has none of this op.
    double ratio() const;
};

struct OpComparison {
    int64_t rank = 0, medianRank = 0;
    int64_t steps = 0, medianSteps = 0;
    std::vector<OpCompareRow> rows;  // by deltaNs, largest first
};

/// Compares row `rankIndex` of `summary` with its median rank (summary.medianRankIndex).
/// Errors: bad index, a session that cannot be read, cancelled.
Result<OpComparison> compareRankOps(const ClusterSummary& summary, size_t rankIndex,
                                    JobControl* job = nullptr);

}  // namespace ts::analysis
