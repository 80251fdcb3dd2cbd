// Step analysis on synthetic recorder-layout profiles (every figure checked) and on a real
// Kineto trace when the Chrome importer is registered.
#include <gtest/gtest.h>

#include "core/analysis/profile/profile_data.h"
#include "core/analysis/profile/step_analysis.h"
#include "importers/registry.h"
#include "tests/analysis/profile_fixture.h"
#include "tests/common/test_support.h"

using namespace ts::analysis;

namespace {

ProfileData load(const std::filesystem::path& path, int64_t source) {
    auto st = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::ReadOnly);
    EXPECT_TRUE(st.ok());
    auto d = loadProfile(*st.value(), source);
    EXPECT_TRUE(d.ok()) << d.error();
    return std::move(d).value();
}

}  // namespace

TEST(StepAnalysis, BalancedProfileSplitsEveryStep) {
    const auto path = ts::test::tempDir("an_steps_bal") / "s.tscope";
    const auto fx = ts::test::writeProfileFixture(path, false);
    const StepAnalysis a = analyzeSteps(load(path, fx.sourceId));
    EXPECT_EQ(a.split, StepSplit::Phases);
    ASSERT_EQ(a.steps.size(), 5u);
    for (size_t i = 0; i < 5; ++i) {
        const StepBreakdown& s = a.steps[i];
        EXPECT_EQ(s.number, static_cast<int64_t>(i + 1));
        EXPECT_EQ(s.sliceId, fx.stepIds[i]);
        EXPECT_EQ(s.ts, fx.stepTs[i]);
        EXPECT_EQ(s.dur, 100);
        EXPECT_EQ(s.iterationGap, 5);
        EXPECT_EQ(s.dataLoading, 5);
        EXPECT_EQ(s.forward, 40);
        EXPECT_EQ(s.backward, 40);
        EXPECT_EQ(s.optimizer, 10);
        EXPECT_EQ(s.callbacks, 3);
        EXPECT_EQ(s.other, 2);
        EXPECT_EQ(s.tail, 15);
        EXPECT_EQ(s.kernels, 0);
        EXPECT_FALSE(s.slow);
        EXPECT_FALSE(s.warmup);
    }
    EXPECT_DOUBLE_EQ(a.medianNs, 100);
    EXPECT_DOUBLE_EQ(a.madNs, 0);
    EXPECT_DOUBLE_EQ(a.slowThresholdNs, 110);
}

TEST(StepAnalysis, SlowProfileFlagsWarmupAndSlowStep) {
    const auto path = ts::test::tempDir("an_steps_slow") / "s.tscope";
    const auto fx = ts::test::writeProfileFixture(path, true);
    const StepAnalysis a = analyzeSteps(load(path, fx.sourceId));
    ASSERT_EQ(a.steps.size(), 5u);
    const int64_t durs[] = {800, 200, 200, 260, 200};
    for (size_t i = 0; i < 5; ++i) {
        const StepBreakdown& s = a.steps[i];
        EXPECT_EQ(s.dur, durs[i]) << i;
        EXPECT_EQ(s.iterationGap, 60);
        EXPECT_EQ(s.forward, 100);
        EXPECT_EQ(s.backward, 30);
        EXPECT_EQ(s.optimizer, 10);
        EXPECT_EQ(s.callbacks, 0);
        EXPECT_EQ(s.other, durs[i] - 200);
        EXPECT_EQ(s.tail, durs[i] - 190);
        EXPECT_EQ(s.iterationGap + s.forward + s.backward + s.optimizer + s.callbacks + s.other,
                  s.dur);
    }
    EXPECT_TRUE(a.steps[0].warmup);
    EXPECT_FALSE(a.steps[0].slow);
    EXPECT_TRUE(a.steps[3].slow);
    for (size_t i : {1u, 2u, 4u}) EXPECT_FALSE(a.steps[i].slow || a.steps[i].warmup) << i;
    EXPECT_DOUBLE_EQ(a.medianNs, 200);
    EXPECT_DOUBLE_EQ(a.slowThresholdNs, 220);
}

