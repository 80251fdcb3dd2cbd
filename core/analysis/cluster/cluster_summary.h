#pragma once
// The cluster summary: every rank's figures (step time median and p95, compute,
// communication, overlap, idle), the rank x step matrix the heatmap draws, the stragglers
// with their evidence and the slowest rank. Definitions and the straggler rule in
// docs/DISTRIBUTED.md, "Cluster view". No Qt.
//
// The straggler rule works on each rank's *work* in a step: its step time minus its exposed
// communication (communication no compute hides). In synchronous data parallel training
// every rank's step takes as long as the slowest one's, because the others wait for it in
// the collective; that wait is exposed communication. So step times alike do not name the
// slow rank, but work does: the slow rank has the most work and the least wait.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/cluster/cluster_rank.h"

namespace ts::analysis {

/// A rank is a straggler in a step when its work exceeds the median work of that step over
/// the ranks by more than kStragglerExcess of the step's median step time and by more than
/// kStragglerMinNs: the excess is what the other ranks wait for it, so it is weighed against
/// the step it delays (a rank 1.5 ms slower in a 45 ms step is noise; 30 ms is not).
inline constexpr double kStragglerExcess = 0.10;
inline constexpr int64_t kStragglerMinNs = 1'000'000;

/// Figures of one rank; per-step means unless named otherwise. NaN where undefined
/// (overlapPct without communication).
struct RankFigures {
    int64_t steps = 0;
    double stepMsMedian = 0, stepMsP95 = 0, stepMsMean = 0;
    double computeMs = 0, commMs = 0, idleMs = 0, waitMs = 0;
    double overlapPct = 0;  // 100 * sum(overlap) / sum(comm)
    double workMsMedian = 0, workMsMean = 0;
    int64_t stragglerSteps = 0;
    double stragglerExcessMs = 0;  // sum over its straggler steps of work - median work
};

struct Straggler {
    int64_t rank = 0, step = 0;
    size_t rankIndex = 0, stepIndex = 0;  // row in ranks, column in stepNumbers
    double stepMs = 0, medianMs = 0;      // its step time; the median over ranks
    double workMs = 0, medianWorkMs = 0;  // the same for work (step - exposed comm)
    double waitMs = 0;                    // its exposed communication
    double othersWaitMs = 0;              // median exposed communication of the others
};

struct ClusterSummary {
    std::vector<RankProfile> ranks;    // by rank number
    std::vector<RankFigures> figures;  // parallel to ranks
    std::vector<int64_t> stepNumbers;  // the matrix's columns: every step number, sorted
    /// ranks x stepNumbers, row-major: index into ranks[r].steps, -1 where the rank lacks
    /// the step.
    std::vector<int32_t> cells;
    /// The rank the others waited for the longest: the largest sum of straggler excess;
    /// without stragglers, the highest mean work.
    std::optional<int64_t> slowestRank;
    size_t medianRankIndex = 0;         // row of the rank with the median median-work
    std::vector<Straggler> stragglers;  // by step, then rank
    std::vector<std::string> warnings;
    /// Ranks read from their stored summaries instead of their slices (rank_summary.h).
    size_t ranksFromSummaries = 0;

    size_t rankCount() const { return ranks.size(); }
    size_t stepCount() const { return stepNumbers.size(); }
    /// The step of row `r`, column `c`; nullptr where missing.
    const RankStep* cell(size_t r, size_t c) const;
    /// Row of rank number `rank`, -1 when absent.
    int rowOfRank(int64_t rank) const;
};

/// Orders the ranks, builds the matrix and finds the stragglers. Ranks with the same number
/// are merged (their steps together; a repeated step number keeps the first) with a warning.
ClusterSummary summarizeCluster(std::vector<RankProfile> ranks);

/// Nearest-rank percentile (p in [0, 100]) of `v`; 0 when empty. `v` is reordered.
double percentile(std::vector<double> v, double p);

}  // namespace ts::analysis
