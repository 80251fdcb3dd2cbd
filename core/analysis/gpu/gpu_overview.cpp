#include "core/analysis/gpu/gpu_overview.h"

#include <algorithm>
#include <climits>
#include <map>
#include <tuple>

#include "core/analysis/gpu/intervals.h"
#include "core/analysis/gpu/kernel_rules.h"
#include "core/analysis/gpu/occupancy.h"
#include "core/analysis/gpu/profiler_step.h"

namespace ts::analysis::gpu {
namespace {

struct RuntimeSpan {
    int64_t start, end;
    int64_t deviceStart = INT64_MAX, deviceEnd = INT64_MIN, devices = 0;
};

/// Host steps, and which activities their runtime calls launched (the plugin's two-way
/// merge: a call counts for a step when it lies wholly inside it).
void joinSteps(const GpuTrace& g, GpuOverview& o) {
    std::vector<size_t> stepIdx;
    for (size_t i = 0; i < g.host.size(); ++i)
        if (g.host[i].kind != HostKind::Python && profilerStepNumber(g.name(g.host[i])))
            stepIdx.push_back(i);
    std::sort(stepIdx.begin(), stepIdx.end(),
              [&](size_t a, size_t b) { return g.host[a].ts < g.host[b].ts; });
    for (size_t i : stepIdx) {
        const HostEvent& h = g.host[i];
        GpuStep s;
        s.number = *profilerStepNumber(g.name(h));
        s.hostSliceId = h.sliceId;
        s.hostStart = h.ts;
        s.hostEnd = h.end();
        o.steps.push_back(s);
    }
    if (o.steps.empty()) {
        o.stepsFromProfilerSteps = false;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (const HostEvent& h : g.host)
            if (h.kind == HostKind::CpuOp || h.kind == HostKind::UserAnnotation ||
                h.kind == HostKind::Python) {
                lo = std::min(lo, h.ts);
                hi = std::max(hi, h.end());
            }
        if (lo == INT64_MAX) {
            for (const DeviceActivity& a : g.activities) {
                lo = std::min(lo, a.ts);
                hi = std::max(hi, a.end());
            }
        }
        if (lo == INT64_MAX) return;
        GpuStep s;
        s.hostStart = lo;
        s.hostEnd = hi;
        o.steps.push_back(s);
    }
    for (GpuStep& s : o.steps)
        for (const GpuAnnotation& a : g.annotations)
            if (auto n = profilerStepNumber(g.str(a.nameId));
                n && *n == s.number && o.stepsFromProfilerSteps) {
                s.annotationSliceId = a.sliceId;
                s.annotationStart = a.ts;
                s.annotationEnd = a.end();
                break;
            }

    // Runtime calls in start order, each with the span of the GPU rows it launched.
    std::vector<RuntimeSpan> runtimes;
    std::map<int32_t, size_t> runtimeOfHost;
    for (size_t i = 0; i < g.host.size(); ++i) {
        const HostEvent& h = g.host[i];
        if (h.kind != HostKind::Runtime && h.kind != HostKind::Driver) continue;
        runtimeOfHost[static_cast<int32_t>(i)] = runtimes.size();
        runtimes.push_back({h.ts, h.end()});
    }
    std::vector<int32_t> activityRuntime(g.activities.size(), -1);
    for (size_t k = 0; k < g.activities.size(); ++k) {
        const DeviceActivity& a = g.activities[k];
        if (a.launch < 0) continue;
        auto it = runtimeOfHost.find(a.launch);
        if (it == runtimeOfHost.end()) continue;
        RuntimeSpan& r = runtimes[it->second];
        r.deviceStart = std::min(r.deviceStart, a.ts);
        r.deviceEnd = std::max(r.deviceEnd, a.end());
        ++r.devices;
        activityRuntime[k] = static_cast<int32_t>(it->second);
    }
    std::vector<size_t> order(runtimes.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return runtimes[a].start < runtimes[b].start; });
    std::vector<char> matchedRuntime(runtimes.size(), 0);
    size_t ir = 0;
    bool anyDevice = false;
    for (GpuStep& s : o.steps) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        while (ir < order.size()) {
            const RuntimeSpan& r = runtimes[order[ir]];
            if (r.start < s.hostStart) {
                ++ir;
            } else if (r.end <= s.hostEnd) {
                if (r.devices > 0) {
                    lo = std::min(lo, r.deviceStart);
                    hi = std::max(hi, r.deviceEnd);
                    s.launched += r.devices;
                    matchedRuntime[order[ir]] = 1;
                    anyDevice = true;
                }
                ++ir;
            } else if (r.start < s.hostEnd) {
                ++ir;
            } else {
                break;
            }
        }
        if (lo != INT64_MAX) {
            s.deviceStart = lo;
            s.deviceEnd = hi;
        }
    }
    for (GpuStep& s : o.steps) {
        s.start = s.hostStart;
        s.end = s.hostEnd;
    }
    if (anyDevice) {
        int64_t prevEnd = o.steps.front().hostStart;
        if (o.steps.front().deviceStart >= 0) {
            for (size_t k = 0; k < g.activities.size(); ++k) {
                const int32_t r = activityRuntime[k];
                if (r >= 0 && matchedRuntime[static_cast<size_t>(r)]) continue;
                if (g.activities[k].end() < o.steps.front().deviceStart)
                    prevEnd = std::max(prevEnd, g.activities[k].end());
            }
        }
        for (GpuStep& s : o.steps) {
            s.start = std::max(prevEnd, s.hostStart);
            s.end = s.deviceStart < 0 ? std::max(s.hostEnd, s.start)
                                      : std::max({s.hostEnd, s.deviceEnd, s.start});
            prevEnd = s.end;
        }
        if (o.steps.size() > 1) {
            size_t i = o.steps.size();
            while (i > 0 && o.steps[i - 1].launched == 0) --i;
            if (i > 0) {
                size_t keep = i;
                const size_t last = i - 1;
                if (last > 0 && static_cast<double>(o.steps[last - 1].launched) * 0.8 >
                                    static_cast<double>(o.steps[last].launched))
                    keep = last;
                for (size_t k = keep; k < o.steps.size(); ++k) o.steps[k].inOverview = false;
            }
        }
    }
}

