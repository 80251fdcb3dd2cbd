#include "core/analysis/gpu/occupancy.h"

#include <algorithm>
#include <climits>
#include <vector>

namespace ts::analysis::gpu {
namespace {

int64_t divUp(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}
int64_t roundUp(int64_t a, int64_t b) {
    return divUp(a, b) * b;
}

int subPartitions(int major, int minor) {
    return major == 6 && minor == 0 ? 2 : 4;
}

/// The shared memory sizes an SM can be configured to (cudaOccAlignUpShmemSizeVoltaPlus),
/// in KiB; empty before Volta (the SM's shared memory is fixed).
std::vector<int64_t> carveoutsKiB(int major, int minor) {
    if (major == 7) {
        if (minor == 5) return {32, 64};
        return {0, 8, 16, 32, 64, 96};
    }
    if (major == 8) {
        if (minor == 0 || minor == 7) return {0, 8, 16, 32, 64, 100, 132, 164};
        return {0, 8, 16, 32, 64, 100};
    }
    if (major >= 9 && major <= 10) return {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    if (major >= 11) return {0, 8, 16, 32, 64, 100};
    return {};
}

/// The smallest carveout that holds `bytes`, or nullopt when none does.
std::optional<int64_t> alignUpCarveout(int major, int minor, int64_t bytes) {
    for (int64_t k : carveoutsKiB(major, minor))
        if (bytes <= k * 1024) return k * 1024;
    return std::nullopt;
}

}  // namespace

int maxBlocksPerSm(int major, int minor) {
    switch (major) {
        case 3:
            return 16;
        case 5:
        case 6:
            return 32;
        case 7:
            return minor == 5 ? 16 : 32;
        case 8:
            if (minor == 0) return 32;
            if (minor == 9) return 24;
            return 16;
        case 9:
        case 10:
            return 32;
        case 11:
        case 12:
            return minor == 0 ? 32 : 24;
        default:
            return 0;
    }
}

std::optional<OccupancyResult> computeOccupancy(const DeviceProperties& d, const LaunchShape& s,
                                                OccupancyMode mode) {
    if (!d.usable()) return std::nullopt;
    const int64_t threads = s.threadsPerBlock();
    if (threads <= 0 || s.gridBlocks() <= 0) return std::nullopt;
    const int major = d.computeMajor, minor = d.computeMinor;
    const int blockCap = maxBlocksPerSm(major, minor);
    if (blockCap == 0) return std::nullopt;

    OccupancyResult r;
    r.blocksPerSm = static_cast<double>(s.gridBlocks()) / d.numSms;
    r.warpsPerSm = r.blocksPerSm * static_cast<double>(threads) / 32.0;

    const int64_t warpsPerBlock = divUp(threads, d.warpSize);
    // Warps.
    int64_t byWarps = 0;
    if (threads <= d.maxThreadsPerBlock) byWarps = (d.maxThreadsPerSm / d.warpSize) / warpsPerBlock;
    // Registers: allocated per warp in units of 256, per sub-partition.
    int64_t byRegs = INT_MAX;
    const int64_t regs = std::max<int64_t>(0, s.registersPerThread);
    const int64_t regsPerWarp = roundUp(regs * d.warpSize, 256);
    if (regsPerWarp > 0) {
        const int parts = subPartitions(major, minor);
        const int64_t assumedPerBlock = regsPerWarp * roundUp(warpsPerBlock, parts);
        const int64_t allocatedPerBlock = regsPerWarp * warpsPerBlock;
        if (d.regsPerBlock < assumedPerBlock || d.regsPerBlock < allocatedPerBlock || regs > 255) {
            byRegs = 0;
        } else {
            const int64_t warpsPerPart = (d.regsPerSm / parts) / regsPerWarp;
            byRegs = (warpsPerPart * parts) / warpsPerBlock;
        }
    }
    // Shared memory: 128-byte units, plus the per-block reserve from compute capability 8.0.
    int64_t bySmem = INT_MAX;
    const int64_t reserved = major >= 8 ? 1024 : 0;
    const int64_t granularity = major >= 8 ? 128 : 256;
    const int64_t smemPerBlock =
        roundUp(std::max<int64_t>(0, s.sharedMemory) + reserved, granularity);
    int64_t perBlockLimit = d.sharedMemPerBlock;
    if (mode == OccupancyMode::OptIn && major >= 7 && d.sharedMemPerBlockOptin > 0 &&
        smemPerBlock > d.sharedMemPerBlock + reserved)
        perBlockLimit = d.sharedMemPerBlockOptin;
    perBlockLimit += reserved;
    if (smemPerBlock > perBlockLimit) {
        bySmem = 0;
    } else if (smemPerBlock > 0) {
        int64_t smPool = d.sharedMemPerSm;
        if (major >= 7) {
            // The default carveout is the SM's whole shared memory, aligned to a configuration;
            // a block that needs more than the preference gets the configuration that fits it.
            const auto pref = alignUpCarveout(major, minor, d.sharedMemPerSm);
            smPool = pref.value_or(d.sharedMemPerSm);
            if (smPool < smemPerBlock)
                smPool = alignUpCarveout(major, minor, smemPerBlock).value_or(d.sharedMemPerSm);
        }
        bySmem = smPool / smemPerBlock;
    }
    const int64_t active = std::min({byWarps, byRegs, bySmem, static_cast<int64_t>(blockCap)});
    r.activeBlocksPerSm = static_cast<int>(std::max<int64_t>(0, active));
    auto addLimit = [&](int64_t v, const char* name) {
        if (v != active) return;
        if (!r.limitedBy.empty()) r.limitedBy += '|';
        r.limitedBy += name;
    };
    addLimit(byWarps, "warps");
    addLimit(byRegs, "registers");
    addLimit(bySmem, "shared memory");
    addLimit(blockCap, "blocks");
    const double perSm = static_cast<double>(d.maxThreadsPerSm);
    r.theoretical = static_cast<double>(r.activeBlocksPerSm) * static_cast<double>(threads) / perSm;
    const double achievedBlocks = std::min(static_cast<double>(r.activeBlocksPerSm), r.blocksPerSm);
    r.estimatedAchieved = achievedBlocks * static_cast<double>(threads) / perSm;
    return r;
}

}  // namespace ts::analysis::gpu
