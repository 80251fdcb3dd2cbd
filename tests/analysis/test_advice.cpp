// Advice rules: each fires on the slow profile with its figures and evidence, none fires on
// the balanced one.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/analysis/profile/advice.h"
#include "tests/analysis/profile_fixture.h"
#include "tests/common/test_support.h"

using namespace ts::analysis;

namespace {

struct Analysed {
    ProfileData data;
    StepAnalysis steps;
    std::vector<AdviceFinding> advice;
};

Analysed analyse(bool slow, ts::test::ProfileFixture* fx) {
    const auto path = ts::test::tempDir(slow ? "an_adv_slow" : "an_adv_bal") / "s.tscope";
    *fx = ts::test::writeProfileFixture(path, slow);
    auto st = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::ReadOnly);
    EXPECT_TRUE(st.ok());
    Analysed a{loadProfile(*st.value(), fx->sourceId).value(), {}, {}};
    a.steps = analyzeSteps(a.data);
    a.advice = computeAdvice(a.data, a.steps);
    return a;
}

const AdviceFinding* find(const std::vector<AdviceFinding>& v, AdviceKind k) {
    for (const auto& f : v)
        if (f.kind == k) return &f;
    return nullptr;
}

bool contains(const std::vector<int64_t>& v, int64_t id) {
    return std::find(v.begin(), v.end(), id) != v.end();
}

}  // namespace

TEST(Advice, BalancedProfileHasNoFindings) {
    ts::test::ProfileFixture fx;
    const auto a = analyse(false, &fx);
    EXPECT_TRUE(a.advice.empty()) << a.advice.front().title;
    const auto ops = opSelfTimes(a.data, a.steps);
    ASSERT_EQ(ops.size(), 9u);
    for (const auto& o : ops) {
        EXPECT_EQ(o.selfNs, 50) << o.name;
        EXPECT_EQ(o.calls, 5);
        EXPECT_FALSE(o.copy);
    }
}

