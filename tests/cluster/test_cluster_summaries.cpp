// Per-rank summaries stored in the sessions (rank_summary.h): the cluster read from them is
// the cluster read from the slices, field for field, on generated ranks and on the corpus's
// real traces; a cluster from summaries reads no slice (the chunks blanked in a copy do not
// change it); a re-imported source makes its summary stale and it is measured again.
#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/cluster/cluster_analysis.h"
#include "core/analysis/cluster/cluster_import.h"
#include "core/analysis/cluster/cluster_input.h"
#include "core/analysis/cluster/cluster_json.h"
#include "core/analysis/cluster/rank_summary.h"
#include "core/store/trace_store.h"
#include "tests/cluster/cluster_traces.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using namespace ts::analysis;
using ts::test::TraceSpec;

namespace {

ts::Status importOne(const std::string& file, ts::store::TraceStore& s, ts::JobControl& jc) {
    const auto r = ts::importers::importFile(file, s, jc);
    if (r.status != ts::store::SourceStatus::Complete) return ts::Error{file + ": " + r.error};
    return {};
}

/// A rank of a synchronous job: 4 steps; host ops and gloo on the host, or kernels and an
/// NCCL kernel on a GPU; `slow` adds 3 ms of work to step 2.
TraceSpec rankTrace(int rank, bool gpu, double slow) {
    TraceSpec t;
    t.rank = rank;
    t.worldSize = 3;
    if (gpu) {
        t.processNames = {{"0", "GPU 0"}, {"100", "python"}};
        t.processLabels = {{"0", "GPU 0"}};
    }
    for (int s = 1; s <= 4; ++s) {
        const double t0 = s * 10'000.0, extra = s == 2 ? slow : 0;
        const std::string host = gpu ? "100" : "1";
        t.events.push_back(
            {host, "1", t0, 9'000, "ProfilerStep#" + std::to_string(s), "user_annotation"});
        t.events.push_back({host, "1", t0 + 100, 4'000 + extra, "aten::mm", "cpu_op"});
        if (gpu) {
            t.events.push_back({"0", "7", t0 + 200, 3'500 + extra, "volta_sgemm", "kernel"});
            t.events.push_back(
                {"0", "8", t0 + 6'000, 2'000, "ncclKernel_AllReduce_RING_LL_Sum_float", "kernel"});
        } else {
            t.events.push_back({"1", "2", t0 + 4'200 + extra, 4'500 - extra, "gloo:all_reduce",
                                "user_annotation"});
        }
    }
    return t;
}

/// Every field of every rank and the summary's JSON.
void expectSameCluster(const ClusterSummary& a, const ClusterSummary& b) {
    EXPECT_EQ(clusterSummaryJson(a), clusterSummaryJson(b));
    ASSERT_EQ(a.rankCount(), b.rankCount());
    for (size_t i = 0; i < a.rankCount(); ++i) {
        const RankProfile &x = a.ranks[i], &y = b.ranks[i];
        EXPECT_EQ(encodeRankProfile(x), encodeRankProfile(y)) << "rank row " << i;
        EXPECT_EQ(x.input.rank, y.input.rank);
        EXPECT_EQ(x.input.sourceIds, y.input.sourceIds);
        EXPECT_EQ(x.input.label, y.input.label);
        EXPECT_EQ(x.slices, y.slices);
        EXPECT_EQ(x.warnings, y.warnings);
        ASSERT_EQ(x.deviceFigures.has_value(), y.deviceFigures.has_value());
        if (x.deviceFigures) {
            EXPECT_EQ(x.deviceFigures->collectives.size(), y.deviceFigures->collectives.size());
            EXPECT_EQ(x.deviceFigures->collectiveWaitNs, y.deviceFigures->collectiveWaitNs);
            EXPECT_EQ(x.deviceFigures->collectivesMatched, y.deviceFigures->collectivesMatched);
        }
    }
    EXPECT_EQ(a.stragglers.size(), b.stragglers.size());
    EXPECT_EQ(a.slowestRank, b.slowestRank);
    EXPECT_EQ(a.warnings, b.warnings);
}

/// Imports `groups` with importRankTraces (which stores the summaries), then checks the
/// cluster from the summaries against the cluster from the slices.
std::vector<std::string> checkImportedCluster(const std::vector<std::vector<std::string>>& groups,
                                              const fs::path& dir) {
    auto sessions = importRankTraces(groups, (dir / "sessions").string(), 2, &importOne);
    EXPECT_TRUE(sessions) << sessions.error();
    if (!sessions) return {};
    auto slices = analyzeClusterPaths(sessions.value(), 2, nullptr, RankSummaries::Ignore);
    auto summaries = analyzeClusterPaths(sessions.value(), 2, nullptr, RankSummaries::Read);
    EXPECT_TRUE(slices) << slices.error();
    EXPECT_TRUE(summaries) << summaries.error();
    if (!slices || !summaries) return {};
    EXPECT_EQ(slices.value().ranksFromSummaries, 0u);
    EXPECT_EQ(summaries.value().ranksFromSummaries, summaries.value().rankCount());
    expectSameCluster(slices.value(), summaries.value());
    return sessions.value();
}

int64_t storedSummaries(const std::string& session) {
    auto s = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::ReadOnly);
    EXPECT_TRUE(s) << s.error();
    if (!s) return -1;
    auto n = s.value()->db().queryInt("SELECT count(*) FROM rank_summaries");
    return n ? n.value() : -1;
}

}  // namespace

TEST(RankSummary, EncodingRoundTripsEveryFieldAndRefusesDamage) {
    RankProfile p;
    p.device = true;
    p.stepMarker = "ProfilerStep#N";
    p.slices = 123456;
    p.warnings = {"one", "two"};
    for (int i = 0; i < 3; ++i) {
        RankStep s;
        s.number = 100 + i, s.ts = 1'700'000'000'000'000'000 + i * 5'000'000, s.dur = 4'000'000;
        s.sliceId = 77 + i, s.sourceId = 2, s.computeNs = 3'000'000, s.commNs = 900'000;
        s.overlapNs = 100'000, s.idleNs = 200'000;
        p.steps.push_back(s);
    }
    RankDeviceFigures f;
    f.hta.idleNs = 5, f.hta.computeNs = 6, f.hta.nonComputeNs = 7, f.hta.kernelTimeNs = 8;
    f.hta.idlePct = 12.34, f.hta.computePct = 1.0 / 3.0, f.hta.nonComputePct = -0.0;
    f.htaOverlapPct = 55.5;
    f.htaFiltered = true, f.htaRowsKept = 9, f.htaRowsDropped = 10;
    f.studio = {1, 2, 3, 4, 5, 6, 7};
    f.studioSteps = 3, f.studioStepsNs = 12'000'000;
    f.collectives = {{"allreduce@0", 10, 20}, {"allgather@1", 15, 40}, {"allreduce@0", -5, 3}};
    p.deviceFigures = f;
    const std::string data = encodeRankProfile(p);
    RankInput in;
    in.rank = 4;
    in.sourceIds = {2};
    auto back = decodeRankProfile(data, in);
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(encodeRankProfile(back.value()), data);
    EXPECT_EQ(back.value().input.rank, 4);
    EXPECT_EQ(back.value().steps[2].ts, p.steps[2].ts);
    EXPECT_EQ(back.value().deviceFigures->hta.computePct, 1.0 / 3.0);
    EXPECT_TRUE(std::signbit(back.value().deviceFigures->hta.nonComputePct));
    EXPECT_EQ(back.value().deviceFigures->collectives[2].key, "allreduce@0");
    EXPECT_EQ(back.value().deviceFigures->collectives[2].start, -5);
    for (size_t cut : {size_t{0}, size_t{1}, data.size() / 2, data.size() - 1})
        EXPECT_FALSE(decodeRankProfile(data.substr(0, cut), in)) << cut;
    EXPECT_FALSE(decodeRankProfile(data + "x", in));
}

TEST(RankSummary, ClusterFromSummariesIsTheClusterFromSlices) {
    const fs::path dir = ts::test::tempDir("rank_summaries");
    std::vector<std::vector<std::string>> groups;
    for (int r = 0; r < 3; ++r) {
        const fs::path p = dir / ("rank" + std::to_string(r) + ".pt.trace.json");
        writeTrace(p, rankTrace(r, r == 2, r == 1 ? 3'000 : 0));
        groups.push_back({p.string()});
    }
    const auto sessions = checkImportedCluster(groups, dir);
    ASSERT_EQ(sessions.size(), 3u);
    for (const auto& s : sessions) EXPECT_EQ(storedSummaries(s), 1);
    // The GPU rank has its device figures from its summary (collective kernels with their
    // Kineto arguments: tests/gpu_analysis/test_cluster_gpu.cpp).
    auto c = analyzeClusterPaths(sessions, 1, nullptr, RankSummaries::Read);
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c.value().ranksFromSummaries, 3u);
    EXPECT_TRUE(c.value().ranks[2].device);
    EXPECT_TRUE(c.value().ranks[2].deviceFigures);
    EXPECT_FALSE(c.value().ranks[1].device);
}

TEST(RankSummary, ClusterFromSummariesOnCorpusTraces) {
    TS_REQUIRE_CORPUS();
    const fs::path dir = ts::test::tempDir("rank_summaries_corpus");
    std::vector<std::string> files;
    for (const char* f : {"real/hta/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
                          "real/hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                          "real/mindspore/msprof_0_2_1.json", "real/mindspore/hccl_0_2_1.json",
                          "real/mindspore/ascend_timeline_display_1.json"})
        files.push_back(ts::test::corpusFile(f).string());
    const auto groups = groupTracesByRank(files);
    const auto sessions = checkImportedCluster(groups, dir);
    EXPECT_EQ(sessions.size(), groups.size());
}

TEST(RankSummary, AClusterFromSummariesReadsNoSlice) {
    const fs::path dir = ts::test::tempDir("rank_summaries_noslice");
    std::vector<std::vector<std::string>> groups;
    for (int r = 0; r < 2; ++r) {
        const fs::path p = dir / ("rank" + std::to_string(r) + ".pt.trace.json");
        writeTrace(p, rankTrace(r, r == 1, 0));
        groups.push_back({p.string()});
    }
    const auto sessions = checkImportedCluster(groups, dir);
    ASSERT_EQ(sessions.size(), 2u);
    auto before = analyzeClusterPaths(sessions, 1, nullptr, RankSummaries::Read);
    ASSERT_TRUE(before) << before.error();
    // Copies whose slice and argument chunks are emptied: every slice is gone, every row that
    // finds them (and the sources, tracks and strings) is kept.
    std::vector<std::string> blanked;
    for (size_t i = 0; i < sessions.size(); ++i) {
        const fs::path copy = dir / ("blank" + std::to_string(i) + ".tscope");
        fs::copy_file(sessions[i], copy);
        auto s = ts::store::TraceStore::open(copy.string(), ts::store::TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(s) << s.error();
        ASSERT_TRUE(
            s.value()->db().exec("UPDATE slice_chunks SET data = x''; "
                                 "UPDATE arg_chunks SET data = x''"));
        blanked.push_back(copy.string());
    }
    auto fromSummaries = analyzeClusterPaths(blanked, 1, nullptr, RankSummaries::Read);
    ASSERT_TRUE(fromSummaries) << fromSummaries.error();
    EXPECT_EQ(fromSummaries.value().ranksFromSummaries, 2u);
    for (auto& r : before.value().ranks) r.input.sessionPath.clear();
    for (auto& r : fromSummaries.value().ranks) r.input.sessionPath.clear();
    for (size_t i = 0; i < 2; ++i)
        before.value().ranks[i].input.label = fromSummaries.value().ranks[i].input.label;
    expectSameCluster(before.value(), fromSummaries.value());
    // The blanked chunks do bite: read from the slices, the copies are not that cluster.
    auto fromSlices = analyzeClusterPaths(blanked, 1, nullptr, RankSummaries::Ignore);
    EXPECT_TRUE(!fromSlices ||
                clusterSummaryJson(fromSlices.value()) != clusterSummaryJson(before.value()));
}

TEST(RankSummary, ADamagedSummaryIsMeasuredAgain) {
    const fs::path dir = ts::test::tempDir("rank_summaries_damaged");
    const fs::path trace = dir / "rank0.pt.trace.json";
    writeTrace(trace, rankTrace(0, false, 0));
    const auto sessions = checkImportedCluster({{trace.string()}}, dir);
    ASSERT_EQ(sessions.size(), 1u);
    {
        auto s = ts::store::TraceStore::open(sessions[0], ts::store::TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(s) << s.error();
        ASSERT_TRUE(s.value()->db().exec("UPDATE rank_summaries SET data = x'01ff'"));
    }
    auto damaged = analyzeClusterPaths(sessions, 1, nullptr, RankSummaries::Read);
    ASSERT_TRUE(damaged) << damaged.error();
    EXPECT_EQ(damaged.value().ranksFromSummaries, 0u);
    auto truth = analyzeClusterPaths(sessions, 1, nullptr, RankSummaries::Ignore);
    ASSERT_TRUE(truth) << truth.error();
    expectSameCluster(damaged.value(), truth.value());
    // Use replaces it; the next cluster reads it.
    ASSERT_TRUE(analyzeClusterPaths(sessions, 1));
    auto again = analyzeClusterPaths(sessions, 1, nullptr, RankSummaries::Read);
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(again.value().ranksFromSummaries, 1u);
    expectSameCluster(again.value(), truth.value());
}

TEST(RankSummary, AReimportedSourceMakesItsSummaryStale) {
    const fs::path dir = ts::test::tempDir("rank_summaries_stale");
    const fs::path fast = dir / "rank0.fast.pt.trace.json", slow = dir / "rank0.slow.pt.trace.json";
    writeTrace(fast, rankTrace(0, false, 0));
    writeTrace(slow, rankTrace(0, false, 3'000));
    const fs::path session = dir / "rank0.tscope";
    ts::test::importInto(session, {fast});
    // A session imported by hand has no summary: the first cluster measures it and stores one.
    EXPECT_EQ(storedSummaries(session.string()), 0);
    auto first = analyzeClusterPaths({session.string()}, 1);
    ASSERT_TRUE(first) << first.error();
    EXPECT_EQ(first.value().ranksFromSummaries, 0u);
    EXPECT_EQ(storedSummaries(session.string()), 1);
    auto second = analyzeClusterPaths({session.string()}, 1);
    ASSERT_TRUE(second) << second.error();
    EXPECT_EQ(second.value().ranksFromSummaries, 1u);
    expectSameCluster(first.value(), second.value());
    // The source deleted and another trace imported: the new source takes the same id, so
    // only the fingerprint tells the summary is stale.
    {
        auto s =
            ts::store::TraceStore::open(session.string(), ts::store::TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(s) << s.error();
        const int64_t old = first.value().ranks[0].input.sourceIds.at(0);
        ASSERT_TRUE(s.value()->deleteSource(old));
        ts::JobControl jc;
        ASSERT_TRUE(importOne(slow.string(), *s.value(), jc));
        auto ranks = ranksOfSession(*s.value(), session.string());
        ASSERT_TRUE(ranks) << ranks.error();
        EXPECT_EQ(ranks.value().at(0).sourceIds, std::vector<int64_t>{old});
    }
    auto third = analyzeClusterPaths({session.string()}, 1);
    ASSERT_TRUE(third) << third.error();
    EXPECT_EQ(third.value().ranksFromSummaries, 0u);
    auto truth = analyzeClusterPaths({session.string()}, 1, nullptr, RankSummaries::Ignore);
    ASSERT_TRUE(truth) << truth.error();
    expectSameCluster(third.value(), truth.value());
    EXPECT_NE(clusterSummaryJson(third.value()), clusterSummaryJson(first.value()));
    auto fourth = analyzeClusterPaths({session.string()}, 1, nullptr, RankSummaries::Read);
    ASSERT_TRUE(fourth) << fourth.error();
    EXPECT_EQ(fourth.value().ranksFromSummaries, 1u);
    expectSameCluster(fourth.value(), truth.value());
}
