// The analyses on a profile written by the real ProfileRecorder (core/profiler): the layout
// the lead's recorder produces must split into phases, give memory and run advice. Times
// come from the wall clock, so the checks are on structure and sums, not on durations.
#include <gtest/gtest.h>

#include <thread>

#include "core/analysis/profile/profile_report.h"
#include "core/profiler/profile_recorder.h"
#include "tests/common/test_support.h"

using namespace ts::analysis;
using namespace ts::profiler;

TEST(RecorderProfile, AnalysesReadTheRecorderLayout) {
    const auto path = ts::test::tempDir("an_recorder") / "s.tscope";
    auto st = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::Create);
    ASSERT_TRUE(st.ok());
    auto& s = *st.value();
    const int64_t run = s.beginRun("mlp", "{}").value();
    ProfileRecorder r;
    int64_t live = -1;
    for (int64_t step = 0; step < 4; ++step) {
        r.stepBegin(step);
        r.phaseBegin(Phase::DataLoading);
        std::this_thread::sleep_for(std::chrono::microseconds(step == 0 ? 20000 : 200));
        r.phaseEnd();
        r.phaseBegin(Phase::Forward);
        const int64_t f =
            r.opBegin("MatMul", "net/fc1/MatMul", 1, false, -1, {{64, 128}}, {"float32"});
        if (step == 1) live = r.allocation(4096, "fc1.out", {64, 16});
        r.counter(Counter::MemoryInUse, 1000.0 + static_cast<double>(step) * 100);
        r.opEnd(f, 4096, 0);
        r.phaseEnd();
        r.phaseBegin(Phase::Backward);
        const int64_t b =
            r.opBegin("MatMulGrad", "net/fc1/MatMulGrad", 2, true, 1, {{64, 128}}, {"float32"});
        r.opEnd(b, 0, 0);
        r.phaseEnd();
        r.phaseBegin(Phase::Optimizer);
        r.phaseEnd();
        r.stepEnd();
    }
    (void)live;
    auto src = r.writeTo(s, run, "mlp profile");
    ASSERT_TRUE(src.ok()) << src.error();
    auto rep = analyzeProfile(s, std::nullopt, run);
    ASSERT_TRUE(rep.ok()) << rep.error();
    const ProfileReport& p = rep.value();
    EXPECT_EQ(p.sourceId, src.value());
    EXPECT_EQ(p.steps.split, StepSplit::Phases);
    ASSERT_EQ(p.steps.steps.size(), 4u);
    for (const auto& b : p.steps.steps) {
        EXPECT_GT(b.dur, 0);
        EXPECT_GE(b.iterationGap, b.dataLoading);
        EXPECT_GT(b.dataLoading, 0);
        EXPECT_EQ(b.iterationGap + b.forward + b.backward + b.optimizer + b.callbacks + b.other,
                  b.dur);
        EXPECT_GE(b.tail, b.optimizer);
    }
    // Data loading dominates these tiny steps, and step 0 sleeps 100x longer.
    EXPECT_TRUE(p.steps.steps[0].warmup);
    bool dataLoading = false, warmup = false;
    for (const auto& f : p.advice) {
        dataLoading |= f.kind == AdviceKind::DataLoadingBottleneck;
        warmup |= f.kind == AdviceKind::FirstStepWarmup;
    }
    EXPECT_TRUE(dataLoading);
    EXPECT_TRUE(warmup);
    ASSERT_FALSE(p.ops.empty());
    ASSERT_TRUE(p.memory.hasPeak);
    EXPECT_DOUBLE_EQ(p.memory.peakBytes, 1300);
    ASSERT_EQ(p.memory.topAtPeak.size(), 1u);
    EXPECT_EQ(p.memory.topAtPeak[0].bytes, 4096);
    EXPECT_EQ(p.memory.topAtPeak[0].tensor, "fc1.out");
    EXPECT_EQ(p.memory.topAtPeak[0].shape, "[64,16]");
    EXPECT_EQ(p.memory.topAtPeak[0].op, "MatMul");
}
