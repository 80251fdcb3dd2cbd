#pragma once
// Occupancy of a kernel launch, as NVIDIA's occupancy calculator (cuda_occupancy.h,
// cudaOccMaxActiveBlocksPerMultiprocessor) and Kineto compute it:
//   blocks per SM       = grid blocks / SMs                       (Kineto's "blocks per SM")
//   warps per SM        = blocks per SM * threads per block / 32  (Kineto's "warps per SM")
//   active blocks / SM  = min(limit by warps, by registers, by shared memory, by the
//                         architecture's blocks per SM)           (theoretical)
//   est. achieved occupancy = min(active blocks, blocks per SM) * threads per block
//                             / max threads per SM                (Kineto's "est. achieved
//                                                                  occupancy %", as 0..1)
// Registers are allocated per warp in units of 256, shared memory in units of 128 bytes
// (plus 1 KiB the driver reserves per block from compute capability 8.0); the shared memory
// of the SM is the carveout that fits (Volta and later). Kineto asks with the default
// per-block limit (sharedMemPerBlock), so a kernel that opted in to more shared memory gets
// occupancy 0 from Kineto; `Mode::OptIn` allows sharedMemPerBlockOptin instead, which is
// what such a kernel ran with. No Qt.
#include <cstdint>
#include <optional>
#include <string>

#include "core/analysis/gpu/device_properties.h"

namespace ts::analysis::gpu {

struct LaunchShape {
    int64_t gridX = 0, gridY = 0, gridZ = 0;
    int64_t blockX = 0, blockY = 0, blockZ = 0;
    int64_t registersPerThread = 0;
    int64_t sharedMemory = 0;  // static + dynamic bytes per block (Kineto's "shared memory")
    int64_t gridBlocks() const { return gridX * gridY * gridZ; }
    int64_t threadsPerBlock() const { return blockX * blockY * blockZ; }
};

struct OccupancyResult {
    double blocksPerSm = 0;        // grid blocks / SMs
    double warpsPerSm = 0;         // blocks per SM * threads per block / 32
    int activeBlocksPerSm = 0;     // theoretical limit
    double theoretical = 0;        // activeBlocksPerSm * threads / max threads per SM (0..1)
    double estimatedAchieved = 0;  // min(active, blocks per SM) * threads / max threads (0..1)
    /// What limits the active blocks: "warps", "registers", "shared memory", "blocks"
    /// (several joined by '|' when they tie).
    std::string limitedBy;
};

enum class OccupancyMode {
    Kineto,  // the per-block shared memory limit Kineto uses (sharedMemPerBlock)
    OptIn    // the opt-in limit when the kernel needs more (what it actually ran with)
};

/// nullopt when the device properties are not usable or the shape is empty.
std::optional<OccupancyResult> computeOccupancy(const DeviceProperties& device,
                                                const LaunchShape& shape,
                                                OccupancyMode mode = OccupancyMode::OptIn);

/// The architecture's limit of resident blocks per SM (0 when unknown).
int maxBlocksPerSm(int computeMajor, int computeMinor);

}  // namespace ts::analysis::gpu