TEST(StepAnalysis, MedianAndProfileHelpers) {
    EXPECT_DOUBLE_EQ(median({}), 0);
    EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
    EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
    EXPECT_EQ(profilerStepNumber("ProfilerStep#12"), 12);
    EXPECT_FALSE(profilerStepNumber("ProfilerStep#"));
    EXPECT_FALSE(profilerStepNumber("ProfilerStep#1x"));
    EXPECT_FALSE(profilerStepNumber("Step#1"));
    EXPECT_TRUE(isCopyOp("aten::copy_", "cpu_op"));
    EXPECT_TRUE(isCopyOp("Memcpy HtoD (Pageable -> Device)", "Memcpy"));
    EXPECT_TRUE(isCopyOp("TransData", "cpu_op"));
    EXPECT_FALSE(isCopyOp("aten::mm", "cpu_op"));
    EXPECT_TRUE(isOpCategory("Operator"));
    EXPECT_FALSE(isOpCategory("phase"));
}

TEST(StepAnalysis, SourceChoice) {
    const auto path = ts::test::tempDir("an_steps_src") / "s.tscope";
    const auto a = ts::test::writeProfileFixture(path, false);
    const auto b = ts::test::writeProfileFixture(path, true);
    auto st = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(st.ok());
    auto& s = *st.value();
    auto list = listProfileSources(s);
    ASSERT_TRUE(list.ok());
    ASSERT_EQ(list.value().size(), 2u);
    EXPECT_EQ(list.value()[0].id, b.sourceId);  // newest first
    EXPECT_EQ(list.value()[0].steps, 5);
    EXPECT_EQ(list.value()[0].label, "slow profile");
    EXPECT_EQ(resolveProfileSource(s, std::nullopt, std::nullopt).value(), b.sourceId);
    EXPECT_EQ(resolveProfileSource(s, a.sourceId, std::nullopt).value(), a.sourceId);
    EXPECT_EQ(resolveProfileSource(s, std::nullopt, a.runId).value(), a.sourceId);
    EXPECT_FALSE(resolveProfileSource(s, 99, std::nullopt).ok());
    EXPECT_FALSE(resolveProfileSource(s, std::nullopt, 99).ok());
    const int64_t bare = s.beginRun("bare", "{}").value();
    auto r = resolveProfileSource(s, std::nullopt, bare);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("has no profile"), std::string::npos);
    EXPECT_FALSE(loadProfile(s, 99).ok());
}

TEST(StepAnalysis, EmptySessionHasNoProfile) {
    const auto path = ts::test::tempDir("an_steps_empty") / "s.tscope";
    auto st = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::Create);
    ASSERT_TRUE(st.ok());
    auto r = resolveProfileSource(*st.value(), std::nullopt, std::nullopt);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("no profile"), std::string::npos);
}

TEST(StepAnalysis, RealKinetoTrace) {
    TS_REQUIRE_CORPUS();
    const auto path = ts::test::tempDir("an_steps_kineto") / "s.tscope";
    auto st = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::Create);
    ASSERT_TRUE(st.ok());
    ts::JobControl jc;
    const auto file = ts::test::corpusFile("real/kineto/worker0.1623143089861.pt.trace.json.gz");
    const auto report = ts::importers::importFile(file.string(), *st.value(), jc);
    auto sources = listProfileSources(*st.value());
    ASSERT_TRUE(sources.ok());
    if (sources.value().empty())
        GTEST_SKIP() << "no importer read the Kineto trace yet ("
                     << ts::store::statusName(report.status) << ")";
    const int64_t src = sources.value().front().id;
    auto d = loadProfile(*st.value(), src);
    ASSERT_TRUE(d.ok()) << d.error();
    const StepAnalysis a = analyzeSteps(d.value());
    EXPECT_EQ(a.split, StepSplit::Ops);
    ASSERT_EQ(a.steps.size(), 6u);  // ProfilerStep#5 .. #10 in that trace
    for (const auto& s : a.steps) {
        EXPECT_GT(s.dur, 0);
        EXPECT_GT(s.cpuOps, 0);
        EXPECT_GT(s.kernels, 0);
        EXPECT_LE(s.iterationGap + s.cpuOps, s.dur);
        EXPECT_EQ(s.iterationGap + s.cpuOps + s.other, s.dur);
    }
    for (size_t i = 1; i < a.steps.size(); ++i) EXPECT_GE(a.steps[i].ts, a.steps[i - 1].ts);
}
