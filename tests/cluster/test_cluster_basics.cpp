// The pieces under the cluster summary: span sets, the communication names, step markers,
// ranks from file names and from distributedInfo.
#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>

#include "core/analysis/cluster/cluster_input.h"
#include "core/analysis/cluster/cluster_ops.h"
#include "core/analysis/cluster/cluster_spans.h"
#include "tests/common/test_support.h"

using namespace ts::analysis;
namespace fs = std::filesystem;

TEST(ClusterSpans, UnionIntersectSubtractWithin) {
    const SpanSet a = SpanSet::unionOf({{10, 20}, {15, 30}, {40, 50}, {5, 5}, {60, 55}});
    ASSERT_EQ(a.spans().size(), 2u);
    EXPECT_EQ(a.spans()[0].begin, 10);
    EXPECT_EQ(a.spans()[0].end, 30);
    EXPECT_EQ(a.total(), 30);
    const SpanSet b = SpanSet::unionOf({{0, 12}, {25, 45}, {48, 49}});
    const SpanSet i = SpanSet::intersect(a, b);
    EXPECT_EQ(i.total(), 2 + 5 + 5 + 1);
    const SpanSet d = SpanSet::subtract(a, b);
    EXPECT_EQ(d.total(), a.total() - i.total());
    ASSERT_EQ(d.spans().size(), 3u);  // [12,25) [45,48) [49,50)
    EXPECT_EQ(d.spans()[1].begin, 45);
    EXPECT_EQ(SpanSet::unite(a, b).total(), a.total() + b.total() - i.total());
    EXPECT_EQ(a.within(0, 100), 30);
    EXPECT_EQ(a.within(12, 14), 2);
    EXPECT_EQ(a.within(25, 45), 5 + 5);
    EXPECT_EQ(a.within(30, 40), 0);
    EXPECT_EQ(a.within(50, 10), 0);
    EXPECT_EQ(SpanSet().within(0, 10), 0);
}

TEST(ClusterSpans, WithinMatchesABruteForceCount) {
    std::vector<Span> raw;
    uint32_t x = 7;
    auto next = [&] { return static_cast<int64_t>((x = x * 1103515245u + 12345u) % 1000); };
    for (int i = 0; i < 200; ++i) {
        const int64_t b = next();
        raw.push_back({b, b + next() % 30});
    }
    const SpanSet s = SpanSet::unionOf(raw);
    std::vector<bool> covered(1100, false);
    for (const Span& sp : raw)
        for (int64_t t = sp.begin; t < sp.end; ++t) covered[static_cast<size_t>(t)] = true;
    for (int k = 0; k < 300; ++k) {
        int64_t a = next(), b = next();
        if (a > b) std::swap(a, b);
        int64_t expected = 0;
        for (int64_t t = a; t < b; ++t) expected += covered[static_cast<size_t>(t)];
        EXPECT_EQ(s.within(a, b), expected) << a << ".." << b;
    }
}

TEST(ClusterOps, CommunicationNames) {
    for (const char* n : {"nccl:all_reduce",
                          "ncclKernel_AllReduce_RING_LL_Sum_float",
                          "ncclDevKernel_Generic",
                          "gloo:all_reduce",
                          "gloo:broadcast",
                          "c10d::allreduce_",
                          "c10d::broadcast_",
                          "record_param_comms",
                          "HcclAllReduce",
                          "hcom_allReduce_",
                          "AllReduce",
                          "Default/AllReduce-op534_0",
                          "Notify_Wait",
                          "NOTIFY_RECORD",
                          "REDUCE_ASYNC_V2",
                          "Reduce_Inline",
                          "mpi:all_gather",
                          "AllGather",
                          "ReduceScatter",
                          "all_to_all"})
        EXPECT_TRUE(isCommName(n)) << n;
    for (const char* n :
         {"aten::mm", "BroadcastTo-op3", "aten::broadcast_tensors", "Reduce_1_0", "ReduceSum-op12",
          "MEMCPY_ASYNC", "ProfilerStep#3", "volta_sgemm", "Memcpy HtoD", "GatherV2-op32"})
        EXPECT_FALSE(isCommName(n)) << n;
}

TEST(ClusterOps, StepMarkersAndTracks) {
    EXPECT_EQ(stepMarkerNumber("ProfilerStep#12"), 12);
    EXPECT_EQ(stepMarkerNumber("Iteration 3"), 3);
    EXPECT_FALSE(stepMarkerNumber("Iteration Refresh 3"));
    EXPECT_FALSE(stepMarkerNumber("ProfilerStep#"));
    EXPECT_EQ(stepMarkerKind("ProfilerStep#1"), 1);
    EXPECT_EQ(stepMarkerKind("Iteration 1"), 2);
    EXPECT_TRUE(trackTraits("thread", "", "Stream 2", "Ascend Hardware", "NPU").device);
    EXPECT_TRUE(trackTraits("gpu_stream", "Stream 7", "", "", "").device);
    EXPECT_TRUE(trackTraits("thread", "", "Plane 0", "HCCL", "").device);
    EXPECT_FALSE(trackTraits("thread", "", "python", "python3", "").device);
    EXPECT_TRUE(trackTraits("thread", "", "Computing", "Overlap Analysis", "").derived);
    EXPECT_TRUE(trackTraits("thread", "", "Step Trace(Model ID:2)", "Ascend Hardware", "").derived);
    EXPECT_TRUE(isHostOpCategory("cpu_op", true));
    EXPECT_TRUE(isHostOpCategory("", false));
    EXPECT_FALSE(isHostOpCategory("", true));
    EXPECT_FALSE(isHostOpCategory("user_annotation", true));
}

