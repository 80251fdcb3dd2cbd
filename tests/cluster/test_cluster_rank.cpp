// analyzeRank on small traces with known answers: a CPU-only gloo rank (compute minus the
// collective nested in an op, communication on a background thread), a GPU rank (kernels
// count, host ops do not), an msprof rank (Ascend streams, an HCCL stream by its tasks,
// Iteration N steps, derived rows ignored) and a trace without step markers.
#include <gtest/gtest.h>

#include "core/analysis/cluster/cluster_input.h"
#include "core/analysis/cluster/cluster_rank.h"
#include "core/store/store_writer.h"
#include "core/store/trace_store.h"
#include "tests/cluster/cluster_traces.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using namespace ts::analysis;
using ts::test::TraceEvent;
using ts::test::TraceSpec;

namespace {

RankProfile analyze(const TraceSpec& spec, const std::string& name) {
    const fs::path dir = ts::test::tempDir("cluster_rank");
    writeTrace(dir / name, spec);
    ts::test::importInto(dir / "s.tscope", {dir / name});
    auto store = ts::store::TraceStore::open((dir / "s.tscope").string(),
                                             ts::store::TraceStore::Mode::ReadOnly);
    EXPECT_TRUE(store) << store.error();
    auto ranks = ranksOfSession(*store.value(), (dir / "s.tscope").string());
    EXPECT_TRUE(ranks) << ranks.error();
    EXPECT_EQ(ranks.value().size(), 1u);
    auto p = analyzeRank(*store.value(), ranks.value().front());
    EXPECT_TRUE(p) << p.error();
    return p.value();
}

constexpr int64_t us = 1000;

}  // namespace

TEST(ClusterRank, HostRankSubtractsNestedCommAndCountsBackgroundComm) {
    TraceSpec t;
    t.rank = 3;
    t.events = {{"1", "1", 0, 100, "ProfilerStep#7", "user_annotation"},
                {"1", "1", 10, 30, "aten::mm", "cpu_op"},
                {"1", "1", 50, 40, "autograd::engine::evaluate_function", "cpu_op"},
                {"1", "1", 60, 10, "c10d::allreduce_", "cpu_op"},
                {"1", "2", 30, 50, "gloo:all_reduce", "user_annotation"},
                {"1", "1", 95, 3, "Optimizer.step#SGD.step", "user_annotation"}};
    const RankProfile p = analyze(t, "host.json");
    EXPECT_EQ(p.input.rank, 3);
    EXPECT_EQ(p.input.rankOrigin, "distributedInfo");
    EXPECT_EQ(p.input.worldSize, 2);
    EXPECT_FALSE(p.device);
    EXPECT_EQ(p.stepMarker, "ProfilerStep#N");
    ASSERT_EQ(p.steps.size(), 1u);
    const RankStep& s = p.steps[0];
    EXPECT_EQ(s.number, 7);
    EXPECT_EQ(s.dur, 100 * us);
    EXPECT_NE(s.sliceId, 0);
    EXPECT_EQ(s.computeNs, 60 * us);  // [10,40) + [50,60) + [70,90)
    EXPECT_EQ(s.commNs, 50 * us);     // [30,80)
    EXPECT_EQ(s.overlapNs, 30 * us);  // [30,40) + [50,60) + [70,80)
    EXPECT_EQ(s.idleNs, 20 * us);     // outside [10,90)
    EXPECT_EQ(s.waitNs(), 20 * us);
    EXPECT_EQ(s.workNs(), 80 * us);
}

