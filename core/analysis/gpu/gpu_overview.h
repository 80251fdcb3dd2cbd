#pragma once
// The GPU overview of a profile, as the TensorBoard profiler plugin (torch_tb_profiler)
// defines it, and the studio's own per-step GPU figures beside it:
//
// Steps (joinSteps): one per host ProfilerStep#N (the CPU user_annotation; PyTorch 2.x's
// gpu_user_annotation copy of it is joined by number, never counted again). The device side
// of a step is the GPU work launched by the runtime and driver calls that lie inside the
// host step: from the first start to the last end. The joined step runs from
// max(host start, end of the previous joined step) to max(host end, device end) — the
// plugin's _update_steps_consider_device_side. Trailing steps that launched no GPU work, and
// a last step that launched fewer than 80% of the GPU rows of the one before (the profiler
// stopped before its kernels ran), are left out of the overview as the plugin does
// (`inOverview` false); they stay in the step list. A trace without ProfilerStep gives one
// step over its host events.
//
// Step split (stepSplit, per step and summed): every instant of a step is given to the first
// of kernel, memcpy, memset, communication, runtime, data loading, CPU execution that is
// active then; the rest is "other" — the plugin's OverallParser. Kernel = GPU kernels that
// are not communication; communication = NCCL kernels and kernels of collective ops;
// runtime = CUDA runtime and driver calls; data loading = PyTorch's
// "enumerate(DataLoader)#...__next__" ops; CPU execution = operators, user annotations and
// Python frames.
//
// GPU utilisation = time any kernel runs on the device (merged) inside [first step start,
// last step end] / that span. Est. SM efficiency = the time-weighted min(1, sum of the
// running kernels' blocks per SM) over the same span. Est. achieved occupancy = the
// kernel-time-weighted mean of Kineto's "est. achieved occupancy %" (computed as Kineto
// computes it where the trace lacks it and gives the device's properties).
//
// The studio's per-step GPU figures (named apart from HTA's, which drop the last step and
// measure first to last kernel): inside each joined step, busy = any GPU work (kernels,
// memcpy, memset) merged, idle = step - busy, compute = non-communication kernels merged,
// communication = communication kernels merged, non-compute = busy - compute,
// overlap = communication time during which compute also runs. No Qt.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/gpu/gpu_trace.h"

namespace ts::analysis::gpu {

enum class SplitRole { Kernel, Memcpy, Memset, Communication, Runtime, DataLoader, CpuExec, Other };
inline constexpr size_t kSplitRoles = 8;
/// "kernel", "memcpy", "memset", "communication", "runtime", "data_loading", "cpu_exec",
/// "other".
const char* splitRoleKey(SplitRole r);
/// "Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader", "CPU Exec",
/// "Other" (the plugin's labels).
const char* splitRoleLabel(SplitRole r);
/// One sentence per role: what it counts.
const char* splitRoleHelp(SplitRole r);

struct StepDeviceFigures {  // the studio's own, inside one joined step
    int64_t busy = 0, idle = 0, compute = 0, communication = 0, nonCompute = 0, overlap = 0;
    int64_t memory = 0;  // memcpy + memset merged (part of non-compute)
};

struct GpuStep {
    int64_t number = 0;
    int64_t hostSliceId = 0, hostStart = 0, hostEnd = 0;
    int64_t deviceStart = -1, deviceEnd = -1;  // GPU work launched in the host step; -1 none
    int64_t launched = 0;                      // GPU rows launched in it
    int64_t annotationSliceId = 0;             // PyTorch's gpu_user_annotation of the step
    int64_t annotationStart = -1, annotationEnd = -1;
    int64_t start = 0, end = 0;  // the joined step
    bool inOverview = true;      // false: the plugin leaves it out (see above)
    std::array<int64_t, kSplitRoles> split{};
    StepDeviceFigures device;
    int64_t duration() const { return end - start; }
};

struct DeviceFigures {
    int64_t device = 0;
    std::string name;  // from deviceProperties
    double utilization = 0;
    std::optional<double> smEfficiency;  // needs blocks per SM (Kineto's or computed)
    std::optional<double> occupancy;     // 0..1
    int64_t kernelTime = 0;              // kernels inside the span, merged
};

struct TensorCoreFigures {
    int64_t kernelTime = 0;        // all kernels (sum of durations)
    int64_t tensorCoreTime = 0;    // kernels that use Tensor Cores
    int64_t eligibleOpTime = 0;    // kernels launched by Tensor Core eligible ops
    int64_t eligibleOpTcTime = 0;  // ... of those, using Tensor Cores
};

struct GpuOverview {
    bool hasGpu = false;
    std::vector<GpuStep> steps;                     // by start
    bool stepsFromProfilerSteps = true;             // false: one step over the host events
    int64_t spanStart = 0, spanEnd = 0;             // first to last overview step
    std::array<int64_t, kSplitRoles> splitTotal{};  // over the overview steps
    int64_t overviewSteps = 0;
    std::vector<DeviceFigures> devices;
    TensorCoreFigures tensorCores;
    StepDeviceFigures deviceTotal;  // studio's per-step figures summed over every step
};

GpuOverview computeGpuOverview(const GpuTrace& g);

}  // namespace ts::analysis::gpu
