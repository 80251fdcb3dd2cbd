#include "core/analysis/profile/step_analysis.h"

#include <algorithm>
#include <cmath>

namespace ts::analysis {
namespace {

struct Interval {
    int64_t ts, end;
};

/// Kernel slices of every track, sorted by start, for overlap sums per step.
std::vector<Interval> kernelIntervals(const ProfileData& d) {
    std::vector<Interval> out;
    for (const auto& s : d.slices)
        if (isKernelCategory(d.category(s))) out.push_back({s.ts, s.end()});
    std::sort(out.begin(), out.end(),
              [](const Interval& a, const Interval& b) { return a.ts < b.ts; });
    return out;
}

int64_t overlapSum(const std::vector<Interval>& v, int64_t a, int64_t b, int64_t maxDur) {
    // Kernels starting before `a` can still overlap; look back by the longest kernel.
    auto it = std::lower_bound(v.begin(), v.end(), a - maxDur,
                               [](const Interval& i, int64_t t) { return i.ts < t; });
    int64_t sum = 0;
    for (; it != v.end() && it->ts < b; ++it) {
        const int64_t lo = std::max(a, it->ts), hi = std::min(b, it->end);
        if (hi > lo) sum += hi - lo;
    }
    return sum;
}

bool isPhaseName(const std::string& n) {
    return n == "DataLoading" || n == "Forward" || n == "Backward" || n == "Optimizer" ||
           n == "Callbacks";
}

void splitPhases(const ProfileData& d, size_t stepIndex, StepBreakdown& b) {
    const ProfileSlice& step = d.slices[stepIndex];
    int64_t firstForward = -1, lastBackwardEnd = -1;
    std::vector<const ProfileSlice*> loading;
    for (size_t j = stepIndex + 1; j < d.slices.size(); ++j) {
        const ProfileSlice& c = d.slices[j];
        if (c.trackId != step.trackId || c.ts >= step.end()) break;
        if (c.depth != step.depth + 1) continue;
        const std::string& n = d.name(c);
        if (n == "DataLoading") {
            b.dataLoading += c.dur;
            loading.push_back(&c);
        } else if (n == "Forward") {
            b.forward += c.dur;
            if (firstForward < 0) firstForward = c.ts;
        } else if (n == "Backward") {
            b.backward += c.dur;
            lastBackwardEnd = std::max(lastBackwardEnd, c.end());
        } else if (n == "Optimizer") {
            b.optimizer += c.dur;
        } else if (n == "Callbacks") {
            b.callbacks += c.dur;
        }
    }
    if (firstForward < 0) {
        b.iterationGap = b.dataLoading;
    } else {
        b.iterationGap = firstForward - step.ts;
        for (const ProfileSlice* l : loading)
            if (l->ts >= firstForward) b.iterationGap += l->dur;
    }
    b.tail = lastBackwardEnd < 0 ? 0 : std::max<int64_t>(0, step.end() - lastBackwardEnd);
    const int64_t used = b.iterationGap + b.forward + b.backward + b.optimizer + b.callbacks;
    b.other = std::max<int64_t>(0, b.dur - used);
    b.tailRest = b.callbacks + b.other;
}

void splitOps(const ProfileData& d, size_t stepIndex, StepBreakdown& b) {
    const ProfileSlice& step = d.slices[stepIndex];
    for (size_t j = stepIndex + 1; j < d.slices.size(); ++j) {
        const ProfileSlice& c = d.slices[j];
        if (c.trackId != step.trackId || c.ts >= step.end()) break;
        if (c.depth != step.depth + 1) continue;
        const int64_t dur = std::min(c.end(), step.end()) - c.ts;
        if (d.name(c).find("DataLoader") != std::string::npos)
            b.dataLoading += dur;
        else
            b.cpuOps += dur;
    }
    b.iterationGap = b.dataLoading;
    b.other = std::max<int64_t>(0, b.dur - b.iterationGap - b.cpuOps);
}

void flagSlowSteps(StepAnalysis& a) {
    auto& steps = a.steps;
    if (steps.size() >= 2) {
        std::vector<double> rest;
        for (size_t i = 1; i < steps.size(); ++i) rest.push_back(static_cast<double>(steps[i].dur));
        const double m = median(rest);
        steps[0].warmup = static_cast<double>(steps[0].dur) > kWarmupFactor * m;
    }
    std::vector<double> steady;
    for (const auto& s : steps)
        if (!s.warmup) steady.push_back(static_cast<double>(s.dur));
    a.medianNs = median(steady);
    std::vector<double> dev;
    for (double v : steady) dev.push_back(std::fabs(v - a.medianNs));
    a.madNs = median(dev);
    a.slowThresholdNs =
        a.medianNs + std::max(kSlowMadFactor * a.madNs, kSlowMinExcess * a.medianNs);
    if (steady.size() < 3) return;  // too few steps to call one an outlier
    for (auto& s : steps) s.slow = !s.warmup && static_cast<double>(s.dur) > a.slowThresholdNs;
}

}  // namespace

void attachDeviceSide(StepAnalysis& a, const gpu::GpuOverview& o) {
    if (!o.hasGpu || !o.stepsFromProfilerSteps) return;
    for (StepBreakdown& b : a.steps) {
        for (const gpu::GpuStep& s : o.steps) {
            if (s.number != b.number || s.hostSliceId != b.sliceId) continue;
            b.deviceStart = s.deviceStart;
            b.deviceEnd = s.deviceEnd;
            b.joinedStart = s.start;
            b.joinedEnd = s.end;
            b.gpuBusy = s.device.busy;
            break;
        }
    }
}

SteadyTotals steadyTotals(const StepAnalysis& a) {
    SteadyTotals t;
    for (const auto& s : a.steps) {
        if (s.warmup) continue;
        ++t.steps;
        t.dur += s.dur;
        t.iterationGap += s.iterationGap;
        t.forward += s.forward;
        t.backward += s.backward;
        t.optimizer += s.optimizer;
        t.tailRest += s.tailRest;
        t.cpuOps += s.cpuOps;
    }
    return t;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const double hi = v[mid];
    if (v.size() % 2) return hi;
    const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    return (lo + hi) / 2;
}

StepAnalysis analyzeSteps(const ProfileData& d) {
    StepAnalysis a;
    a.sourceId = d.sourceId;
    std::vector<size_t> stepIdx;
    bool phases = false;
    for (size_t i = 0; i < d.slices.size(); ++i) {
        const std::string& n = d.name(d.slices[i]);
        if (profilerStepNumber(n)) {
            // Kineto repeats each step on the GPU streams it used (gpu_user_annotation): the
            // host's range is the step.
            if (d.category(d.slices[i]) != "gpu_user_annotation") stepIdx.push_back(i);
        } else if (!phases && isPhaseName(n))
            phases = true;
    }
    a.split = phases ? StepSplit::Phases : StepSplit::Ops;
    a.splitLabel = phases ? "phases: iteration gap / forward / backward / optimizer / tail "
                            "(callbacks and the rest) (recorded run)"
                          : "CPU ops / data loading / other, kernels apart (imported trace "
                            "without phase slices)";
    const auto kernels = kernelIntervals(d);
    int64_t maxKernel = 0;
    for (const auto& k : kernels) maxKernel = std::max(maxKernel, k.end - k.ts);
    for (size_t i : stepIdx) {
        const ProfileSlice& s = d.slices[i];
        StepBreakdown b;
        b.number = *profilerStepNumber(d.name(s));
        b.sliceId = s.id;
        b.trackId = s.trackId;
        b.ts = s.ts;
        b.dur = s.dur;
        if (phases)
            splitPhases(d, i, b);
        else
            splitOps(d, i, b);
        b.kernels = overlapSum(kernels, s.ts, s.end(), maxKernel);
        a.steps.push_back(b);
    }
    std::stable_sort(a.steps.begin(), a.steps.end(),
                     [](const StepBreakdown& x, const StepBreakdown& y) { return x.ts < y.ts; });
    flagSlowSteps(a);
    return a;
}

}  // namespace ts::analysis