struct Roles {
    std::array<Intervals, kSplitRoles - 1> ranges;  // all but Other
    Intervals gpuAll, compute, communication, memory;
};

Roles roleRanges(const GpuTrace& g) {
    Roles r;
    for (const DeviceActivity& a : g.activities) {
        const Interval iv{a.ts, a.end()};
        switch (a.kind) {
            case ActivityKind::Kernel:
                if (a.communication) {
                    r.ranges[static_cast<size_t>(SplitRole::Communication)].push_back(iv);
                    r.communication.push_back(iv);
                } else {
                    r.ranges[static_cast<size_t>(SplitRole::Kernel)].push_back(iv);
                    r.compute.push_back(iv);
                }
                r.gpuAll.push_back(iv);
                break;
            case ActivityKind::Memcpy:
                r.ranges[static_cast<size_t>(SplitRole::Memcpy)].push_back(iv);
                r.memory.push_back(iv);
                r.gpuAll.push_back(iv);
                break;
            case ActivityKind::Memset:
                r.ranges[static_cast<size_t>(SplitRole::Memset)].push_back(iv);
                r.memory.push_back(iv);
                r.gpuAll.push_back(iv);
                break;
            case ActivityKind::Sync:
                break;
        }
    }
    for (const HostEvent& h : g.host) {
        const Interval iv{h.ts, h.end()};
        const std::string& n = g.name(h);
        switch (h.kind) {
            case HostKind::Runtime:
            case HostKind::Driver:
                r.ranges[static_cast<size_t>(SplitRole::Runtime)].push_back(iv);
                break;
            case HostKind::CpuOp:
            case HostKind::UserAnnotation:
            case HostKind::Python:
                if (profilerStepNumber(n)) break;
                if (isDataLoaderOpName(n))
                    r.ranges[static_cast<size_t>(SplitRole::DataLoader)].push_back(iv);
                else
                    r.ranges[static_cast<size_t>(SplitRole::CpuExec)].push_back(iv);
                break;
            case HostKind::Other:
                break;
        }
    }
    for (auto& v : r.ranges) v = mergeIntervals(std::move(v));
    r.gpuAll = mergeIntervals(std::move(r.gpuAll));
    r.compute = mergeIntervals(std::move(r.compute));
    r.communication = mergeIntervals(std::move(r.communication));
    r.memory = mergeIntervals(std::move(r.memory));
    return r;
}

