// The occupancy calculator against NVIDIA's rules worked by hand, and against Kineto's own
// "blocks per SM" / "warps per SM" / "est. achieved occupancy %" on every kernel of a real
// PyTorch 2.11 trace from an H200 (the figures Kineto computed with CUDA's calculator).
#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/gpu/occupancy.h"
#include "tests/gpu_analysis/gpu_fixture.h"

using namespace ts::analysis::gpu;

namespace {

DeviceProperties h200() {
    DeviceProperties d;
    d.name = "NVIDIA H200";
    d.computeMajor = 9;
    d.computeMinor = 0;
    d.maxThreadsPerBlock = 1024;
    d.maxThreadsPerSm = 2048;
    d.regsPerBlock = 65536;
    d.regsPerSm = 65536;
    d.warpSize = 32;
    d.sharedMemPerBlock = 49152;
    d.sharedMemPerSm = 233472;
    d.sharedMemPerBlockOptin = 232448;
    d.numSms = 132;
    return d;
}

}  // namespace

TEST(Occupancy, LimitsWorkedByHand) {
    const DeviceProperties d = h200();
    // 256 threads, 55 registers: 55 x 32 = 1760 -> 1792 per warp; 65536 / 4 sub-partitions
    // = 16384 / 1792 = 9 warps each, 36 per SM, 36 / 8 warps per block = 4 blocks: 1024 of
    // 2048 threads = 50% (the grid of 1056 blocks gives 8 per SM, more than fit).
    auto r = computeOccupancy(d, {1056, 1, 1, 256, 1, 1, 55, 0}, OccupancyMode::Kineto);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->activeBlocksPerSm, 4);
    EXPECT_EQ(r->limitedBy, "registers");
    EXPECT_DOUBLE_EQ(r->blocksPerSm, 8.0);
    EXPECT_DOUBLE_EQ(r->estimatedAchieved, 0.5);
    // A grid smaller than the SMs: 56 blocks of 512 threads -> 0.424 blocks per SM.
    r = computeOccupancy(d, {56, 1, 1, 512, 1, 1, 24, 0}, OccupancyMode::Kineto);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->activeBlocksPerSm, 4);  // warps: 64 / 16
    EXPECT_NEAR(r->estimatedAchieved, 56.0 / 132.0 * 512 / 2048, 1e-12);
    // 221,420 bytes of shared memory: more than the default 48 KiB per block, so Kineto's
    // call (no opt-in) says 0; with the opt-in limit one block fits.
    r = computeOccupancy(d, {2, 66, 1, 384, 1, 1, 168, 221420}, OccupancyMode::Kineto);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->activeBlocksPerSm, 0);
    EXPECT_EQ(r->estimatedAchieved, 0.0);
    r = computeOccupancy(d, {2, 66, 1, 384, 1, 1, 168, 221420}, OccupancyMode::OptIn);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->activeBlocksPerSm, 1);
    EXPECT_DOUBLE_EQ(r->theoretical, 384.0 / 2048.0);
    // Too many threads per block, no device properties, an empty launch.
    r = computeOccupancy(d, {1, 1, 1, 2048, 1, 1, 0, 0});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->activeBlocksPerSm, 0);
    EXPECT_FALSE(computeOccupancy(DeviceProperties{}, {1, 1, 1, 32, 1, 1, 0, 0}));
    EXPECT_FALSE(computeOccupancy(d, {0, 1, 1, 32, 1, 1, 0, 0}));
    EXPECT_EQ(maxBlocksPerSm(8, 6), 16);
    EXPECT_EQ(maxBlocksPerSm(9, 0), 32);
}

TEST(Occupancy, MatchesKinetoOnEveryKernelOfARealH200Trace) {
    const auto file = ts::test::torch211Trace();
    if (!std::filesystem::exists(file)) GTEST_SKIP() << "no " << file;
    const GpuTrace g = ts::test::loadTrace(file);
    ASSERT_EQ(g.devices.size(), 1u);  // the trace's deviceProperties, kept by the importer
    const DeviceProperties& d = g.devices.front();
    EXPECT_EQ(d.name, "NVIDIA H200");
    EXPECT_EQ(d.numSms, 132);
    EXPECT_EQ(d.computeCapability(), "9.0");
    int checked = 0;
    for (const DeviceActivity& a : g.activities) {
        if (a.kind != ActivityKind::Kernel) continue;
        ASSERT_GE(a.occupancyPct, 0) << g.name(a);
        LaunchShape s{a.grid[0],  a.grid[1],  a.grid[2],   a.block[0],
                      a.block[1], a.block[2], a.registers, a.sharedMemory};
        auto r = computeOccupancy(d, s, OccupancyMode::Kineto);
        ASSERT_TRUE(r) << g.name(a);
        EXPECT_NEAR(r->blocksPerSm, a.blocksPerSm, 1e-5) << g.name(a);
        EXPECT_NEAR(r->warpsPerSm, a.warpsPerSm, 1e-4) << g.name(a);
        EXPECT_EQ(std::lround(r->estimatedAchieved * 100.0), std::lround(a.occupancyPct))
            << g.name(a) << " grid " << a.grid[0] << " block " << a.block[0] << " regs "
            << a.registers << " smem " << a.sharedMemory;
        ++checked;
    }
    EXPECT_EQ(checked, 252);
}
