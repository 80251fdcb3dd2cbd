#include "core/analysis/profile/advice.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>

#include "core/common/units.h"
#include "core/timeline/time_axis.h"

namespace ts::analysis {
namespace {

using timeline::formatDuration;

struct OpCall {
    size_t index;
    int64_t selfNs;
};

/// Self time of every op slice inside the steps (all op slices when there are no steps).
std::vector<OpCall> opCalls(const ProfileData& d, const StepAnalysis& a) {
    std::vector<std::pair<int64_t, int64_t>> steps;
    for (const auto& s : a.steps) steps.emplace_back(s.ts, s.ts + s.dur);
    std::sort(steps.begin(), steps.end());
    std::vector<int64_t> maxEnd;  // running max of step ends: a step covers t iff
    for (const auto& s : steps)   // maxEnd[last step starting <= t] > t
        maxEnd.push_back(maxEnd.empty() ? s.second : std::max(maxEnd.back(), s.second));
    auto inSteps = [&](int64_t ts) {
        if (steps.empty()) return true;
        auto it = std::upper_bound(steps.begin(), steps.end(), std::make_pair(ts, INT64_MAX));
        if (it == steps.begin()) return false;
        return maxEnd[static_cast<size_t>(it - steps.begin()) - 1] > ts;
    };
    std::vector<int64_t> childSum(d.slices.size(), 0);
    std::vector<size_t> stack;
    for (size_t i = 0; i < d.slices.size(); ++i) {
        const ProfileSlice& s = d.slices[i];
        if (i == 0 || d.slices[i - 1].trackId != s.trackId) stack.clear();
        while (!stack.empty() &&
               (d.slices[stack.back()].depth >= s.depth || d.slices[stack.back()].end() <= s.ts))
            stack.pop_back();
        if (!stack.empty()) childSum[stack.back()] += s.dur;
        stack.push_back(i);
    }
    std::vector<OpCall> out;
    for (size_t i = 0; i < d.slices.size(); ++i) {
        const ProfileSlice& s = d.slices[i];
        if (!isOpCategory(d.category(s)) || !inSteps(s.ts)) continue;
        out.push_back({i, std::max<int64_t>(0, s.dur - childSum[i])});
    }
    return out;
}

/// The step around `ts`, else [ts, end] itself.
std::pair<int64_t, int64_t> rangeAround(const StepAnalysis& a, int64_t ts, int64_t end) {
    for (const auto& s : a.steps)
        if (ts >= s.ts && ts < s.ts + s.dur) return {s.ts, s.ts + s.dur};
    return {ts, end};
}

void addEvidence(AdviceFinding& f, const ProfileData& d, const StepAnalysis& a,
                 const ProfileSlice& s) {
    f.evidence.push_back(s.id);
    std::string label = d.name(s);
    label += " (";
    label += formatDuration(static_cast<double>(s.dur));
    label += ')';
    for (const auto& st : a.steps)
        if (s.ts >= st.ts && s.ts < st.ts + st.dur) {
            label += " in ProfilerStep#";
            label += std::to_string(st.number);
            break;
        }
    f.evidenceLabels.push_back(std::move(label));
    f.evidenceRanges.push_back(rangeAround(a, s.ts, s.end()));
}

void setEvidence(AdviceFinding& f, const ProfileData& d, const StepAnalysis& a,
                 std::vector<OpCall> calls) {
    std::stable_sort(calls.begin(), calls.end(),
                     [](const OpCall& x, const OpCall& y) { return x.selfNs > y.selfNs; });
    if (calls.size() > kMaxEvidence) calls.resize(kMaxEvidence);
    for (const auto& c : calls) addEvidence(f, d, a, d.slices[c.index]);
    if (!calls.empty()) {
        const ProfileSlice& top = d.slices[calls.front().index];
        std::tie(f.rangeStart, f.rangeEnd) = rangeAround(a, top.ts, top.end());
    }
}

void opRules(const ProfileData& d, const StepAnalysis& a, std::vector<AdviceFinding>& out) {
    const auto calls = opCalls(d, a);
    int64_t total = 0, copyTotal = 0;
    std::map<std::string, int64_t> byName;
    for (const auto& c : calls) {
        const ProfileSlice& s = d.slices[c.index];
        total += c.selfNs;
        byName[d.name(s)] += c.selfNs;
        if (isCopyOp(d.name(s), d.category(s))) copyTotal += c.selfNs;
    }
    if (total <= 0) return;
    const auto top =
        std::max_element(byName.begin(), byName.end(),
                         [](const auto& x, const auto& y) { return x.second < y.second; });
    const double topShare = static_cast<double>(top->second) / static_cast<double>(total);
    if (topShare > kOpBottleneckShare) {
        AdviceFinding f;
        f.kind = AdviceKind::OpBottleneck;
        f.share = topShare;
        f.threshold = kOpBottleneckShare;
        f.costNs = top->second;
        f.title =
            "Op bottleneck: " + top->first + " takes " + formatShare(topShare) + " of op self time";
        f.explanation =
            "One op type dominates the self time of all ops: the step is bound by this "
            "operator. Build a single-op case of " +
            top->first +
            " with the shapes below and compare its time with the CPU or another device; "
            "if it is slow, replace it with an equivalent faster op (a workaround) or improve "
            "the op itself (a fix). Group the op statistics by input shape to find the shape "
            "that costs most.";
        f.glossary = {
            {"op bottleneck", "算子瓶颈"}, {"workaround", "规避方案"}, {"fix", "解决方案"}};
        f.figures = {{"op", top->first},
                     {"self time", formatDuration(static_cast<double>(top->second))},
                     {"all op self time", formatDuration(static_cast<double>(total))},
                     {"share", formatShare(topShare)},
                     {"threshold", formatShare(kOpBottleneckShare)}};
        std::vector<OpCall> ev;
        for (const auto& c : calls)
            if (d.name(d.slices[c.index]) == top->first) ev.push_back(c);
        setEvidence(f, d, a, std::move(ev));
        out.push_back(std::move(f));
    }
    const double copyShare = static_cast<double>(copyTotal) / static_cast<double>(total);
    if (copyShare > kCopyBottleneckShare) {
        AdviceFinding f;
        f.kind = AdviceKind::CopyBottleneck;
        f.share = copyShare;
        f.threshold = kCopyBottleneckShare;
        f.costNs = copyTotal;
        f.title = "Copy bottleneck: copies and contiguous conversions take " +
                  formatShare(copyShare) + " of op time";
        f.explanation =
            "Copies, non-contiguous to contiguous conversions and format conversions "
            "(Cast, TransData) take a large share of op time. View-type ops (View, Permute, "
            "Transpose) leave tensors non-contiguous and force a copy later: prefer compute "
            "ops over view ops where possible, set the initial format of weights to avoid "
            "repeated TransData, or speed up the contiguous conversion.";
        f.glossary = {{"copy bottleneck", "copy瓶颈"},
                      {"conversion to contiguous", "转连续"},
                      {"workaround", "规避方案"},
                      {"fix", "解决方案"}};
        f.figures = {{"copy time", formatDuration(static_cast<double>(copyTotal))},
                     {"all op self time", formatDuration(static_cast<double>(total))},
                     {"share", formatShare(copyShare)},
                     {"threshold", formatShare(kCopyBottleneckShare)}};
        std::vector<OpCall> ev;
        for (const auto& c : calls) {
            const ProfileSlice& s = d.slices[c.index];
            if (isCopyOp(d.name(s), d.category(s))) ev.push_back(c);
        }
        setEvidence(f, d, a, std::move(ev));
        out.push_back(std::move(f));
    }
}

void dataLoadingRule(const ProfileData& d, const StepAnalysis& a, std::vector<AdviceFinding>& out) {
    int64_t gap = 0, total = 0;
    const StepBreakdown* worst = nullptr;
    for (const auto& s : a.steps) {
        if (s.warmup) continue;
        gap += s.iterationGap;
        total += s.dur;
        if (!worst || s.iterationGap > worst->iterationGap) worst = &s;
    }
    if (total <= 0 || !worst) return;
    const double share = static_cast<double>(gap) / static_cast<double>(total);
    if (share <= kDataLoadingShare) return;
    AdviceFinding f;
    f.kind = AdviceKind::DataLoadingBottleneck;
    f.share = share;
    f.threshold = kDataLoadingShare;
    f.costNs = gap;
    f.title =
        "Data-loading bottleneck: the iteration gap is " + formatShare(share) + " of step time";
    f.explanation =
        "Each step waits for its next batch before the forward pass starts: the iteration gap "
        "between the start of a step and its forward pass is large, so the device idles while "
        "data is read and preprocessed. Use more data-loading workers, prefetch, cache or "
        "simplify the preprocessing, or move augmentation off the training thread.";
    f.glossary = {{"iteration gap", "迭代间隙"}};
    f.figures = {
        {"iteration gap (steady steps)", formatDuration(static_cast<double>(gap))},
        {"step time (steady steps)", formatDuration(static_cast<double>(total))},
        {"share", formatShare(share)},
        {"threshold", formatShare(kDataLoadingShare)},
        {"worst step", "#" + std::to_string(worst->number) + " (" +
                           formatDuration(static_cast<double>(worst->iterationGap)) + " gap)"}};
    std::vector<OpCall> ev;
    for (size_t i = 0; i < d.slices.size(); ++i) {
        const std::string& n = d.name(d.slices[i]);
        if (n == "DataLoading" || n.find("DataLoader") != std::string::npos)
            ev.push_back({i, d.slices[i].dur});
    }
    if (ev.empty()) {
        f.evidence.push_back(worst->sliceId);
        f.evidenceLabels.push_back("ProfilerStep#" + std::to_string(worst->number) + " (" +
                                   formatDuration(static_cast<double>(worst->dur)) + ")");
        f.evidenceRanges.emplace_back(worst->ts, worst->ts + worst->dur);
    } else {
        std::stable_sort(ev.begin(), ev.end(),
                         [](const OpCall& x, const OpCall& y) { return x.selfNs > y.selfNs; });
        if (ev.size() > kMaxEvidence) ev.resize(kMaxEvidence);
        for (const auto& c : ev) addEvidence(f, d, a, d.slices[c.index]);
    }
    f.rangeStart = worst->ts;
    f.rangeEnd = worst->ts + worst->dur;
    out.push_back(std::move(f));
}

void warmupRule(const StepAnalysis& a, std::vector<AdviceFinding>& out) {
    if (a.steps.empty() || !a.steps.front().warmup) return;
    const StepBreakdown& first = a.steps.front();
    AdviceFinding f;
    f.kind = AdviceKind::FirstStepWarmup;
    f.share = a.medianNs > 0 ? static_cast<double>(first.dur) / a.medianNs : 0;
    f.threshold = kWarmupFactor;
    f.costNs = std::max<int64_t>(0, first.dur - static_cast<int64_t>(a.medianNs));
    char factor[32];
    std::snprintf(factor, sizeof factor, "%.1fx", f.share);
    f.title = "First-step warm-up: step #" + std::to_string(first.number) + " takes " + factor +
              " the median step";
    f.explanation =
        "The first step includes one-time work — graph or op compilation, allocator and cache "
        "warm-up — so it is much slower than the steps after it. It is excluded from the "
        "steady-step figures. To speed it up, look at what compiles and avoid shapes or "
        "attributes that change between steps (they compile again); when profiling, skip the "
        "first steps with the schedule's wait/warmup.";
    f.glossary = {{"graph compilation", "网络编译"},
                  {"first step takes long", "第一个step耗时很长"},
                  {"compile bottleneck", "编译瓶颈"}};
    f.figures = {{"first step", formatDuration(static_cast<double>(first.dur))},
                 {"median of the rest", formatDuration(a.medianNs)},
                 {"ratio", factor},
                 {"threshold", "2.0x"}};
    f.evidence.push_back(first.sliceId);
    f.evidenceLabels.push_back("ProfilerStep#" + std::to_string(first.number) + " (" +
                               formatDuration(static_cast<double>(first.dur)) + ")");
    f.evidenceRanges.emplace_back(first.ts, first.ts + first.dur);
    f.rangeStart = first.ts;
    f.rangeEnd = first.ts + first.dur;
    out.push_back(std::move(f));
}

}  // namespace

const char* adviceKindKey(AdviceKind k) {
    switch (k) {
        case AdviceKind::OpBottleneck:
            return "op_bottleneck";
        case AdviceKind::CopyBottleneck:
            return "copy_bottleneck";
        case AdviceKind::DataLoadingBottleneck:
            return "data_loading_bottleneck";
        case AdviceKind::FirstStepWarmup:
            return "first_step_warmup";
        case AdviceKind::BiggestCost:
            return "biggest_cost";
        case AdviceKind::GpuIdle:
            return "gpu_idle";
        case AdviceKind::KernelBottleneck:
            return "kernel_bottleneck";
        case AdviceKind::OffTensorCores:
            return "off_tensor_cores";
        case AdviceKind::MemcpyBottleneck:
            return "memcpy_bottleneck";
        case AdviceKind::LaunchOverhead:
            return "launch_overhead";
        case AdviceKind::ExposedCommunication:
            return "exposed_communication";
        case AdviceKind::LowOccupancy:
            return "low_occupancy";
        case AdviceKind::FormatConversion:
            return "format_conversion";
    }
    return "unknown";
}

std::vector<OpSelfTime> opSelfTimes(const ProfileData& d, const StepAnalysis& a) {
    std::map<std::string, OpSelfTime> by;
    for (const auto& c : opCalls(d, a)) {
        const ProfileSlice& s = d.slices[c.index];
        OpSelfTime& o = by[d.name(s)];
        o.name = d.name(s);
        o.selfNs += c.selfNs;
        ++o.calls;
        o.copy = isCopyOp(d.name(s), d.category(s));
    }
    std::vector<OpSelfTime> out;
    for (auto& [n, o] : by) out.push_back(std::move(o));
    std::stable_sort(out.begin(), out.end(),
                     [](const OpSelfTime& x, const OpSelfTime& y) { return x.selfNs > y.selfNs; });
    return out;
}

std::string adviceDevice(const gpu::GpuTrace& g) {
    switch (g.vendor) {
        case gpu::Vendor::Nvidia:
            return "cuda";
        case gpu::Vendor::Amd:
            return "rocm";
        case gpu::Vendor::Ascend:
            return "ascend";
        case gpu::Vendor::Engine:
            return "engine";
        case gpu::Vendor::None:
        case gpu::Vendor::Unknown:
            break;
    }
    return "cpu";
}

std::vector<AdviceFinding> computeAdvice(const ProfileData& d, const StepAnalysis& a,
                                         const gpu::GpuReport* gpu, const std::string& device) {
    std::vector<AdviceFinding> out;
    const bool deviceRules = gpu && (device == "cuda" || device == "rocm" || device == "ascend");
    if (deviceRules)
        gpuAdvice(*gpu, a, device, out);
    else
        opRules(d, a, out);  // the host's ops are the cost only without device work
    dataLoadingRule(d, a, out);
    warmupRule(a, out);
    for (AdviceFinding& f : out)
        if (f.device.empty()) f.device = device;
    std::stable_sort(out.begin(), out.end(), [](const AdviceFinding& x, const AdviceFinding& y) {
        return x.costNs > y.costNs;
    });
    return out;
}

std::optional<AdviceFinding> costOverview(const ProfileData& d, const StepAnalysis& a,
                                          const gpu::GpuReport* gpu) {
    if (gpu && !gpu->kernelTable.rows.empty()) return gpuCostOverview(*gpu, a);
    const auto calls = opCalls(d, a);
    std::map<std::string, std::pair<int64_t, int64_t>> byName;  // self, calls
    int64_t total = 0;
    for (const auto& c : calls) {
        auto& e = byName[d.name(d.slices[c.index])];
        e.first += c.selfNs;
        ++e.second;
        total += c.selfNs;
    }
    if (byName.empty()) return std::nullopt;
    std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> ranked(byName.begin(),
                                                                            byName.end());
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& x, const auto& y) { return x.second.first > y.second.first; });
    const auto& top = ranked.front();
    const double share =
        total > 0 ? static_cast<double>(top.second.first) / static_cast<double>(total) : 0;
    AdviceFinding f;
    f.kind = AdviceKind::BiggestCost;
    f.share = share;
    f.costNs = top.second.first;
    f.title = "Biggest cost: " + top.first + ", " + formatShare(share) + " of op self time";
    f.explanation =
        "Where the time of the profile goes, whatever the rules' thresholds: the op types "
        "with the most self time (duration minus their children) and how the steady steps "
        "split into iteration gap, forward, backward, optimizer and the rest of the tail. The "
        "evidence lists the longest calls of the costliest op type.";
    f.glossary = {{"iteration gap", "迭代间隙"}, {"iteration tail", "迭代拖尾"}};
    for (size_t i = 0; i < ranked.size() && i < 5; ++i) {
        const auto& [name, v] = ranked[i];
        f.figures.emplace_back(
            "op #" + std::to_string(i + 1) + ": " + name,
            formatDuration(static_cast<double>(v.first)) + " self, " +
                formatShare(total > 0 ? static_cast<double>(v.first) / static_cast<double>(total)
                                      : 0) +
                ", " + std::to_string(v.second) + " calls");
    }
    const SteadyTotals st = steadyTotals(a);
    if (st.steps > 0 && st.dur > 0 && a.split == StepSplit::Phases) {
        const auto T = static_cast<double>(st.dur);
        f.figures.emplace_back("steady steps",
                               std::to_string(st.steps) + ", median " + formatDuration(a.medianNs));
        f.figures.emplace_back("iteration gap",
                               formatShare(static_cast<double>(st.iterationGap) / T));
        f.figures.emplace_back("forward", formatShare(static_cast<double>(st.forward) / T));
        f.figures.emplace_back("backward", formatShare(static_cast<double>(st.backward) / T));
        f.figures.emplace_back("optimizer", formatShare(static_cast<double>(st.optimizer) / T));
        f.figures.emplace_back("rest of the tail",
                               formatShare(static_cast<double>(st.tailRest) / T));
    }
    std::vector<OpCall> ev;
    for (const auto& c : calls)
        if (d.name(d.slices[c.index]) == top.first) ev.push_back(c);
    setEvidence(f, d, a, std::move(ev));
    return f;
}

}  // namespace ts::analysis
