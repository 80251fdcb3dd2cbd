// Scalars from a command's output: LossMonitor lines and a user's regex with named groups.
#include <gtest/gtest.h>

#include <cmath>

#include "core/run/scalar_lines.h"

using namespace ts::run;

TEST(ScalarLines, LossMonitorFormats) {
    auto m = parseLossMonitorLine("epoch: 1 step: 100, loss is 0.5234");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->epoch, 1);
    EXPECT_EQ(m->step, 100);
    EXPECT_DOUBLE_EQ(m->loss, 0.5234);
    m = parseLossMonitorLine("[INFO] epoch: 3, step: 7, loss is 1e-05");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->epoch, 3);
    EXPECT_DOUBLE_EQ(m->loss, 1e-05);
    m = parseLossMonitorLine(
        "epoch: 2 step: 5, loss is Tensor(shape=[], dtype=Float32, value= 0.25)");
    ASSERT_TRUE(m);
    EXPECT_DOUBLE_EQ(m->loss, 0.25);
    m = parseLossMonitorLine("epoch: 1 step: 9, loss is nan");
    ASSERT_TRUE(m);
    EXPECT_TRUE(std::isnan(m->loss));
    EXPECT_FALSE(parseLossMonitorLine("epoch time: 1234.5 ms, per step time: 1.2 ms"));
    EXPECT_FALSE(parseLossMonitorLine("loss is 0.5"));
    EXPECT_FALSE(parseLossMonitorLine("epoch: 1 step: x, loss is 0.5"));
}

TEST(ScalarLines, EpochsBecomeGlobalSteps) {
    ScalarLineParser p;
    std::vector<ScalarPoint> all;
    for (int e = 1; e <= 3; ++e)
        for (int s = 1; s <= 4; ++s) {
            auto v = p.parse("epoch: " + std::to_string(e) + " step: " + std::to_string(s) +
                             ", loss is " + std::to_string(e * 10 + s));
            all.insert(all.end(), v.begin(), v.end());
        }
    ASSERT_EQ(all.size(), 12u);
    for (size_t i = 0; i < all.size(); ++i) {
        EXPECT_EQ(all[i].tag, "train/loss");
        EXPECT_EQ(all[i].step, static_cast<int64_t>(i + 1));
    }
    EXPECT_TRUE(p.parse("hello world").empty());
}

TEST(ScalarLines, UserRegexNamedGroups) {
    auto re = ScalarRegex::compile(
        R"(it (?P<step>\d+) loss=(?<loss>[-0-9.e]+) acc=(?P<acc>[0-9.]+) \[x\((?:a|b)\)\])");
    ASSERT_TRUE(re) << re.error();
    EXPECT_EQ(re->names(), (std::vector<std::string>{"step", "loss", "acc"}));
    ScalarLineParser p(re.value());
    auto v = p.parse("it 12 loss=0.5 acc=0.75 [x(a)]");
    ASSERT_EQ(v.size(), 2u);
    EXPECT_EQ(v[0].tag, "train/loss");
    EXPECT_EQ(v[0].step, 12);
    EXPECT_DOUBLE_EQ(v[0].value, 0.5);
    EXPECT_EQ(v[1].tag, "acc");
    EXPECT_DOUBLE_EQ(v[1].value, 0.75);
    EXPECT_TRUE(p.parse("it 12 loss=").empty());
}

TEST(ScalarLines, WithoutAStepGroupEachTagCounts) {
    auto re = ScalarRegex::compile(R"(grad_norm (?P<grad_norm>[0-9.]+))");
    ASSERT_TRUE(re);
    ScalarLineParser p(re.value());
    EXPECT_EQ(p.parse("grad_norm 1.5").at(0).step, 1);
    EXPECT_EQ(p.parse("grad_norm 2.5").at(0).step, 2);
    // The user's expression first; LossMonitor lines still count when it does not match.
    auto lm = p.parse("epoch: 1 step: 4, loss is 0.1");
    ASSERT_EQ(lm.size(), 1u);
    EXPECT_EQ(lm[0].step, 4);
}

TEST(ScalarLines, RegexErrors) {
    EXPECT_FALSE(ScalarRegex::compile("(?P<step>\\d+)"));  // no value group
    EXPECT_FALSE(ScalarRegex::compile("(?P<>x)"));
    EXPECT_FALSE(ScalarRegex::compile("(?P<loss>[0-9)"));
    // Parentheses in classes and escapes are not groups.
    auto re = ScalarRegex::compile(R"([(]\((?P<loss>\d))");
    ASSERT_TRUE(re) << re.error();
    EXPECT_EQ(re->names(), (std::vector<std::string>{"loss"}));
}
