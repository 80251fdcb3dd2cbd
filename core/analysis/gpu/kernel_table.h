#pragma once
// The Kernel view's table: kernels grouped by name, or by name + grid + block + registers +
// shared memory (one launch configuration), with calls, total, mean, min, max, share of all
// kernel time, the duration-weighted mean of Kineto's est. achieved occupancy (computed as
// Kineto does where the trace lacks it), the theoretical occupancy of the configuration
// (occupancy.h, with the opt-in shared memory a kernel needs), the Tensor Core flag
// (kernel_rules.h), and the op that launched it most (through the launch's correlation id)
// with that op's input shapes. Ascend kernels (kernel_details.csv) come with their AI Core /
// AI Vector pipeline ratios and what bounds them (ascendBound). CSV export writes what the
// table shows. No Qt.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/gpu/gpu_trace.h"

namespace ts::analysis::gpu {

enum class KernelGrouping { Name, NameAndConfig };

struct KernelRow {
    std::string name;
    std::string kind = "kernel";  // kernel | memcpy | memset | communication | AI_CORE | ...
    // Launch configuration (set when grouped by configuration, or when all calls share it).
    std::string grid, block;  // "[x,y,z]"
    int64_t registers = -1, sharedMemory = -1;
    int64_t calls = 0;
    int64_t totalNs = 0, minNs = 0, maxNs = 0;
    double meanNs = 0;
    double share = 0;                   // of all kernel time in the table
    std::optional<double> occupancy;    // est. achieved, 0..1, duration-weighted
    std::optional<double> theoretical;  // theoretical occupancy of the configuration, 0..1
    std::string limitedBy;              // what limits it
    double blocksPerSm = -1;            // mean over calls (Kineto's or computed)
    bool tensorCore = false;
    bool communication = false;
    std::string op;                 // the op that launched most calls ("" unknown)
    std::string inputShapes;        // that op's input shapes in those calls (the commonest)
    int64_t opCalls = 0;            // calls launched by that op
    std::vector<int64_t> sliceIds;  // up to 16 of the longest calls (to open on the timeline)
    // Ascend AI Core / AI Vector figures (kernel_details.csv), "name" -> mean value.
    std::map<std::string, double> pipeline;
    std::string acceleratorCore;  // Ascend: AI_CORE, AI_VECTOR_CORE, MIX_AIC, AI_CPU ...
    int64_t blockDim = -1;        // Ascend's block dim
    std::string bound;            // Ascend: compute | memory | scalar (ascendBound), "" unknown
};

struct KernelTable {
    KernelGrouping grouping = KernelGrouping::Name;
    std::vector<KernelRow> rows;  // largest total first
    int64_t totalNs = 0;
    int64_t calls = 0;
    bool hasOccupancy = false, hasPipeline = false;
    std::vector<std::string> pipelineColumns;  // Ascend ratio columns in file order
};

struct KernelTableOptions {
    KernelGrouping grouping = KernelGrouping::Name;
    bool includeMemory = true;  // memcpy / memset rows too
};

KernelTable buildKernelTable(const GpuTrace& g, const KernelTableOptions& options = {});

/// What bounds an Ascend kernel by its pipeline ratios (the share of its time each unit is
/// busy): "compute" when the cube (aic_mac_ratio) or vector (aiv_vec_ratio) unit is the
/// busiest, "memory" when a data mover (aic_mte1/mte2, aiv_mte2/mte3) is, "scalar" when the
/// scalar unit beats both; "" without the figures.
std::string ascendBound(const std::map<std::string, double>& pipeline);

/// RFC 4180 CSV of the table: a header and one line per row, every column the view shows.
std::string kernelTableCsv(const KernelTable& t);

}  // namespace ts::analysis::gpu