void splitStep(const Roles& r, GpuStep& s) {
    Intervals slots{{s.start, s.end}};
    if (s.end <= s.start) slots.clear();
    for (size_t i = 0; i + 1 < kSplitRoles; ++i) {
        const Intervals c = intersectIntervals(slots, r.ranges[i]);
        s.split[i] = sumIntervals(c);
        slots = subtractIntervals(slots, c);
    }
    s.split[kSplitRoles - 1] = sumIntervals(slots);
    StepDeviceFigures& d = s.device;
    d.busy = sumWithin(r.gpuAll, s.start, s.end);
    d.idle = std::max<int64_t>(0, s.duration() - d.busy);
    d.compute = sumWithin(r.compute, s.start, s.end);
    d.communication = sumWithin(r.communication, s.start, s.end);
    d.memory = sumWithin(r.memory, s.start, s.end);
    d.nonCompute = std::max<int64_t>(0, d.busy - d.compute);
    const Intervals step{{s.start, s.end}};
    d.overlap =
        sumIntervals(intersectIntervals(intersectIntervals(r.communication, step), r.compute));
}

/// Time-weighted min(1, sum of blocks per SM) over [lo, hi) (merge_ranges_with_value).
double smEfficiency(std::vector<std::tuple<int64_t, int64_t, double>> ranges, int64_t lo,
                    int64_t hi) {
    struct Point {
        int64_t t;
        int type;  // 0 start, 1 end
        double v;
    };
    std::vector<Point> pts;
    for (const auto& [a, b, v] : ranges) {
        pts.push_back({a, 0, v});
        pts.push_back({b, 1, v});
    }
    std::stable_sort(pts.begin(), pts.end(), [](const Point& x, const Point& y) {
        return x.t != y.t ? x.t < y.t : x.type < y.type;
    });
    double weighted = 0;
    if (pts.empty() || hi <= lo) return 0;
    int64_t last = pts.front().t;
    double value = pts.front().v;
    for (size_t i = 1; i < pts.size(); ++i) {
        const Point& p = pts[i];
        if (p.t > last && value > 0.0) {
            const int64_t a = std::max(last, lo), b = std::min(p.t, hi);
            if (b > a) weighted += std::min(value, 1.0) * static_cast<double>(b - a);
        }
        last = p.t;
        value += p.type == 0 ? p.v : -p.v;
    }
    return weighted / static_cast<double>(hi - lo);
}

void deviceFigures(const GpuTrace& g, GpuOverview& o) {
    std::map<int64_t, std::vector<const DeviceActivity*>> byDevice;
    for (const DeviceActivity& a : g.activities)
        if (a.kind == ActivityKind::Kernel) byDevice[std::max<int64_t>(0, a.device)].push_back(&a);
    const int64_t lo = o.spanStart, hi = o.spanEnd;
    for (const auto& [dev, kernels] : byDevice) {
        DeviceFigures f;
        f.device = dev;
        const DeviceProperties* props = deviceById(g.devices, dev);
        if (props) f.name = props->name;
        Intervals ranges;
        std::vector<std::tuple<int64_t, int64_t, double>> blocks;
        double occWeighted = 0;
        int64_t occTime = 0;
        for (const DeviceActivity* a : kernels) {
            ranges.push_back({a->ts, a->end()});
            double bps = a->blocksPerSm;
            double occ = a->occupancyPct >= 0 ? a->occupancyPct / 100.0 : -1;
            if ((bps < 0 || occ < 0) && props && a->grid[0] > 0 && a->block[0] > 0) {
                LaunchShape shape{a->grid[0],
                                  a->grid[1],
                                  a->grid[2],
                                  a->block[0],
                                  a->block[1],
                                  a->block[2],
                                  std::max<int64_t>(0, a->registers),
                                  std::max<int64_t>(0, a->sharedMemory)};
                if (auto r = computeOccupancy(*props, shape, OccupancyMode::Kineto)) {
                    if (bps < 0) bps = r->blocksPerSm;
                    if (occ < 0) occ = r->estimatedAchieved;
                }
            }
            if (bps > 0) blocks.emplace_back(a->ts, a->end(), bps);
            if (occ >= 0) {
                const int64_t s = std::max(a->ts, lo), e = std::min(a->end(), hi);
                if (e > s) {
                    occWeighted += occ * static_cast<double>(e - s);
                    occTime += e - s;
                }
            }
        }
        ranges = mergeIntervals(std::move(ranges));
        f.kernelTime = sumWithin(ranges, lo, hi);
        f.utilization =
            hi > lo ? static_cast<double>(f.kernelTime) / static_cast<double>(hi - lo) : 0;
        if (!blocks.empty()) f.smEfficiency = smEfficiency(std::move(blocks), lo, hi);
        if (occTime > 0) f.occupancy = occWeighted / static_cast<double>(occTime);
        o.devices.push_back(std::move(f));
    }
}

}  // namespace

