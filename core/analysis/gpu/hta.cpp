#include "core/analysis/gpu/hta.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <unordered_map>

namespace ts::analysis::gpu {
namespace {

/// One row of HTA's data frame: an event with its (rounded) times.
struct Row {
    int64_t ts = 0, end = 0;
    int64_t nameId = 0, stream = -1, correlation = -1, trackId = 0;
    int32_t depth = 0;
    int32_t activity = -1;    // index into GpuTrace::activities
    int32_t host = -1;        // index into GpuTrace::host
    int32_t annotation = -1;  // index into GpuTrace::annotations
    int64_t dur() const { return end - ts; }
};

/// The double a JSON parser makes of the trace's microseconds for `ns` (the decimal text
/// "<us>.<3 digits>" read by strtod, correctly rounded as Python's float() is): epoch
/// nanoseconds exceed 2^53, so ns / 1000.0 would not be the same number.
double microsAsParsed(int64_t ns) {
    char b[48];
    const bool neg = ns < 0;
    const uint64_t a = neg ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
    std::snprintf(b, sizeof b, "%s%llu.%03llu", neg ? "-" : "",
                  static_cast<unsigned long long>(a / 1000),
                  static_cast<unsigned long long>(a % 1000));
    return std::strtod(b, nullptr);
}

bool isHtaProfilerStep(std::string_view n) {
    constexpr std::string_view p = "ProfilerStep#";
    return n.size() > p.size() && n.substr(0, p.size()) == p && n[p.size()] >= '0' &&
           n[p.size()] <= '9';
}

/// HTA's merge_kernel_intervals: sorted by start (ties: longer first), a row opens a new
/// interval when it starts after every end before it; an interval spans its rows' minimum
/// start and maximum end (a negative row stays negative when it is alone).
std::vector<std::pair<int64_t, int64_t>> htaMerge(std::vector<std::pair<int64_t, int64_t>> v) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<std::pair<int64_t, int64_t>> out;
    bool any = false;
    int64_t cummax = 0;
    for (const auto& [s, e] : v) {
        if (!any || s > cummax) {
            out.emplace_back(s, e);
        } else {
            out.back().first = std::min(out.back().first, s);
            out.back().second = std::max(out.back().second, e);
        }
        cummax = any ? std::max(cummax, e) : e;
        any = true;
    }
    std::sort(out.begin(), out.end());
    return out;
}

int64_t mergedSum(const std::vector<std::pair<int64_t, int64_t>>& m) {
    int64_t s = 0;
    for (const auto& [a, b] : m) s += b - a;
    return s;
}

}  // namespace

const char* htaKernelTypeName(HtaKernelType t) {
    switch (t) {
        case HtaKernelType::Communication:
            return "COMMUNICATION";
        case HtaKernelType::Memory:
            return "MEMORY";
        case HtaKernelType::Computation:
            return "COMPUTATION";
    }
    return "COMPUTATION";
}

HtaKernelType htaKernelType(std::string_view name) {
    if (name.find("ncclKernel") != std::string_view::npos) return HtaKernelType::Communication;
    if (name.find("Memcpy") != std::string_view::npos ||
        name.find("Memset") != std::string_view::npos)
        return HtaKernelType::Memory;
    return HtaKernelType::Computation;
}

double roundPct(double x) {
    if (!std::isfinite(x)) return x;
    char b[64];
    std::snprintf(b, sizeof b, "%.2f", x);
    return std::strtod(b, nullptr);
}

Distribution describe(std::vector<double> v) {
    Distribution d;
    d.count = static_cast<int64_t>(v.size());
    if (v.empty()) return d;
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    d.mean = sum / static_cast<double>(v.size());
    if (v.size() > 1) {
        double ss = 0;
        for (double x : v) ss += (x - d.mean) * (x - d.mean);
        d.std = std::sqrt(ss / static_cast<double>(v.size() - 1));
    }
    auto q = [&](double p) {
        const double pos = p * static_cast<double>(v.size() - 1);
        const auto lo = static_cast<size_t>(std::floor(pos));
        const size_t hi = std::min(lo + 1, v.size() - 1);
        return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
    };
    d.min = v.front();
    d.max = v.back();
    d.p25 = q(0.25);
    d.p50 = q(0.50);
    d.p75 = q(0.75);
    return d;
}

