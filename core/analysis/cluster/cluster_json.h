#pragma once
// The cluster summary as the JSON object `trainscope-cli cluster --json` prints:
// {"ranks": [{"rank", "steps", "step_ms_median", "step_ms_p95", "compute_ms", "comm_ms",
//   "overlap_pct", "idle_ms", ...}], "slowest_rank": r, "stragglers": [{"rank", "step",
//   "step_ms", "median_ms", ...}], ...}. Keys beyond the contract are additions
// (docs/DISTRIBUTED.md lists them all). No Qt.
#include <string>

#include "core/analysis/cluster/cluster_summary.h"

namespace ts::analysis {

std::string clusterSummaryJson(const ClusterSummary& summary);

}  // namespace ts::analysis
