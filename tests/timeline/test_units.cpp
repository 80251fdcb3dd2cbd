// Numbers in the user's units (issue 26, item 8): durations with µs and never in scientific
// notation, bytes in binary units, plain numbers in fixed notation.
#include <gtest/gtest.h>

#include <cmath>

#include "core/common/units.h"

namespace ts {
namespace {

TEST(Units, DurationsUseUnitSymbolsAndNoExponent) {
    EXPECT_EQ(formatDuration(0), "0 ns");
    EXPECT_EQ(formatDuration(830), "830 ns");
    EXPECT_EQ(formatDuration(1500), "1.5 µs");
    EXPECT_EQ(formatDuration(1234567), "1.235 ms");
    EXPECT_EQ(formatDuration(2.5e9), "2.5 s");
    EXPECT_EQ(formatDuration(-2.5e9), "-2.5 s");
    EXPECT_EQ(formatDuration(11070e9), "3.075 h");  // was "1.107e+04 s"
    EXPECT_EQ(formatDuration(990e9), "990 s");
    EXPECT_EQ(formatDuration(1200e9), "20 min");
    EXPECT_EQ(formatDuration(1.87e18), "21644 d");  // was "1.87e+09 s": every digit kept
    for (double v : {1e-3, 0.5, 7.0, 1e4, 1e7, 1e12, 1e15, 1e18, 9.99e20})
        EXPECT_EQ(formatDuration(v).find('e'), std::string::npos) << formatDuration(v);
}

TEST(Units, BytesInBinaryUnits) {
    EXPECT_EQ(formatBytes(0), "0 B");
    EXPECT_EQ(formatBytes(512), "512 B");
    EXPECT_EQ(formatBytes(1536), "1.5 KiB");
    EXPECT_EQ(formatBytes(4 * 1048576.0), "4 MiB");
    EXPECT_EQ(formatBytes(1.3 * 1073741824.0), "1.3 GiB");
    EXPECT_EQ(formatBytes(-2048), "-2 KiB");
}

TEST(Units, NumbersInFixedNotation) {
    EXPECT_EQ(formatNumber(11070.4), "11070");
    EXPECT_EQ(formatNumber(0.0123456), "0.01235");
    EXPECT_EQ(formatNumber(1.0), "1");
    EXPECT_EQ(formatNumber(-0.0), "0");
    EXPECT_EQ(formatNumber(1e21, 4), "1000000000000000000000");
    EXPECT_EQ(formatNumber(std::nan("")), "NaN");
}

TEST(Units, DisplayWidthCountsCharactersNotBytes) {
    EXPECT_EQ(displayWidth("1.5 µs"), 6u);
    EXPECT_EQ(displayWidth("abc"), 3u);
}

}  // namespace
}  // namespace ts
