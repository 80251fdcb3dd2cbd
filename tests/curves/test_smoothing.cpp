// TensorBoard's debiased EMA on known series, its incremental form, and edge cases.
#include <gtest/gtest.h>

#include <cmath>

#include "core/curves/smoothing.h"

using namespace ts::curves;

TEST(Smoothing, MatchesTensorBoardOnAKnownSeries) {
    // By hand: last = last*w + (1-w)*v; smoothed = last / (1 - w^n), w = 0.5.
    const std::vector<double> v = {1, 2, 3};
    const auto s = smoothSeries(v, 0.5);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_DOUBLE_EQ(s[0], 1.0);
    EXPECT_DOUBLE_EQ(s[1], 1.25 / 0.75);
    EXPECT_DOUBLE_EQ(s[2], 2.125 / 0.875);
}

TEST(Smoothing, SecondKnownSeriesAtHighWeight) {
    const std::vector<double> v = {10, 0, 5, 5};
    const double w = 0.9;
    double last = 0, expect[4];
    for (int i = 0; i < 4; ++i) {
        last = last * w + (1 - w) * v[i];
        expect[i] = last / (1 - std::pow(w, i + 1));
    }
    const auto s = smoothSeries(v, w);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(s[i], expect[i], 1e-12) << i;
    EXPECT_NEAR(s[1], 0.9 / 0.19, 1e-12);  // 10*0.1*0.9 / (1 - 0.81)
}

TEST(Smoothing, NonFiniteValuesPassThroughAndAreSkipped) {
    const std::vector<double> v = {1, std::nan(""), 3};
    const auto s = smoothSeries(v, 0.5);
    EXPECT_DOUBLE_EQ(s[0], 1.0);
    EXPECT_TRUE(std::isnan(s[1]));
    EXPECT_DOUBLE_EQ(s[2], 1.75 / 0.75);  // NaN does not count as a sample
}

TEST(Smoothing, ZeroWeightAndConstantSeriesAreUnchanged) {
    const std::vector<double> v = {3, 1, 4, 1, 5};
    EXPECT_EQ(smoothSeries(v, 0), v);
    const std::vector<double> c = {0.1, 0.1, 0.1, 0.1};
    EXPECT_EQ(smoothSeries(c, 0.99), c);
    EXPECT_TRUE(smoothSeries({}, 0.5).empty());
}

TEST(Smoothing, IncrementalEqualsBatch) {
    std::vector<double> v;
    for (int i = 0; i < 200; ++i) v.push_back(std::sin(i * 0.3) + i * 0.01);
    const auto batch = smoothSeries(v, 0.8);
    EmaSmoother ema(0.8);
    for (size_t i = 0; i < v.size(); ++i) EXPECT_DOUBLE_EQ(ema.push(v[i]), batch[i]) << i;
    ema.reset();
    EXPECT_DOUBLE_EQ(ema.push(v[0]), v[0]);
}

TEST(Smoothing, WeightIsClamped) {
    EXPECT_EQ(clampWeight(-1), 0);
    EXPECT_EQ(clampWeight(std::nan("")), 0);
    EXPECT_EQ(clampWeight(1.5), 0.999);
    EXPECT_EQ(EmaSmoother(2).weight(), 0.999);
    EmaSmoother ema(1.0);  // 1 would never move; clamped, it still follows the data
    EXPECT_DOUBLE_EQ(ema.push(4.0), 4.0);
}

TEST(Smoothing, SettingsAreNotSmoothed) {
    EXPECT_FALSE(isSmoothedTag("lr"));
    EXPECT_FALSE(isSmoothedTag("loss_scale"));
    EXPECT_TRUE(isSmoothedTag("train/loss"));
    EXPECT_FALSE(isSmoothedTag("eval/accuracy"));  // a few per-epoch points: shown as they are
    EXPECT_TRUE(isSmoothedTag("samples_per_s"));
}