TEST(ClusterRank, DeviceRankCountsKernelsNotHostOps) {
    TraceSpec t;
    t.processNames = {{"0", "GPU 0"}, {"100", "python"}};
    t.processLabels = {{"0", "GPU 0"}};
    t.events = {{"100", "1", 0, 100, "ProfilerStep#1", "user_annotation"},
                {"100", "1", 0, 90, "aten::mm", "cpu_op"},
                {"100", "1", 50, 2, "nccl:all_reduce", "user_annotation"},
                {"0", "7", 0, 100, "annotation", "gpu_user_annotation"},
                {"0", "7", 10, 40, "volta_sgemm", "kernel"},
                {"0", "8", 40, 30, "ncclKernel_AllReduce_RING_LL_Sum_float", "kernel"},
                {"0", "7", 80, 5, "Memcpy HtoD (Pageable -> Device)", "gpu_memcpy"}};
    const RankProfile p = analyze(t, "rank-5.gpu.json");
    EXPECT_EQ(p.input.rank, 5);
    EXPECT_EQ(p.input.rankOrigin, "file name");
    EXPECT_TRUE(p.device);
    ASSERT_EQ(p.steps.size(), 1u);
    const RankStep& s = p.steps[0];
    EXPECT_EQ(s.computeNs, 45 * us);
    EXPECT_EQ(s.commNs, 30 * us);
    EXPECT_EQ(s.overlapNs, 10 * us);
    EXPECT_EQ(s.idleNs, 35 * us);
}

TEST(ClusterRank, MsprofRankUsesIterationsAndTheHcclStream) {
    TraceSpec t;
    t.processNames = {{"3", "Ascend Hardware"},
                      {"10036", "Step Trace"},
                      {"1003611", "HCCL"},
                      {"1003612", "Overlap Analysis"}};
    t.processLabels = {{"3", "NPU"}, {"1003611", "NPU"}};
    t.events = {{"10036", "10036", 0, 100, "Iteration 1", "Iteration Time"},
                {"10036", "10036", 0, 60, "FP_BP Time 1", "FP_BP Time"},
                {"3", "2", 0, 40, "Default/network-WithLossCell/MatMul-op1", ""},
                {"3", "13", 30, 20, "NOTIFY_WAIT", ""},
                {"3", "13", 50, 10, "MEMCPY_ASYNC", ""},
                {"3", "13", 60, 10, "REDUCE_ASYNC_V2", ""},
                {"3", "2", 72, 3, "EVENT_WAIT", ""},
                {"1003611", "70000", 30, 40, "Default/AllReduce-op534_0", ""},
                {"1003612", "0", 0, 100, "Computing", ""}};
    const RankProfile p = analyze(t, "msprof_1_2_1.json");
    EXPECT_EQ(p.input.rank, 1);
    EXPECT_TRUE(p.device);
    EXPECT_EQ(p.stepMarker, "Iteration N");
    ASSERT_EQ(p.steps.size(), 1u);
    const RankStep& s = p.steps[0];
    EXPECT_EQ(s.number, 1);
    EXPECT_EQ(s.computeNs, 40 * us);
    EXPECT_EQ(s.commNs, 40 * us);
    EXPECT_EQ(s.overlapNs, 10 * us);
    EXPECT_EQ(s.idleNs, 30 * us);
}

TEST(ClusterRank, TraceWithoutMarkersIsOneStep) {
    TraceSpec t;
    t.events = {{"1", "1", 10, 20, "aten::add", "cpu_op"},
                {"1", "1", 50, 10, "gloo:all_reduce", "user_annotation"}};
    const RankProfile p = analyze(t, "plain.json");
    EXPECT_EQ(p.input.rank, -1);  // assigned by order later
    EXPECT_EQ(p.stepMarker, "whole trace");
    ASSERT_EQ(p.steps.size(), 1u);
    EXPECT_EQ(p.steps[0].number, 0);
    EXPECT_EQ(p.steps[0].dur, 50 * us);
    EXPECT_EQ(p.steps[0].sliceId, 0);
    EXPECT_EQ(p.steps[0].computeNs, 20 * us);
    EXPECT_EQ(p.steps[0].commNs, 10 * us);
    EXPECT_EQ(p.steps[0].idleNs, 20 * us);
    EXPECT_FALSE(p.warnings.empty());
}

