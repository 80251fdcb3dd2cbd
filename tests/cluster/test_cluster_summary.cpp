// summarizeCluster on hand-built rank profiles: the matrix, per-rank figures, the work rule
// naming the rank the others wait for (not the one with the longest steps), thresholds,
// missing steps, ranks merged, and the JSON contract.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cmath>

#include "core/analysis/cluster/cluster_json.h"
#include "core/analysis/cluster/cluster_matrix.h"
#include "core/analysis/cluster/cluster_summary.h"

using namespace ts::analysis;

namespace {

constexpr int64_t ms = 1'000'000;

RankStep step(int64_t n, int64_t dur, int64_t compute, int64_t comm, int64_t overlap) {
    RankStep s;
    s.number = n;
    s.ts = n * 1000 * ms;
    s.dur = dur;
    s.computeNs = compute;
    s.commNs = comm;
    s.overlapNs = overlap;
    s.idleNs = dur - (compute + comm - overlap);
    return s;
}

RankProfile rank(int64_t r, std::vector<RankStep> steps) {
    RankProfile p;
    p.input.rank = r;
    p.input.label = "rank" + std::to_string(r);
    p.steps = std::move(steps);
    return p;
}

/// Synchronous data parallel: every step takes 100 ms on every rank; rank `slow` computes
/// 40 ms more and the others wait for it in the all-reduce.
std::vector<RankProfile> syncJob(int ranks, int slow, int steps) {
    std::vector<RankProfile> out;
    for (int r = 0; r < ranks; ++r) {
        std::vector<RankStep> s;
        for (int n = 1; n <= steps; ++n) {
            const int64_t compute = r == slow ? 80 * ms : 40 * ms;
            const int64_t comm = r == slow ? 5 * ms : 45 * ms;
            s.push_back(step(n, 100 * ms, compute, comm, 2 * ms));
        }
        out.push_back(rank(r, std::move(s)));
    }
    return out;
}

}  // namespace

TEST(ClusterSummary, TheRankOthersWaitForIsTheStraggler) {
    auto ranks = syncJob(4, 2, 5);
    std::swap(ranks[0], ranks[3]);  // any order in
    const ClusterSummary s = summarizeCluster(std::move(ranks));
    ASSERT_EQ(s.rankCount(), 4u);
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(s.ranks[i].input.rank, static_cast<int64_t>(i));
    ASSERT_EQ(s.stepCount(), 5u);
    EXPECT_EQ(s.stepNumbers.front(), 1);
    ASSERT_TRUE(s.slowestRank);
    EXPECT_EQ(*s.slowestRank, 2);
    ASSERT_EQ(s.stragglers.size(), 5u);
    for (const Straggler& g : s.stragglers) {
        EXPECT_EQ(g.rank, 2);
        EXPECT_DOUBLE_EQ(g.stepMs, 100);
        EXPECT_DOUBLE_EQ(g.medianMs, 100);  // step times alike: they do not tell
        EXPECT_DOUBLE_EQ(g.workMs, 97);     // 100 - (5 - 2)
        EXPECT_DOUBLE_EQ(g.medianWorkMs, 57);
        EXPECT_DOUBLE_EQ(g.waitMs, 3);
        EXPECT_DOUBLE_EQ(g.othersWaitMs, 43);
    }
    EXPECT_EQ(s.figures[2].stragglerSteps, 5);
    EXPECT_EQ(s.figures[0].stragglerSteps, 0);
    const RankFigures& f = s.figures[1];
    EXPECT_EQ(f.steps, 5);
    EXPECT_DOUBLE_EQ(f.stepMsMedian, 100);
    EXPECT_DOUBLE_EQ(f.stepMsP95, 100);
    EXPECT_DOUBLE_EQ(f.computeMs, 40);
    EXPECT_DOUBLE_EQ(f.commMs, 45);
    EXPECT_NEAR(f.overlapPct, 100.0 * 2 / 45, 1e-9);
    EXPECT_DOUBLE_EQ(f.idleMs, 17);
    EXPECT_DOUBLE_EQ(f.waitMs, 43);
    EXPECT_DOUBLE_EQ(f.workMsMedian, 57);
    // The median rank (by median work) is one of the fast ones.
    EXPECT_NE(s.ranks[s.medianRankIndex].input.rank, 2);
}