const char* splitRoleKey(SplitRole r) {
    static constexpr const char* k[] = {"kernel",  "memcpy",       "memset",   "communication",
                                        "runtime", "data_loading", "cpu_exec", "other"};
    return k[static_cast<size_t>(r)];
}

const char* splitRoleLabel(SplitRole r) {
    static constexpr const char* k[] = {"Kernel",  "Memcpy",     "Memset",   "Communication",
                                        "Runtime", "DataLoader", "CPU Exec", "Other"};
    return k[static_cast<size_t>(r)];
}

const char* splitRoleHelp(SplitRole r) {
    switch (r) {
        case SplitRole::Kernel:
            return "a GPU kernel (not communication) runs";
        case SplitRole::Memcpy:
            return "no kernel runs, a memory copy does";
        case SplitRole::Memset:
            return "no kernel or copy runs, a memory set does";
        case SplitRole::Communication:
            return "only communication (NCCL) kernels run on the GPU";
        case SplitRole::Runtime:
            return "the GPU is idle while the host is inside a CUDA runtime or driver call";
        case SplitRole::DataLoader:
            return "the GPU is idle while the host waits for the DataLoader's next batch";
        case SplitRole::CpuExec:
            return "the GPU is idle while the host runs operators or Python";
        case SplitRole::Other:
            return "nothing above is active: neither the GPU nor a recorded host event";
    }
    return "";
}

GpuOverview computeGpuOverview(const GpuTrace& g) {
    GpuOverview o;
    o.hasGpu = g.hasGpuWork();
    joinSteps(g, o);
    const Roles roles = roleRanges(g);
    bool first = true;
    for (GpuStep& s : o.steps) {
        splitStep(roles, s);
        o.deviceTotal.busy += s.device.busy;
        o.deviceTotal.idle += s.device.idle;
        o.deviceTotal.compute += s.device.compute;
        o.deviceTotal.communication += s.device.communication;
        o.deviceTotal.nonCompute += s.device.nonCompute;
        o.deviceTotal.overlap += s.device.overlap;
        o.deviceTotal.memory += s.device.memory;
        if (!s.inOverview) continue;
        ++o.overviewSteps;
        for (size_t i = 0; i < kSplitRoles; ++i) o.splitTotal[i] += s.split[i];
        if (first) o.spanStart = s.start;
        first = false;
        o.spanEnd = s.end;
    }
    deviceFigures(g, o);
    for (const DeviceActivity& a : g.activities) {
        if (a.kind != ActivityKind::Kernel) continue;
        o.tensorCores.kernelTime += a.dur;
        if (a.tensorCore) o.tensorCores.tensorCoreTime += a.dur;
        const HostEvent* op = g.launchingOp(a);
        if (op && tensorCoreEligibleOp(g.name(*op))) {
            o.tensorCores.eligibleOpTime += a.dur;
            if (a.tensorCore) o.tensorCores.eligibleOpTcTime += a.dur;
        }
    }
    return o;
}

}  // namespace ts::analysis::gpu
