#pragma once
// analyzeCluster: the ranks' profiles read and measured on several threads (each with its
// own read-only connection per session), then summarised. The CLI, the Cluster view and
// the benchmark share it. No Qt.
#include <string>
#include <vector>

#include "core/analysis/cluster/cluster_rank.h"
#include "core/analysis/cluster/cluster_summary.h"
#include "core/common/job_control.h"
#include "core/common/result.h"

namespace ts::analysis {

/// Analyses `ranks` (missing rank numbers assigned by order) on `threads` threads (at least
/// 1). Progress: one unit per rank. The first error (a session that cannot be opened, a
/// rank without data) ends it; cancelled -> error "cancelled".
Result<ClusterSummary> analyzeCluster(std::vector<RankInput> ranks, int threads,
                                      JobControl* job = nullptr);

/// ranksOfPaths + analyzeCluster; warnings of both end up in the summary.
Result<ClusterSummary> analyzeClusterPaths(const std::vector<std::string>& paths, int threads,
                                           JobControl* job = nullptr);

}  // namespace ts::analysis
