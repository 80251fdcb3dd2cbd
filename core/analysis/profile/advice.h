#pragma once
// Advice: rules that name the biggest costs of a profile, for the device the profile is
// about — CUDA (and ROCm) rules on GPU traces (the GPU idle while the host launches, one
// kernel dominating GPU time, matmuls off the Tensor Cores, copies, launch overhead,
// exposed communication, low occupancy), Ascend rules on Ascend traces (device idle, an AI
// Core kernel dominating, format conversions), and the host-op rules on the studio's engine
// and CPU-only traces in the porting guide's terms (../shared/seeds/003_*: op bottleneck,
// copy bottleneck; ../shared/seeds/001_*: iteration gap, first-step compile and warm-up).
// Each finding is plain English with its figures and the slices that prove it; the seeds'
// Chinese terms go to `glossary` (shown as a tooltip), never inline. Findings are sorted
// by the time they cost, largest first. No Qt.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/gpu/gpu_report.h"
#include "core/analysis/profile/profile_data.h"
#include "core/analysis/profile/step_analysis.h"

namespace ts::analysis {

/// Op bottleneck: one op type takes more than this share of all op self time.
inline constexpr double kOpBottleneckShare = 0.40;
/// Copy bottleneck: copies / contiguous / format conversions exceed this share of op time.
inline constexpr double kCopyBottleneckShare = 0.10;
/// Data-loading bottleneck: iteration gap exceeds this share of step time (steady steps).
inline constexpr double kDataLoadingShare = 0.20;
/// First-step warm-up: see kWarmupFactor in step_analysis.h (first step > 2x median).
/// Evidence lists keep at most this many slices (the longest first).
inline constexpr size_t kMaxEvidence = 20;

/// GPU rules (CUDA / ROCm traces; shares of the joined steps or of GPU kernel time).
/// The GPU is idle more than this share of the steps.
inline constexpr double kGpuIdleShare = 0.30;
/// One kernel (by name) takes more than this share of GPU kernel time.
inline constexpr double kKernelBottleneckShare = 0.40;
/// Kernels of Tensor Core eligible ops that do not use Tensor Cores: share of those ops'
/// kernel time, and at least this share of all kernel time.
inline constexpr double kOffTensorCoreShare = 0.50;
inline constexpr double kOffTensorCoreMinShare = 0.10;
/// Memory copies and sets take more than this share of the steps (the plugin's split).
inline constexpr double kMemcpyShare = 0.10;
/// Launch overhead: more than this share of launches take longer on the host than their
/// kernel on the GPU (HTA's "short kernels"), and runtime calls hold more than
/// kLaunchRuntimeShare of the steps.
inline constexpr double kShortKernelShare = 0.50;
inline constexpr double kLaunchRuntimeShare = 0.10;
/// Communication that compute does not hide takes more than this share of the steps.
inline constexpr double kExposedCommShare = 0.10;
/// Kernels (not Tensor Core ones) with est. achieved occupancy under kLowOccupancy take
/// more than kLowOccupancyShare of kernel time.
inline constexpr double kLowOccupancy = 0.25;
inline constexpr double kLowOccupancyShare = 0.30;
/// Ascend: format conversions (TransData, Cast, TransposeD, ...) take more than this share
/// of device time.
inline constexpr double kFormatConversionShare = 0.10;

enum class AdviceKind {
    OpBottleneck,
    CopyBottleneck,
    DataLoadingBottleneck,
    FirstStepWarmup,
    BiggestCost,  // not a rule: costOverview()'s summary, present whatever the thresholds
    GpuIdle,
    KernelBottleneck,
    OffTensorCores,
    MemcpyBottleneck,
    LaunchOverhead,
    ExposedCommunication,
    LowOccupancy,
    FormatConversion
};
/// Stable key: "op_bottleneck", "copy_bottleneck", "data_loading_bottleneck",
/// "first_step_warmup", "biggest_cost", "gpu_idle", "kernel_bottleneck",
/// "off_tensor_cores", "memcpy_bottleneck", "launch_overhead", "exposed_communication",
/// "low_occupancy", "format_conversion".
const char* adviceKindKey(AdviceKind k);

struct AdviceFinding {
    AdviceKind kind{};
    std::string title;        // e.g. "Op bottleneck: MatMul takes 62% of op self time"
    std::string explanation;  // what it means and what to try, in the seeds' terms
    double share = 0;         // the figure compared with the rule's threshold (0..1+)
    double threshold = 0;     // the rule's threshold
    int64_t costNs = 0;       // time attributed to the cause (used for ordering)
    std::vector<std::pair<std::string, std::string>> figures;  // label -> value
    std::vector<int64_t> evidence;                             // slice ids, longest first
    std::vector<std::string> evidenceLabels;                   // per evidence id: "name (duration)"
    std::vector<std::pair<int64_t, int64_t>> evidenceRanges;   // per evidence id: its step
    int64_t rangeStart = 0, rangeEnd = 0;                      // time range that shows the evidence
    std::string device;  // what it is about: cuda | rocm | ascend | engine | cpu
    /// The seeds' terms for what the finding names: English term -> the guide's (Chinese)
    /// term, for a tooltip or a glossary.
    std::vector<std::pair<std::string, std::string>> glossary;
};

/// The device a profile's advice is about: "cuda", "rocm", "ascend", "engine" (the studio's
/// own engine), "cpu" (a trace without device work).
std::string adviceDevice(const gpu::GpuTrace& g);

/// Op self time per op type (self = duration minus direct children on the same track),
/// over op slices (isOpCategory) inside steps (or everywhere when there are no steps).
struct OpSelfTime {
    std::string name;
    int64_t selfNs = 0;
    int64_t calls = 0;
    bool copy = false;
};
std::vector<OpSelfTime> opSelfTimes(const ProfileData& data, const StepAnalysis& steps);

/// Runs the rules of `device` (the GPU rules need `gpu`); empty when nothing passes its
/// threshold.
std::vector<AdviceFinding> computeAdvice(const ProfileData& data, const StepAnalysis& steps,
                                         const gpu::GpuReport* gpu = nullptr,
                                         const std::string& device = "cpu");

/// Where the time goes whatever the thresholds (kind BiggestCost). With GPU data: the kernel
/// with the most GPU time in the title, the top kernels and the steps' split as figures,
/// its longest calls as evidence. Else: the op type with the most self time, the top op
/// types and the steady steps' split, that op's longest calls. nullopt when the profile has
/// neither kernels nor op slices.
std::optional<AdviceFinding> costOverview(const ProfileData& data, const StepAnalysis& steps,
                                          const gpu::GpuReport* gpu = nullptr);

/// costOverview() of a profile with GPU kernels (gpu_advice.cpp).
AdviceFinding gpuCostOverview(const gpu::GpuReport& gpu, const StepAnalysis& steps);

/// The GPU rules alone (gpu_advice.cpp), appended to `out`.
void gpuAdvice(const gpu::GpuReport& gpu, const StepAnalysis& steps, const std::string& device,
               std::vector<AdviceFinding>& out);

}  // namespace ts::analysis