HtaResult computeHta(const GpuTrace& g, const HtaOptions& opt) {
    HtaResult r;
    r.consecutiveKernelDelayNs = opt.consecutiveKernelDelayNs;
    if (g.activities.empty()) {
        r.note = "no GPU rows in this trace";
        return r;
    }
    r.applicable = true;
    r.rounded = opt.roundTimestamps.value_or(g.sourceKind == "chrome_json");
    auto times = [&](int64_t ts, int64_t dur) -> std::pair<int64_t, int64_t> {
        if (!r.rounded) return {ts, ts + dur};
        const double t = microsAsParsed(ts), d = microsAsParsed(dur);
        return {static_cast<int64_t>(std::ceil(t)) * 1000,
                static_cast<int64_t>(std::floor(t + d)) * 1000};
    };

    // HTA's rows: GPU rows (stream >= 0 and correlation >= 0, or a device sync by name) and
    // CPU rows (every other event with a duration).
    std::vector<Row> gpuRows, cpuRows;
    std::set<std::string_view> stepNames;
    for (size_t i = 0; i < g.activities.size(); ++i) {
        const DeviceActivity& a = g.activities[i];
        Row row;
        std::tie(row.ts, row.end) = times(a.ts, a.dur);
        row.nameId = a.nameId;
        row.stream = a.stream;
        row.correlation = a.correlation;
        row.trackId = a.trackId;
        row.activity = static_cast<int32_t>(i);
        const std::string& n = g.name(a);
        if (isHtaProfilerStep(n)) stepNames.insert(n);
        if ((a.stream >= 0 && a.correlation >= 0) || n == "Event Sync" || n == "Context Sync")
            gpuRows.push_back(row);
        else
            cpuRows.push_back(row);
    }
    for (size_t i = 0; i < g.host.size(); ++i) {
        const HostEvent& h = g.host[i];
        Row row;
        std::tie(row.ts, row.end) = times(h.ts, h.dur);
        row.nameId = h.nameId;
        row.correlation = h.correlation;
        row.stream = h.stream;
        row.trackId = h.trackId;
        row.depth = h.depth;
        row.host = static_cast<int32_t>(i);
        if (isHtaProfilerStep(g.name(h))) stepNames.insert(g.name(h));
        cpuRows.push_back(row);
    }
    for (size_t i = 0; i < g.annotations.size(); ++i) {
        const GpuAnnotation& a = g.annotations[i];
        Row row;
        std::tie(row.ts, row.end) = times(a.ts, a.dur);
        row.nameId = a.nameId;
        row.trackId = a.trackId;
        row.depth = a.depth;
        row.annotation = static_cast<int32_t>(i);
        if (isHtaProfilerStep(g.str(a.nameId))) stepNames.insert(g.str(a.nameId));
        cpuRows.push_back(row);
    }
    r.profilerSteps = static_cast<int64_t>(stepNames.size());

    // The filter.
    std::vector<Row> keptGpu, keptCpu;
    if (r.profilerSteps >= 2) {
        r.filtered = true;
        int64_t lastStart = INT64_MIN, lastEnd = INT64_MIN, cpuMin = INT64_MAX, cpuMax = INT64_MIN;
        for (const Row& c : cpuRows) {
            cpuMin = std::min(cpuMin, c.ts);
            cpuMax = std::max(cpuMax, c.end);
            if (isHtaProfilerStep(g.str(c.nameId))) {
                lastStart = std::max(lastStart, c.ts);
                lastEnd = std::max(lastEnd, c.end);
            }
        }
        if (lastStart == INT64_MIN) {
            lastStart = cpuMin;
            lastEnd = cpuMax;
        }
        r.lastStepStartNs = lastStart;
        std::unordered_map<int64_t, int64_t> corrCount;
        for (const Row& c : cpuRows) {
            const bool keep = opt.includeLastProfilerStep ? c.ts <= lastEnd : c.ts < lastStart;
            if (!keep) continue;
            keptCpu.push_back(c);
            if (c.correlation != -1) ++corrCount[c.correlation];
            if (c.host >= 0 && isHtaProfilerStep(g.str(c.nameId))) {
                if (auto n = std::strtoll(g.str(c.nameId).c_str() + 13, nullptr, 10); n >= 0)
                    r.stepsKept.push_back(n);
            }
        }
        for (const Row& k : gpuRows) {
            auto it = corrCount.find(k.correlation);
            if (it == corrCount.end()) continue;
            for (int64_t i = 0; i < it->second; ++i) keptGpu.push_back(k);
        }
        std::sort(r.stepsKept.begin(), r.stepsKept.end());
        r.stepsKept.erase(std::unique(r.stepsKept.begin(), r.stepsKept.end()), r.stepsKept.end());
        r.note = "HTA keeps GPU work launched before the last profiler step starts";
    } else {
        keptGpu = gpuRows;
        keptCpu = cpuRows;
        r.note = r.profilerSteps == 1 ? "one ProfilerStep: HTA keeps every event"
                                      : "no ProfilerStep: HTA keeps every event";
    }

    // HTA's "gpu kernels": kept rows with a stream.
    std::vector<Row> kernels;
    for (const Row& k : keptGpu)
        if (k.stream != -1) kernels.push_back(k);
    for (const Row& c : keptCpu)
        if (c.stream != -1) kernels.push_back(c);
    int64_t allGpu = 0;
    for (const Row& k : gpuRows)
        if (k.stream != -1) ++allGpu;
    for (const Row& c : cpuRows)
        if (c.stream != -1) ++allGpu;
    int64_t keptCpuStreams = 0;
    for (const Row& c : keptCpu)
        if (c.stream != -1) ++keptCpuStreams;
    r.gpuRowsKept = static_cast<int64_t>(kernels.size());
    r.gpuRowsDropped =
        std::max<int64_t>(0, allGpu - static_cast<int64_t>(keptGpu.size()) - keptCpuStreams);
    if (kernels.empty()) {
        r.note += "; no GPU row is left";
        return r;
    }

    // Temporal breakdown and overlap.
    std::vector<std::pair<int64_t, int64_t>> all, comp, comm;
    for (const Row& k : kernels) {
        all.emplace_back(k.ts, k.end);
        switch (htaKernelType(g.str(k.nameId))) {
            case HtaKernelType::Computation:
                comp.emplace_back(k.ts, k.end);
                break;
            case HtaKernelType::Communication:
                comm.emplace_back(k.ts, k.end);
                break;
            case HtaKernelType::Memory:
                break;
        }
    }
    const auto mAll = htaMerge(all), mComp = htaMerge(comp), mComm = htaMerge(comm);
    HtaTemporal& t = r.temporal;
    t.kernelTimeNs = mAll.back().second - mAll.front().first;
    t.idleNs = t.kernelTimeNs - mergedSum(mAll);
    t.computeNs = mComp.empty() ? 0 : mergedSum(mComp);
    t.nonComputeNs = t.kernelTimeNs - t.computeNs - t.idleNs;
    if (t.kernelTimeNs != 0) {
        const auto kt = static_cast<double>(t.kernelTimeNs);
        t.idlePct = roundPct(100.0 * (static_cast<double>(t.idleNs) / kt));
        t.computePct = roundPct(100.0 * (static_cast<double>(t.computeNs) / kt));
        t.nonComputePct = roundPct(100.0 * (static_cast<double>(t.nonComputeNs) / kt));
    }
    if (!mComm.empty()) {
        // A sweep over +1 (communication) and +2 (computation) levels: time at level 3.
        std::vector<std::pair<int64_t, int>> ev;
        for (const auto& [a, b] : mComm) {
            ev.emplace_back(a, 1);
            ev.emplace_back(b, -1);
        }
        for (const auto& [a, b] : mComp) {
            ev.emplace_back(a, 2);
            ev.emplace_back(b, -2);
        }
        std::stable_sort(ev.begin(), ev.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        int level = 0;
        int64_t overlap = 0;
        for (size_t i = 0; i < ev.size(); ++i) {
            level += ev[i].second;
            if (level == 3 && i + 1 < ev.size()) overlap += ev[i + 1].first - ev[i].first;
        }
        const int64_t commTime = mergedSum(mComm);
        if (commTime != 0) {
            r.commCompOverlap = static_cast<double>(overlap) / static_cast<double>(commTime);
            r.commCompOverlapPct = roundPct(100.0 * *r.commCompOverlap);
        }
    }

    // Idle time per stream.
    auto launchTs = [&](const Row& k) -> std::optional<int64_t> {
        if (k.activity < 0) return std::nullopt;
        const int32_t l = g.activities[static_cast<size_t>(k.activity)].launch;
        if (l < 0) return std::nullopt;
        const HostEvent& h = g.host[static_cast<size_t>(l)];
        const auto [ts, end] = times(h.ts, h.dur);
        (void)end;
        if (r.filtered && !(opt.includeLastProfilerStep ? true : ts < r.lastStepStartNs))
            return std::nullopt;
        return ts;
    };
    std::map<int64_t, std::vector<const Row*>> byStream;
    for (const Row& k : kernels) byStream[k.stream].push_back(&k);
    for (auto& [stream, rows] : byStream) {
        std::stable_sort(rows.begin(), rows.end(), [](const Row* a, const Row* b) {
            return a->ts != b->ts ? a->ts < b->ts : a->end > b->end;
        });
        HtaIdleStream s;
        s.stream = stream;
        for (size_t i = 1; i < rows.size(); ++i) {
            const int64_t prevEnd = rows[i - 1]->end;
            const int64_t gap = rows[i]->ts - prevEnd;
            const auto lt = launchTs(*rows[i]);
            if (lt && *lt > prevEnd)
                s.hostWaitNs += gap;
            else if (gap < opt.consecutiveKernelDelayNs)
                s.kernelWaitNs += gap;
            else
                s.otherNs += gap;
        }
        const int64_t total = s.hostWaitNs + s.kernelWaitNs + s.otherNs;
        if (total != 0) {
            s.hostWaitRatio = static_cast<double>(s.hostWaitNs) / static_cast<double>(total);
            s.kernelWaitRatio = static_cast<double>(s.kernelWaitNs) / static_cast<double>(total);
            s.otherRatio = static_cast<double>(s.otherNs) / static_cast<double>(total);
        }
        r.idle.push_back(s);
    }

    // Queue length per stream and launch statistics.
    static const std::set<std::string_view> kQueueLaunches = {
        "cudaLaunchKernel",    "cudaLaunchKernelExC",
        "cuLaunchKernel",      "cuLaunchKernelEx",
        "cudaMemcpyAsync",     "cudaMemsetAsync",
        "hipLaunchKernel",     "hipExtModuleLaunchKernel",
        "hipMemcpyAsync",      "hipMemsetAsync",
        "hipMemcpyWithStream", "runFunction - job_prep_and_submit_for_execution"};
    static const std::set<std::string_view> kStatLaunches = {
        "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync",
        "runFunction - job_prep_and_submit_for_execution"};
    std::unordered_map<int64_t, const Row*> gpuByCorrelation;
    for (const Row& k : kernels)
        if (k.activity >= 0 && k.correlation >= 0) gpuByCorrelation.emplace(k.correlation, &k);
    struct QueuePoint {
        int64_t ts;
        int order;  // 0 launch, 1 GPU row
        int delta;
    };
    std::map<int64_t, std::vector<QueuePoint>> queue;
    std::vector<double> cpuDur, gpuDur, delay, latency;
    for (const Row& c : keptCpu) {
        if (c.host < 0 || c.correlation < 0) continue;
        const std::string& n = g.str(c.nameId);
        auto it = gpuByCorrelation.find(c.correlation);
        if (it == gpuByCorrelation.end()) continue;
        const Row& k = *it->second;
        if (kQueueLaunches.count(n)) {
            queue[k.stream].push_back({c.ts, 0, +1});
            queue[k.stream].push_back({k.ts, 1, -1});
        }
        if (kStatLaunches.count(n)) {
            cpuDur.push_back(static_cast<double>(c.dur()));
            gpuDur.push_back(static_cast<double>(k.dur()));
            delay.push_back(static_cast<double>(k.ts - c.ts + c.dur()));
            latency.push_back(static_cast<double>(k.ts - c.end));
            if (c.dur() > 50'000) ++r.launch.runtimeOutliers;
            if (k.ts - c.ts + c.dur() > 100'000) ++r.launch.launchDelayOutliers;
            if (c.dur() <= 50'000 && k.dur() < c.dur()) ++r.launch.shortKernels;
        }
    }
    r.launch.launches = static_cast<int64_t>(cpuDur.size());
    r.launch.cpuDurationNs = describe(std::move(cpuDur));
    r.launch.gpuDurationNs = describe(std::move(gpuDur));
    r.launch.launchDelayNs = describe(std::move(delay));
    r.launch.latencyNs = describe(std::move(latency));
    for (auto& [stream, pts] : queue) {
        std::stable_sort(pts.begin(), pts.end(), [](const QueuePoint& a, const QueuePoint& b) {
            return a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
        });
        HtaQueueStream q;
        q.stream = stream;
        int64_t level = 0;
        std::vector<double> values;
        for (const QueuePoint& p : pts) {
            level += p.delta;
            values.push_back(static_cast<double>(level));
            q.series.emplace_back(p.ts, level);
        }
        q.length = describe(std::move(values));
        r.queue.push_back(std::move(q));
    }

    // Memory bandwidth.
    struct BwPoint {
        int64_t ts;
        int order;  // 0 end, 1 start
        double delta;
    };
    std::map<std::string, std::vector<BwPoint>> bw;
    std::map<std::string, int64_t> bwRows;
    for (const Row& k : kernels) {
        const std::string& n = g.str(k.nameId);
        if (htaKernelType(n) != HtaKernelType::Memory) continue;
        std::string type;
        if (n.compare(0, 6, "Memset") == 0)
            type = "Memset";
        else if (n.compare(0, 6, "Memcpy") != 0)
            type = "Memcpy Unknown";
        else
            type = n.substr(0, 11);
        double gbps = 0;
        if (k.activity >= 0) {
            const double v = g.activities[static_cast<size_t>(k.activity)].bandwidthGBs;
            gbps = v >= 0 ? v : 0;
        }
        const int64_t dur = k.dur() == 0 ? (r.rounded ? 1000 : 1) : k.dur();
        bw[type].push_back({k.ts, 1, gbps});
        bw[type].push_back({k.ts + dur, 0, -gbps});
        ++bwRows[type];
    }
    for (auto& [type, pts] : bw) {
        std::stable_sort(pts.begin(), pts.end(), [](const BwPoint& a, const BwPoint& b) {
            return a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
        });
        HtaMemoryBandwidth m;
        m.name = type;
        m.rows = bwRows[type];
        double level = 0;
        std::vector<double> positive;
        for (const BwPoint& p : pts) {
            level += p.delta;
            const double v = level < 0 ? 0 : level;
            m.series.emplace_back(p.ts, v);
            if (v > 0) positive.push_back(v);
        }
        m.gbps = describe(std::move(positive));
        r.memory.push_back(std::move(m));
    }

    // User annotation per kernel: the deepest kept GPU annotation on the kernel's row.
    std::map<int64_t, std::vector<const Row*>> annByTrack;
    for (const Row& c : keptCpu)
        if (c.annotation >= 0) annByTrack[c.trackId].push_back(&c);
    std::map<std::string, HtaAnnotation> byName;
    for (const Row& k : kernels) {
        const Row* best = nullptr;
        auto it = annByTrack.find(k.trackId);
        if (it != annByTrack.end()) {
            const int64_t kEnd = std::max(k.end, k.ts + 1);
            for (const Row* a : it->second) {
                if (!(a->ts < kEnd && k.ts < a->end)) continue;
                if (!best || a->depth > best->depth ||
                    (a->depth == best->depth && a->dur() < best->dur()))
                    best = a;
            }
        }
        const std::string name = best ? g.str(best->nameId) : std::string();
        HtaAnnotation& a = byName[name];
        a.name = name;
        ++a.kernels;
        a.kernelNs += k.dur();
        if (best) ++r.annotatedKernels;
    }
    for (auto& [name, a] : byName) r.annotations.push_back(std::move(a));
    std::stable_sort(
        r.annotations.begin(), r.annotations.end(),
        [](const HtaAnnotation& x, const HtaAnnotation& y) { return x.kernelNs > y.kernelNs; });
    return r;
}

}  // namespace ts::analysis::gpu
