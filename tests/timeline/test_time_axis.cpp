#include <gtest/gtest.h>

#include "core/timeline/time_axis.h"

namespace ts::timeline {
namespace {

TEST(TimeAxis, MapsTimeAndPixels) {
    TimeAxis a;
    a.reset(0, 1000000, 1000);
    a.showRange(0, 1000000);
    EXPECT_DOUBLE_EQ(a.nsPerPixel(), 1000.0);
    EXPECT_DOUBLE_EQ(a.xOf(500000), 500.0);
    EXPECT_DOUBLE_EQ(a.timeAt(250), 250000.0);
    EXPECT_DOUBLE_EQ(a.end(), 1000000.0);
}

TEST(TimeAxis, ZoomKeepsPointUnderCursor) {
    TimeAxis a;
    a.reset(0, 1000000, 1000);
    a.showRange(0, 1000000);
    const double before = a.timeAt(300);
    a.zoomAt(300, 4.0);
    EXPECT_NEAR(a.timeAt(300), before, 1e-6);
    EXPECT_DOUBLE_EQ(a.nsPerPixel(), 250.0);
    a.zoomAt(300, 0.25);
    EXPECT_DOUBLE_EQ(a.nsPerPixel(), 1000.0);
}

TEST(TimeAxis, ZoomAndPanAreClamped) {
    TimeAxis a;
    a.reset(0, 1000, 100);
    a.zoomAt(50, 1e12);
    EXPECT_DOUBLE_EQ(a.nsPerPixel(), 0.01);  // at most 100 px per ns
    a.zoomAt(50, 1e-12);
    EXPECT_LE(a.end() - a.start(), 1200.0 + 1e-6);  // never beyond the bounds plus margin
    a.panPixels(-1e9);
    EXPECT_GE(a.start(), -100.0 - 1e-6);
    a.showRange(100, 200);
    a.panPixels(1e9);
    EXPECT_LE(a.end(), 1100.0 + 1e-6);
}

TEST(TimeAxis, ResizeKeepsTheWindow) {
    TimeAxis a;
    a.reset(0, 1000, 100);
    a.showRange(200, 400);
    a.setWidth(200);
    EXPECT_DOUBLE_EQ(a.start(), 200.0);
    EXPECT_DOUBLE_EQ(a.end(), 400.0);
}

TEST(TimeAxis, RulerTicksAreRoundAndReadable) {
    TimeAxis a;
    a.reset(0, 10000000, 1000);
    a.showRange(0, 10000000);  // 10 ms over 1000 px
    auto ticks = rulerTicks(a, 0, 90);
    ASSERT_GE(ticks.size(), 5u);
    EXPECT_EQ(ticks[0].label, "0 ns");
    EXPECT_EQ(ticks[1].label, "1 ms");
    EXPECT_DOUBLE_EQ(ticks[1].ns - ticks[0].ns, 1e6);
    EXPECT_EQ(formatDuration(1500), "1.5 µs");
    // Deep into a long span the ticks count from the first one: they stay distinct.
    TimeAxis far;
    far.reset(0, int64_t{1'000'000'000'000'000}, 1000);
    far.showRange(5e17, 5e17 + 1e6);  // 1 ms at 16 years from the origin
    auto deep = rulerTicks(far, 0, 90);
    ASSERT_GE(deep.size(), 3u);
    EXPECT_EQ(deep[0].label, "+0 ns");
    EXPECT_EQ(deep[1].label, "+100 µs");
    EXPECT_NE(deep[1].label, deep[2].label);
    EXPECT_EQ(formatDuration(2.5e9), "2.5 s");
    EXPECT_EQ(formatDuration(830), "830 ns");
    EXPECT_EQ(formatDuration(1234567), "1.235 ms");
}

}  // namespace
}  // namespace ts::timeline
