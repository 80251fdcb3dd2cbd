#pragma once
// HTA's analyses (Meta's HolisticTraceAnalysis), with HTA's definitions exactly, as its
// source defines them (hta/common/trace.py, trace_parser.py, trace_filter.py,
// hta/analyzers/breakdown_analysis.py, communication_analysis.py, cuda_kernel_analysis.py,
// trace_counters.py, hta/utils/utils.py; docs/DISTRIBUTED.md states each one):
//
// - Timestamps: a trace with fractional microseconds is rounded inward to whole
//   microseconds: start = ceil(ts), end = floor(ts + dur), dur = end - start (HTA's parser;
//   a sub-microsecond event can get a negative duration, which HTA keeps).
// - The rows: GPU rows are those with a stream >= 0 and a correlation id >= 0 (or named
//   "Event Sync" / "Context Sync"); every other row is a CPU row.
// - The filter (_filter_irrelevant_gpu_kernels), when the trace names two or more
//   ProfilerStep#N: "last step start" is the latest start of a CPU row named ProfilerStep#N
//   (the host step and PyTorch 2.x's gpu_user_annotation copy both count); CPU rows that
//   start at or after it are dropped, and a GPU row is kept only when a kept CPU row has its
//   correlation id (so HTA drops the last step and any GPU row whose launch is not in the
//   trace). include_last_profiler_step keeps CPU rows starting up to the last step's end.
// - Kernel types (get_kernel_type): COMMUNICATION when the name holds "ncclKernel", MEMORY
//   when it holds "Memcpy" or "Memset", else COMPUTATION.
// - Temporal breakdown: over the kept GPU rows with stream != -1, merged (a row joins the
//   interval before it when it starts at or before that one's end), kernel time = end of the
//   last merged interval - start of the first; idle = kernel time - merged time; compute =
//   merged COMPUTATION time; non-compute = kernel time - compute - idle. Percentages are
//   rounded to two decimals as HTA rounds them.
// - Communication-computation overlap = time when merged COMMUNICATION and merged
//   COMPUTATION intervals overlap / merged COMMUNICATION time.
// - Idle time breakdown, per stream: each kernel's gap to the end of the kernel before it
//   on its stream is host wait when its launch started after that end, else kernel wait
//   when the gap is under consecutive_kernel_delay (30 us by default), else other.
// - CUDA stream queue length: +1 at each launch (cudaLaunchKernel, cudaLaunchKernelExC,
//   cuLaunchKernel, cuLaunchKernelEx, cudaMemcpyAsync, cudaMemsetAsync, hip* equivalents)
//   whose GPU row is kept, -1 when that row starts; per stream, in time order.
// - Kernel launch statistics: per launch (cudaLaunchKernel, cudaLaunchKernelExC,
//   cudaMemcpyAsync, cudaMemsetAsync) and its GPU row: cpu duration, gpu duration and
//   launch_delay = gpu start - cpu start + cpu duration (HTA's formula, written so).
// - Memory bandwidth: MEMORY rows grouped by "Memset" / the first 11 characters of the name
//   ("Memcpy DtoH"); a time series that adds the row's "memory bandwidth (GB/s)" at its
//   start and takes it away at its end (a 0 us row lasts 1 us); statistics over the points
//   above 0.
// - User annotation per kernel: the deepest gpu_user_annotation on the kernel's own row
//   (stream) whose span overlaps the kernel; -1 (none) otherwise.
// Where HTA's pandas sort leaves the order of equal start times open, it is fixed here:
// the longer interval first; a launch before the GPU rows that start with it; a copy's end
// before another's start. Times are in nanoseconds (whole microseconds after rounding).
// No Qt.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/gpu/gpu_trace.h"