TEST(ClusterInput, RankFromFileNames) {
    EXPECT_EQ(rankFromFileName("/x/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"), 0);
    EXPECT_EQ(rankFromFileName("rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"), 34);
    EXPECT_EQ(rankFromFileName("/runs/rank1.4242.1.pt.trace.json"), 1);
    EXPECT_EQ(rankFromFileName("/d/rank_12.tscope"), 12);
    EXPECT_EQ(rankFromFileName("sampled_rank-0.json.gz"), 0);
    EXPECT_EQ(rankFromFileName("hccl_3_2_1.json"), 3);
    EXPECT_EQ(rankFromFileName("msprof_0_2_1.json"), 0);
    EXPECT_EQ(rankFromFileName("ascend_timeline_display_1.json"), 1);
    EXPECT_EQ(rankFromFileName("gpu_timeline_display_0.json"), 0);
    EXPECT_EQ(rankFromFileName("worker3.pt.trace.json"), 3);
    EXPECT_EQ(rankFromFileName("/p/PROF_1/device_6/timeline/task.json"), 6);
    EXPECT_EQ(rankFromFileName("/p/rank_2/trace.json"), 2);
    EXPECT_FALSE(rankFromFileName("/tmp/frankly.json"));
    EXPECT_FALSE(rankFromFileName("/tmp/trace.json"));
}

TEST(ClusterInput, DistributedInfoFromPlainAndGzipFiles) {
    const fs::path dir = ts::test::tempDir("cluster_dist");
    const std::string doc =
        R"({"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 5, )"
        R"("world_size": 8, "pg_config": [{"ranks": [0, 1], "name": "a}b\"{"}]}, )"
        R"("traceEvents": []})";
    std::ofstream(dir / "plain.json") << doc;
    gzFile gz = gzopen((dir / "z.json.gz").c_str(), "wb");
    gzwrite(gz, doc.data(), static_cast<unsigned>(doc.size()));
    gzclose(gz);
    // The key after a large traceEvents array (the Python package's rewritten traces).
    std::string tail = R"({"traceEvents": [)";
    for (int i = 0; i < 20000; ++i) tail += std::string(i ? "," : "") + R"({"ph":"X"})";
    tail += R"(], "distributedInfo": {"rank": 1, "world_size": 2}})";
    std::ofstream(dir / "tail.json") << tail;
    std::ofstream(dir / "none.json") << R"({"traceEvents": []})";
    for (const char* f : {"plain.json", "z.json.gz"}) {
        auto info = readDistributedInfo((dir / f).string());
        ASSERT_TRUE(info) << f;
        EXPECT_EQ(info->rank, 5);
        EXPECT_EQ(info->worldSize, 8);
        EXPECT_EQ(info->backend, "nccl");
    }
    auto t = readDistributedInfo((dir / "tail.json").string());
    ASSERT_TRUE(t);
    EXPECT_EQ(t->rank, 1);
    EXPECT_FALSE(readDistributedInfo((dir / "none.json").string()));
    EXPECT_FALSE(readDistributedInfo((dir / "missing.json").string()));
}

TEST(ClusterInput, AssignMissingRanksByOrder) {
    std::vector<RankInput> in(4);
    in[1].rank = 0;
    in[3].rank = 2;
    assignMissingRanks(in);
    EXPECT_EQ(in[0].rank, 1);
    EXPECT_EQ(in[0].rankOrigin, "order");
    EXPECT_EQ(in[1].rank, 0);
    EXPECT_EQ(in[2].rank, 3);
}

TEST(ClusterInput, TraceFilesGroupedByRank) {
    const fs::path dir = ts::test::tempDir("cluster_groups");
    auto write = [&](const char* name, const char* head) {
        std::ofstream(dir / name) << head << R"("traceEvents": []})";
        return (dir / name).string();
    };
    const std::string a = write("a.json", R"({"distributedInfo": {"rank": 1}, )");
    const std::string b = write("msprof_0_2_1.json", "{");
    const std::string c = write("x.json", "{");
    const std::string d = write("hccl_0_2_1.json", "{");
    const std::string e = write("b.json", R"({"distributedInfo": {"rank": 1}, )");
    const std::string f = write("y.json", "{");
    const auto g = groupTracesByRank({a, b, c, d, e, f});
    ASSERT_EQ(g.size(), 4u);
    EXPECT_EQ(g[0], (std::vector<std::string>{a, e}));
    EXPECT_EQ(g[1], (std::vector<std::string>{b, d}));
    EXPECT_EQ(g[2], (std::vector<std::string>{c}));
    EXPECT_EQ(g[3], (std::vector<std::string>{f}));
}
