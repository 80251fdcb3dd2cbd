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

/// Whether analyzeCluster uses the ranks' stored summaries (rank_summary.h).
enum class RankSummaries {
    Use,    // read current summaries; measure the others from their slices and store theirs
    Read,   // read current summaries; measure the others, store nothing
    Ignore  // measure every rank from its slices (what the summaries are checked against)
};

/// Analyses `ranks` (missing rank numbers assigned by order) on `threads` threads (at least
/// 1). Progress: one unit per rank. The first error (a session that cannot be opened, a
/// rank without data) ends it; cancelled -> error "cancelled". A rank with a current stored
/// summary is read from it, never from its slices; with RankSummaries::Use the ranks measured
/// from slices get one (written after the analysis, through a writable connection per
/// session; a session that cannot be written, e.g. on read-only media, is left as it is).
Result<ClusterSummary> analyzeCluster(std::vector<RankInput> ranks, int threads,
                                      JobControl* job = nullptr,
                                      RankSummaries summaries = RankSummaries::Use);

/// ranksOfPaths + analyzeCluster; warnings of both end up in the summary.
Result<ClusterSummary> analyzeClusterPaths(const std::vector<std::string>& paths, int threads,
                                           JobControl* job = nullptr,
                                           RankSummaries summaries = RankSummaries::Use);

}  // namespace ts::analysis