namespace ts::analysis::gpu {

struct HtaOptions {
    bool includeLastProfilerStep = false;
    int64_t consecutiveKernelDelayNs = 30'000;  // HTA's default: 30 (microseconds)
    /// Round inward to whole microseconds (HTA's parser). Default: for Kineto JSON sources.
    std::optional<bool> roundTimestamps;
};

enum class HtaKernelType { Communication, Memory, Computation };
/// "COMMUNICATION", "MEMORY", "COMPUTATION" (HTA's names).
const char* htaKernelTypeName(HtaKernelType t);
HtaKernelType htaKernelType(std::string_view name);

struct Distribution {  // pandas' describe(): sample std, linear-interpolated quartiles
    int64_t count = 0;
    double mean = 0, std = 0, min = 0, p25 = 0, p50 = 0, p75 = 0, max = 0;
};
Distribution describe(std::vector<double> values);

struct HtaTemporal {
    int64_t idleNs = 0, computeNs = 0, nonComputeNs = 0, kernelTimeNs = 0;
    double idlePct = 0, computePct = 0, nonComputePct = 0;  // rounded to 2 decimals
};

struct HtaIdleStream {
    int64_t stream = 0;
    int64_t hostWaitNs = 0, kernelWaitNs = 0, otherNs = 0;
    double hostWaitRatio = 0, kernelWaitRatio = 0, otherRatio = 0;
};

struct HtaQueueStream {
    int64_t stream = 0;
    Distribution length;
    std::vector<std::pair<int64_t, int64_t>> series;  // (time, queue length) at each change
};

struct HtaMemoryBandwidth {
    std::string name;   // "Memcpy DtoH", "Memcpy HtoD", "Memcpy DtoD", "Memset", ...
    Distribution gbps;  // over the points above 0
    int64_t rows = 0;
    std::vector<std::pair<int64_t, double>> series;  // (time, GB/s)
};

struct HtaLaunchStats {
    int64_t launches = 0;
    Distribution cpuDurationNs, gpuDurationNs, launchDelayNs;  // HTA's launch_delay
    Distribution latencyNs;           // the studio's: gpu start - (cpu start + cpu duration)
    int64_t runtimeOutliers = 0;      // cpu duration > 50 us (HTA's runtime_cutoff)
    int64_t launchDelayOutliers = 0;  // launch_delay > 100 us (HTA's launch_delay_cutoff)
    int64_t shortKernels = 0;         // cpu duration <= 50 us and gpu duration < cpu duration
};

struct HtaAnnotation {
    std::string name;  // "" for kernels under none (HTA's -1)
    int64_t kernels = 0;
    int64_t kernelNs = 0;
};

struct HtaResult {
    bool applicable = false;  // GPU rows present
    std::string note;         // why not, or what the filter did
    bool rounded = false;
    bool filtered = false;                        // the ProfilerStep filter ran
    int64_t profilerSteps = 0;                    // distinct ProfilerStep#N names
    int64_t lastStepStartNs = 0;                  // HTA's last_profiler_start
    int64_t gpuRowsKept = 0, gpuRowsDropped = 0;  // GPU rows (stream >= 0), after the filter
    std::vector<int64_t> stepsKept;  // step numbers whose host step starts before the cut
    HtaTemporal temporal;
    std::optional<double> commCompOverlap;     // ratio 0..1; nullopt without communication
    std::optional<double> commCompOverlapPct;  // rounded to 2 decimals
    std::vector<HtaIdleStream> idle;
    int64_t consecutiveKernelDelayNs = 0;
    std::vector<HtaQueueStream> queue;
    std::vector<HtaMemoryBandwidth> memory;
    HtaLaunchStats launch;
    std::vector<HtaAnnotation> annotations;  // largest kernel time first
    int64_t annotatedKernels = 0;            // kernels with an annotation
};

HtaResult computeHta(const GpuTrace& g, const HtaOptions& options = {});

/// Python's round(x, 2) for a percentage (correctly rounded, ties to even).
double roundPct(double x);

}  // namespace ts::analysis::gpu
