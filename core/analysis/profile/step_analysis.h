#pragma once
// Step analysis: every ProfilerStep#N of a profile split the way MindSpore's step trace
// splits a step (../shared/seeds/001_*): iteration gap (迭代间隙: data loading and anything
// before the first Forward), forward, backward, and the tail (迭代拖尾: everything after the
// end of backward — optimizer, callbacks, the rest). Slow steps are flagged (> median +
// 3 MAD of the steady steps) and a first step much slower than the rest is flagged as
// warm-up (首个 step: compile, allocator warm-up).
// Profiles without phase slices (imported Kineto traces) are split into data loading
// (slices named like "DataLoader"), CPU ops (direct children of the step) and other, plus
// the device kernel time that overlaps the step (concurrent, so not part of the stack).
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/gpu/gpu_overview.h"
#include "core/analysis/profile/profile_data.h"

namespace ts::analysis {

/// A step is slow when dur > median + kSlowMadFactor * MAD of the steady steps and also
/// more than kSlowMinExcess above the median (so identical steps never flag each other).
inline constexpr double kSlowMadFactor = 3.0;
inline constexpr double kSlowMinExcess = 0.10;
/// The first step is warm-up when it takes more than this times the median of the rest.
inline constexpr double kWarmupFactor = 2.0;

enum class StepSplit {
    Phases,  // recorder layout: DataLoading/Forward/Backward/Optimizer/Callbacks slices
    Ops      // imported trace without phases: data loading / CPU ops / other
};

struct StepBreakdown {
    int64_t number = 0;
    int64_t sliceId = 0;
    int64_t trackId = 0;
    int64_t ts = 0;
    int64_t dur = 0;
    // Phases split (disjoint; sum to dur): gap + forward + backward + optimizer + callbacks +
    // other.
    int64_t iterationGap = 0;  // DataLoading + time from step start to the first Forward
    int64_t dataLoading = 0;   // DataLoading slices alone (part of iterationGap)
    int64_t forward = 0;
    int64_t backward = 0;
    int64_t optimizer = 0;
    int64_t callbacks = 0;
    int64_t other = 0;     // the rest of the step
    int64_t tail = 0;      // step end - end of the last Backward (includes optimizer, callbacks)
    int64_t tailRest = 0;  // callbacks + other: the bar segment "tail" beside the optimizer, so
                           // gap + forward + backward + optimizer + tailRest = dur
    // Ops split (StepSplit::Ops): iterationGap = dataLoading, cpuOps, other; kernels apart.
    int64_t cpuOps = 0;
    int64_t kernels = 0;  // device kernel time inside the step (any stream, summed)
    // The device side (GPU traces, from gpu::computeGpuOverview; attachDeviceSide): the GPU
    // work launched by the runtime calls inside this host step, first start to last end
    // (-1 when it launched none), and the step joined with it: from max(host start, the
    // previous joined step's end) to max(host end, device end). gpuBusy: GPU work inside the
    // joined step, merged (-1 without GPU data).
    int64_t deviceStart = -1, deviceEnd = -1;
    int64_t joinedStart = 0, joinedEnd = 0;
    int64_t gpuBusy = -1;
    bool slow = false;
    bool warmup = false;
};

struct StepAnalysis {
    int64_t sourceId = 0;
    StepSplit split = StepSplit::Phases;
    std::vector<StepBreakdown> steps;  // by start time
    double medianNs = 0;               // of the steady steps (all but a warm-up first step)
    double madNs = 0;                  // median absolute deviation of the same
    double slowThresholdNs = 0;
    /// Human label of the split, e.g. "phases (recorded run)" or "CPU ops / kernels
    /// (imported trace without phase slices)".
    std::string splitLabel;
};

/// Analyses the steps of `data`. A profile without ProfilerStep#N slices gives no steps.
/// PyTorch 2.x writes each step twice (a CPU user_annotation and a gpu_user_annotation):
/// the host's range is the step, so each number counts once.
StepAnalysis analyzeSteps(const ProfileData& data);

/// Fills the device side of each step from the GPU overview's joined steps (by number).
void attachDeviceSide(StepAnalysis& a, const gpu::GpuOverview& overview);

/// Sums over the steady steps (all but a warm-up first step).
struct SteadyTotals {
    int steps = 0;
    int64_t dur = 0, iterationGap = 0, forward = 0, backward = 0, optimizer = 0, tailRest = 0,
            cpuOps = 0;
};
SteadyTotals steadyTotals(const StepAnalysis& a);

/// Median of `v` (0 when empty); `v` is reordered.
double median(std::vector<double> v);

}  // namespace ts::analysis