TEST(ClusterSummary, LongerStepsWithoutCommunicationAreStragglersToo) {
    std::vector<RankProfile> ranks;
    for (int r = 0; r < 3; ++r)
        ranks.push_back(rank(
            r, {step(1, (r == 1 ? 30 : 20) * ms, 10 * ms, 0, 0), step(2, 20 * ms, 10 * ms, 0, 0)}));
    const ClusterSummary s = summarizeCluster(std::move(ranks));
    ASSERT_EQ(s.stragglers.size(), 1u);
    EXPECT_EQ(s.stragglers[0].rank, 1);
    EXPECT_EQ(s.stragglers[0].step, 1);
    EXPECT_DOUBLE_EQ(s.stragglers[0].stepMs, 30);
    EXPECT_DOUBLE_EQ(s.stragglers[0].medianMs, 20);
    EXPECT_TRUE(std::isnan(s.figures[0].overlapPct));
}

TEST(ClusterSummary, SmallDifferencesAreNotStragglers) {
    std::vector<RankProfile> ranks;
    // 0.3 ms more: under kStragglerMinNs. 0.5 ms more in a 50 ms step: under 10 % of it.
    ranks.push_back(rank(0, {step(1, 2 * ms, ms, 0, 0), step(2, 50 * ms, ms, 0, 0)}));
    ranks.push_back(rank(1, {step(1, 2 * ms + 600'000, ms, 0, 0), step(2, 51 * ms, ms, 0, 0)}));
    const ClusterSummary s = summarizeCluster(std::move(ranks));
    EXPECT_TRUE(s.stragglers.empty());
}

TEST(ClusterSummary, ExcessIsWeighedAgainstTheStep) {
    // A 4-rank step of 45 ms (measured on the 4-rank gloo job): rank 2 slept 30 ms, rank 3
    // worked 1.5 ms more than the median — 20 % more work, but 3 % of the step: noise.
    std::vector<RankProfile> ranks;
    const int64_t work[] = {3 * ms, 3 * ms, 35 * ms, 8 * ms + 900'000};
    for (int r = 0; r < 4; ++r) {
        const int64_t wait = 45 * ms - work[r];
        ranks.push_back(rank(r, {step(9, 45 * ms, 2 * ms, wait, 0)}));
    }
    const ClusterSummary s = summarizeCluster(std::move(ranks));
    ASSERT_EQ(s.stragglers.size(), 1u);
    EXPECT_EQ(s.stragglers[0].rank, 2);
}

TEST(ClusterSummary, AnIntermittentlySlowRankIsTheSlowest) {
    // Rank 5 of 8 is slow every 4th step only: its median work is everyone's, but the others
    // waited for it in 3 steps of 12.
    std::vector<RankProfile> ranks;
    for (int r = 0; r < 8; ++r) {
        std::vector<RankStep> steps;
        for (int n = 0; n < 12; ++n) {
            const bool slow = r == 5 && n % 4 == 0;
            const bool late = r != 5 && n % 4 == 0;  // waiting for rank 5
            steps.push_back(
                step(n, (n % 4 == 0 ? 14 : 10) * ms, (slow ? 12 : 8) * ms, (late ? 5 : 1) * ms, 0));
        }
        ranks.push_back(rank(r, std::move(steps)));
    }
    const ClusterSummary s = summarizeCluster(std::move(ranks));
    ASSERT_EQ(s.stragglers.size(), 3u);
    EXPECT_EQ(*s.slowestRank, 5);
    EXPECT_EQ(s.figures[5].stragglerSteps, 3);
    EXPECT_DOUBLE_EQ(s.figures[5].stragglerExcessMs, 3 * 4.0);
    EXPECT_DOUBLE_EQ(s.figures[5].workMsMedian, s.figures[0].workMsMedian);
}

TEST(ClusterSummary, MissingStepsAndMergedRanks) {
    std::vector<RankProfile> ranks;
    ranks.push_back(rank(0, {step(1, ms, 0, 0, 0), step(3, ms, 0, 0, 0)}));
    ranks.push_back(rank(1, {step(2, ms, 0, 0, 0)}));
    ranks.push_back(rank(1, {step(2, 5 * ms, 0, 0, 0), step(4, ms, 0, 0, 0)}));
    const ClusterSummary s = summarizeCluster(std::move(ranks));
    ASSERT_EQ(s.rankCount(), 2u);
    EXPECT_EQ(s.stepNumbers, (std::vector<int64_t>{1, 2, 3, 4}));
    EXPECT_TRUE(s.cell(0, 0));
    EXPECT_FALSE(s.cell(0, 1));
    EXPECT_FALSE(s.cell(1, 0));
    ASSERT_TRUE(s.cell(1, 1));
    EXPECT_EQ(s.cell(1, 1)->dur, ms);  // the first of a repeated step is kept
    EXPECT_TRUE(s.cell(1, 3));
    EXPECT_EQ(s.figures[1].steps, 2);
    EXPECT_FALSE(s.warnings.empty());
    EXPECT_EQ(s.rowOfRank(1), 1);
    EXPECT_EQ(s.rowOfRank(7), -1);
}

TEST(ClusterSummary, Percentile) {
    EXPECT_DOUBLE_EQ(percentile({}, 95), 0);
    EXPECT_DOUBLE_EQ(percentile({5}, 95), 5);
    std::vector<double> v;
    for (int i = 1; i <= 20; ++i) v.push_back(i);
    EXPECT_DOUBLE_EQ(percentile(v, 95), 19);
    EXPECT_DOUBLE_EQ(percentile(v, 100), 20);
    EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
}

TEST(ClusterSummary, JsonHoldsTheContract) {
    const ClusterSummary s = summarizeCluster(syncJob(2, 1, 3));
    rapidjson::Document d;
    d.Parse(clusterSummaryJson(s).c_str());
    ASSERT_FALSE(d.HasParseError());
    ASSERT_TRUE(d["ranks"].IsArray());
    ASSERT_EQ(d["ranks"].Size(), 2u);
    for (const auto& r : d["ranks"].GetArray())
        for (const char* k : {"rank", "steps", "step_ms_median", "step_ms_p95", "compute_ms",
                              "comm_ms", "overlap_pct", "idle_ms"})
            EXPECT_TRUE(r.HasMember(k)) << k;
    EXPECT_EQ(d["slowest_rank"].GetInt(), 1);
    ASSERT_EQ(d["stragglers"].Size(), 3u);
    for (const auto& g : d["stragglers"].GetArray()) {
        for (const char* k : {"rank", "step", "step_ms", "median_ms"})
            EXPECT_TRUE(g.HasMember(k)) << k;
        EXPECT_EQ(g["rank"].GetInt(), 1);
    }
    EXPECT_TRUE(d["warnings"].IsArray());
}

TEST(ClusterMatrix, ValuesFlagsAndAColourScaleThatKeepsStragglers) {
    // 50 ranks x 20 steps of 100 ms; step 1 is a warm-up (1,000 ms on every rank); rank 7 is
    // a straggler in step 12 (work 60 ms above the others').
    std::vector<RankProfile> ranks;
    for (int r = 0; r < 50; ++r) {
        std::vector<RankStep> steps;
        for (int n = 1; n <= 20; ++n) {
            const bool slow = r == 7 && n == 12;
            const int64_t dur = (n == 1 ? 1000 : 100) * ms;
            steps.push_back(step(n, dur, (slow ? 90 : 30) * ms, (slow ? 5 : 65) * ms, 0));
        }
        ranks.push_back(rank(r, std::move(steps)));
    }
    const ClusterSummary s = summarizeCluster(std::move(ranks));
    ASSERT_EQ(s.stragglers.size(), 1u);
    const ClusterMatrix m = buildClusterMatrix(s);
    ASSERT_EQ(m.rows, 50u);
    ASSERT_EQ(m.cols, 20u);
    EXPECT_FLOAT_EQ(m.at(CellMetric::StepTime, 7, 11), 100);
    EXPECT_FLOAT_EQ(m.at(CellMetric::Work, 7, 11), 95);
    EXPECT_FLOAT_EQ(m.at(CellMetric::Wait, 0, 11), 65);
    EXPECT_EQ(m.straggler[7 * 20 + 11], 1);
    EXPECT_EQ(m.straggler[7 * 20 + 10], 0);
    // Step time: the warm-up column is left out of the scale, so 100 ms is not flattened.
    const auto st = static_cast<size_t>(CellMetric::StepTime);
    EXPECT_FLOAT_EQ(m.low[st], 100);
    EXPECT_LT(m.high[st], 1000);
    // Work: the straggler's single cell is the top of the scale.
    const auto wk = static_cast<size_t>(CellMetric::Work);
    EXPECT_FLOAT_EQ(m.high[wk], 95);
    EXPECT_FLOAT_EQ(m.low[wk], 35);
}
