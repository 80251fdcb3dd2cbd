// The step split of two profiles side by side, from each side's StepAnalysis (step_analysis.h)
// plus what a run diff needs beside it: communication, device kernels and device idle.
#include <algorithm>
#include <cmath>

#include "core/analysis/diff/diff_side.h"

namespace ts::analysis {
namespace {

struct Interval {
    int64_t a, b;
};

/// `v` as a sorted list of disjoint intervals.
std::vector<Interval> merged(std::vector<Interval> v) {
    std::sort(v.begin(), v.end(), [](const Interval& x, const Interval& y) { return x.a < y.a; });
    std::vector<Interval> out;
    for (const Interval& i : v) {
        if (i.b <= i.a) continue;
        if (!out.empty() && i.a <= out.back().b)
            out.back().b = std::max(out.back().b, i.b);
        else
            out.push_back(i);
    }
    return out;
}

/// Length of the part of [lo, hi) covered by the disjoint sorted intervals `m`.
int64_t covered(const std::vector<Interval>& m, int64_t lo, int64_t hi) {
    auto it = std::upper_bound(m.begin(), m.end(), lo,
                               [](int64_t t, const Interval& i) { return t < i.b; });
    int64_t total = 0;
    for (; it != m.end() && it->a < hi; ++it) total += std::min(hi, it->b) - std::max(lo, it->a);
    return total;
}

struct SideFigures {
    double gap = 0, forward = 0, backward = 0, optimizer = 0, callbacks = 0, cpuOps = 0, idle = 0,
           communication = 0, kernels = 0, deviceIdle = 0;
    bool hasDevice = false;
};

SideFigures figuresOf(const DiffSide& s, const DiffNames& names) {
    SideFigures f;
    const ProfileData& d = s.data;
    // Device ops and communication of the whole profile as unions of intervals; each step
    // counts the part inside its time range (kernels lag their launches).
    std::vector<Interval> device, comm;
    for (size_t i = 0; i < d.slices.size(); ++i) {
        if (s.lane[i] == OpLane::None) continue;
        const ProfileSlice& sl = d.slices[i];
        if (s.lane[i] == OpLane::Device) device.push_back({sl.ts, sl.end()}), f.hasDevice = true;
        if (names.communication(s.opName[i])) comm.push_back({sl.ts, sl.end()});
    }
    const auto dev = merged(std::move(device)), com = merged(std::move(comm));
    if (s.scope.empty()) {
        const double busy = static_cast<double>(covered(dev, s.spanStart, s.spanEnd));
        f.kernels = busy;
        f.communication = static_cast<double>(covered(com, s.spanStart, s.spanEnd));
        f.deviceIdle = f.hasDevice ? static_cast<double>(s.spanEnd - s.spanStart) - busy : 0;
        return f;
    }
    for (size_t k : s.scope) {
        const StepBreakdown& b = s.steps.steps[k];
        f.gap += static_cast<double>(b.iterationGap);
        f.forward += static_cast<double>(b.forward);
        f.backward += static_cast<double>(b.backward);
        f.optimizer += static_cast<double>(b.optimizer);
        f.callbacks += static_cast<double>(b.callbacks);
        f.cpuOps += static_cast<double>(b.cpuOps);
        f.idle += static_cast<double>(b.other);
        f.kernels += static_cast<double>(b.kernels);
        f.communication += static_cast<double>(covered(com, b.ts, b.ts + b.dur));
        if (f.hasDevice)
            f.deviceIdle += static_cast<double>(b.dur - covered(dev, b.ts, b.ts + b.dur));
    }
    const double n = s.perStep();
    for (double* v : {&f.gap, &f.forward, &f.backward, &f.optimizer, &f.callbacks, &f.cpuOps,
                      &f.idle, &f.kernels, &f.communication, &f.deviceIdle})
        *v /= n;
    return f;
}

}  // namespace

std::vector<DiffSplitPart> diffSplit(const DiffSide& a, const DiffSide& b, const DiffNames& names,
                                     std::string* explains) {
    const SideFigures fa = figuresOf(a, names), fb = figuresOf(b, names);
    struct Spec {
        const char* key;
        const char* label;
        double SideFigures::*field;
        bool disjoint;
    };
    static const Spec kSpecs[] = {
        {"iteration_gap", "iteration gap (data loading)", &SideFigures::gap, true},
        {"forward", "forward", &SideFigures::forward, true},
        {"backward", "backward", &SideFigures::backward, true},
        {"optimizer", "optimizer", &SideFigures::optimizer, true},
        {"callbacks", "callbacks", &SideFigures::callbacks, true},
        {"cpu_ops", "CPU ops", &SideFigures::cpuOps, true},
        {"idle", "idle (no phase or op)", &SideFigures::idle, true},
        {"communication", "communication", &SideFigures::communication, false},
        {"kernels", "device kernels (concurrent)", &SideFigures::kernels, false},
        {"device_idle", "device idle", &SideFigures::deviceIdle, false},
    };
    std::vector<DiffSplitPart> parts;
    for (const Spec& s : kSpecs) {
        const double va = fa.*s.field, vb = fb.*s.field;
        // Parts neither side has are left out; the partition keeps "idle" whenever it has steps.
        const bool keep =
            va != 0 || vb != 0 ||
            (std::string_view(s.key) == "idle" && !(a.scope.empty() && b.scope.empty()));
        if (keep) parts.push_back({s.key, s.label, {va, vb}, s.disjoint});
    }
    if (explains) {
        explains->clear();
        const double stepDelta = b.info.stepNs - a.info.stepNs;
        double best = 0;
        for (const auto& p : parts) {
            if (!p.disjoint) continue;
            const double delta = p.ns[1] - p.ns[0];
            // The part that moved most in the direction of the step's change.
            if (delta * stepDelta > 0 && std::fabs(delta) > best) {
                best = std::fabs(delta);
                *explains = p.key;
            }
        }
    }
    return parts;
}

}  // namespace ts::analysis