TEST(ClusterRank, RepeatedStepNumbersKeepTheFirst) {
    TraceSpec t;
    t.events = {{"1", "1", 0, 10, "ProfilerStep#1", "user_annotation"},
                {"1", "2", 0, 20, "ProfilerStep#1", "user_annotation"},
                {"1", "1", 20, 10, "ProfilerStep#2", "user_annotation"}};
    const RankProfile p = analyze(t, "dup.json");
    ASSERT_EQ(p.steps.size(), 2u);
    EXPECT_EQ(p.steps[0].number, 1);
    EXPECT_EQ(p.steps[1].number, 2);
    EXPECT_FALSE(p.warnings.empty());
}

TEST(ClusterRank, EngineRankSessionWithAllReduce) {
    // An engine rank as the data-parallel engine writes it: a run whose config names rank and
    // world size, its profile (kind "profiler") with ProfilerStep#N > phases > cpu_op ops,
    // the all-reduce an op named AllReduce in the Backward phase.
    const fs::path dir = ts::test::tempDir("cluster_engine_rank");
    const fs::path path = dir / "engine.tscope";
    {
        auto st = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::Create);
        ASSERT_TRUE(st) << st.error();
        auto& s = *st.value();
        const int64_t run = s.beginRun("dp", R"({"model":"mlp","world_size":4,"rank":3})").value();
        const int64_t src = s.beginSource("run 1 profile", "profiler").value();
        {
            ts::store::StoreWriter w(s, src);
            const int64_t proc = w.addProcess("1", "TrainScope engine");
            const int64_t track = w.addTrack("thread", proc, w.addThread(proc, "1", "train"), "t");
            const int64_t step = w.intern("step"), phase = w.intern("phase"),
                          op = w.intern("cpu_op");
            auto slice = [&](int64_t ts, int64_t dur, int depth, const char* name, int64_t cat) {
                ts::store::SliceRow r;
                r.trackId = track, r.ts = ts, r.dur = dur, r.depth = depth;
                r.nameId = w.intern(name), r.catId = cat;
                w.addSlice(r);
            };
            for (int n = 1; n <= 3; ++n) {
                const int64_t t = n * 1000;
                slice(t, 100, 0, ("ProfilerStep#" + std::to_string(n)).c_str(), step);
                slice(t, 10, 1, "DataLoading", phase);
                slice(t + 10, 30, 1, "Forward", phase);
                slice(t + 10, 30, 2, "MatMul", op);
                slice(t + 40, 50, 1, "Backward", phase);
                slice(t + 40, 20, 2, "MatMulGrad", op);
                slice(t + 60, 25, 2, "AllReduce", op);
                slice(t + 90, 8, 1, "Optimizer", phase);
                slice(t + 90, 8, 2, "SGDUpdate", op);
            }
            ASSERT_TRUE(w.flush());
        }
        ts::store::SourceSummary sum;
        sum.status = ts::store::SourceStatus::Complete;
        ASSERT_TRUE(s.finishSource(src, sum));
        ASSERT_TRUE(s.setRunProfileSource(run, src));
    }
    auto store = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::ReadOnly);
    auto ranks = ranksOfSession(*store.value(), path.string());
    ASSERT_TRUE(ranks) << ranks.error();
    ASSERT_EQ(ranks.value().size(), 1u);
    EXPECT_EQ(ranks.value()[0].rank, 3);
    EXPECT_EQ(ranks.value()[0].rankOrigin, "run config");
    EXPECT_EQ(ranks.value()[0].worldSize, 4);
    auto p = analyzeRank(*store.value(), ranks.value()[0]);
    ASSERT_TRUE(p) << p.error();
    EXPECT_FALSE(p.value().device);
    ASSERT_EQ(p.value().steps.size(), 3u);
    for (const RankStep& s : p.value().steps) {
        EXPECT_EQ(s.dur, 100);
        EXPECT_EQ(s.computeNs, 30 + 20 + 8);  // ops, not phases; AllReduce is communication
        EXPECT_EQ(s.commNs, 25);
        EXPECT_EQ(s.overlapNs, 0);
        EXPECT_EQ(s.idleNs, 100 - 58 - 25);  // data loading, the gaps
    }
}