TEST(Advice, SlowProfileFiresEveryRule) {
    ts::test::ProfileFixture fx;
    const auto a = analyse(true, &fx);
    ASSERT_EQ(a.advice.size(), 4u);

    const auto ops = opSelfTimes(a.data, a.steps);
    ASSERT_FALSE(ops.empty());
    EXPECT_EQ(ops[0].name, "MatMul");
    EXPECT_EQ(ops[0].selfNs, 430);  // 86 ns x 5 steps (child of Linear)
    const auto linear =
        std::find_if(ops.begin(), ops.end(), [](auto& o) { return o.name == "Linear"; });
    ASSERT_NE(linear, ops.end());
    EXPECT_EQ(linear->selfNs, 20);  // 90 - 86 = 4 ns self x 5

    const AdviceFinding* op = find(a.advice, AdviceKind::OpBottleneck);
    ASSERT_NE(op, nullptr);
    EXPECT_STREQ(adviceKindKey(op->kind), "op_bottleneck");
    EXPECT_NEAR(op->share, 430.0 / 700.0, 1e-9);
    EXPECT_DOUBLE_EQ(op->threshold, kOpBottleneckShare);
    EXPECT_EQ(op->costNs, 430);
    EXPECT_NE(op->title.find("MatMul"), std::string::npos);
    // Plain English inline; the porting guide's term in the glossary.
    EXPECT_EQ(op->explanation.find("算子瓶颈"), std::string::npos);
    ASSERT_FALSE(op->glossary.empty());
    EXPECT_EQ(op->glossary.front().second, "算子瓶颈");
    EXPECT_EQ(op->device, "cpu");  // computeAdvice without a device: the host rules
    ASSERT_EQ(op->evidence.size(), 5u);
    for (int64_t id : op->evidence) EXPECT_TRUE(contains(fx.matmulIds, id));
    EXPECT_EQ(op->rangeStart, fx.stepTs[0]);  // the longest call's step
    EXPECT_EQ(op->rangeEnd, fx.stepTs[0] + fx.stepDur[0]);

    const AdviceFinding* copy = find(a.advice, AdviceKind::CopyBottleneck);
    ASSERT_NE(copy, nullptr);
    EXPECT_NEAR(copy->share, 100.0 / 700.0, 1e-9);
    EXPECT_EQ(copy->costNs, 100);
    ASSERT_EQ(copy->evidence.size(), 10u);
    for (int64_t id : copy->evidence) EXPECT_TRUE(contains(fx.copyIds, id));

    const AdviceFinding* dl = find(a.advice, AdviceKind::DataLoadingBottleneck);
    ASSERT_NE(dl, nullptr);
    EXPECT_NEAR(dl->share, 240.0 / 860.0, 1e-9);  // steady steps only
    EXPECT_EQ(dl->costNs, 240);
    EXPECT_NE(dl->title.find("iteration gap"), std::string::npos);
    EXPECT_EQ(dl->glossary.front().second, "迭代间隙");
    ASSERT_EQ(dl->evidence.size(), 5u);
    for (int64_t id : dl->evidence) EXPECT_TRUE(contains(fx.loadingIds, id));
    EXPECT_EQ(dl->rangeStart, fx.stepTs[1]);

    const AdviceFinding* wu = find(a.advice, AdviceKind::FirstStepWarmup);
    ASSERT_NE(wu, nullptr);
    EXPECT_DOUBLE_EQ(wu->share, 4.0);
    EXPECT_EQ(wu->costNs, 600);
    ASSERT_EQ(wu->evidence.size(), 1u);
    ASSERT_EQ(wu->evidenceLabels.size(), 1u);
    EXPECT_EQ(wu->evidenceLabels[0], "ProfilerStep#1 (800 ns)");
    EXPECT_EQ(op->evidenceLabels.size(), op->evidence.size());
    EXPECT_EQ(op->evidenceLabels[0], "MatMul (86 ns) in ProfilerStep#1");
    ASSERT_EQ(op->evidenceRanges.size(), op->evidence.size());
    EXPECT_EQ(op->evidenceRanges[0].first, fx.stepTs[0]);
    EXPECT_EQ(wu->evidence[0], fx.stepIds[0]);
    EXPECT_EQ(wu->rangeStart, fx.stepTs[0]);
    EXPECT_EQ(wu->rangeEnd, fx.stepTs[0] + 800);

    // Ordered by cost: warm-up 600, op 430, gap 240, copy 100.
    EXPECT_EQ(a.advice[0].kind, AdviceKind::FirstStepWarmup);
    EXPECT_EQ(a.advice[1].kind, AdviceKind::OpBottleneck);
    EXPECT_EQ(a.advice[2].kind, AdviceKind::DataLoadingBottleneck);
    EXPECT_EQ(a.advice[3].kind, AdviceKind::CopyBottleneck);
}

TEST(Advice, OverviewNamesTheBiggestCostWhateverTheThresholds) {
    ts::test::ProfileFixture fx;
    const auto slow = analyse(true, &fx);
    const auto o = costOverview(slow.data, slow.steps);
    ASSERT_TRUE(o.has_value());
    EXPECT_EQ(o->kind, AdviceKind::BiggestCost);
    EXPECT_STREQ(adviceKindKey(o->kind), "biggest_cost");
    EXPECT_EQ(o->title, "Biggest cost: MatMul, 61.4% of op self time");  // 430 of 700 ns
    EXPECT_EQ(o->costNs, 430);
    ASSERT_FALSE(o->figures.empty());
    EXPECT_EQ(o->figures[0].first, "op #1: MatMul");
    EXPECT_EQ(o->figures[0].second, "430 ns self, 61.4%, 5 calls");
    ASSERT_EQ(o->evidence.size(), 5u);
    for (int64_t id : o->evidence) EXPECT_TRUE(contains(fx.matmulIds, id));

    // The balanced profile passes no threshold, but still has a biggest cost with evidence.
    ts::test::ProfileFixture bal;
    const auto b = analyse(false, &bal);
    ASSERT_TRUE(b.advice.empty());
    const auto ob = costOverview(b.data, b.steps);
    ASSERT_TRUE(ob.has_value());
    EXPECT_EQ(ob->evidence.size(), 5u);
    bool split = false;
    for (const auto& [k, v] : ob->figures) split |= k == "forward" && v == "40.0%";
    EXPECT_TRUE(split);  // forward 40 ns of each 100 ns step
}
