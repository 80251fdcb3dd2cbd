// trainscope-cli analyze SESSION: why the steps of a profile are slow — the step split
// (iteration gap, forward, backward, optimizer, tail; on GPU traces each step joined with
// the GPU work it launched), the GPU overview (utilisation, SM efficiency, occupancy, the
// TensorBoard plugin's step split, Tensor Cores, top kernels), HTA's breakdowns under HTA's
// definitions beside the studio's per-step figures, communication per collective, the memory
// peak with the allocations live at it, the overview naming the biggest cost, and advice for
// the device the trace is about, with evidence.
#include <charconv>
#include <cstdio>
#include <iostream>

#include "app/cli/session_open.h"
#include "core/analysis/profile/profile_report.h"
#include "core/common/units.h"
#include "core/timeline/time_axis.h"

namespace ts::cli {
namespace {

using timeline::formatDuration;

std::string d(int64_t ns) {
    return formatDuration(static_cast<double>(ns));
}

void printAscend(const analysis::gpu::AscendTables& t) {
    namespace gpu = analysis::gpu;
    const auto steps = gpu::ascendSteps(t, false);
    if (!steps.empty()) {
        std::cout << "Ascend step trace (step_trace_time.csv, us): step, computing, comm not "
                     "overlapped, overlapped, free, bubble\n";
        for (const auto& s : steps)
            std::cout << "  " << s.step << "  " << s.computing << "  " << s.commNotOverlapped
                      << "  " << s.overlapped << "  " << s.free << "  " << s.bubble << "\n";
    }
    for (const auto& c : gpu::summarizeAscendComm(t, false)) {
        std::cout << "  " << c.opType << " (" << c.group << "): " << c.calls << " calls, elapse "
                  << c.elapseMs << " ms, transit " << c.transitMs << " ms, wait " << c.waitMs
                  << " ms (wait ratio " << c.waitRatio << ")";
        for (const auto& [type, f] : c.links)
            std::cout << ", " << type << " " << f.bandwidthGBs << " GB/s";
        std::cout << "\n";
    }
    std::cout << "\n";
}

void printGpu(const analysis::gpu::GpuReport& g) {
    namespace gpu = analysis::gpu;
    const auto& o = g.overview;
    std::cout << "GPU (" << gpu::vendorKey(g.vendor) << "): " << g.kernels << " kernels, "
              << g.memcpys << " memcpy, " << g.memsets << " memset, " << g.launchesLinked
              << " linked to their launch\n";
    for (const auto& dev : o.devices) {
        std::cout << "  device " << dev.device << (dev.name.empty() ? "" : " (" + dev.name + ")")
                  << ": GPU utilisation " << formatShare(dev.utilization);
        if (dev.smEfficiency)
            std::cout << ", est. SM efficiency " << formatShare(*dev.smEfficiency);
        if (dev.occupancy) std::cout << ", est. achieved occupancy " << formatShare(*dev.occupancy);
        std::cout << "\n";
    }
    int64_t total = 0;
    for (int64_t v : o.splitTotal) total += v;
    if (total > 0) {
        std::cout << "  step split over " << o.overviewSteps
                  << " steps (TensorBoard plugin's overview):";
        for (size_t i = 0; i < gpu::kSplitRoles; ++i)
            std::cout << " " << gpu::splitRoleLabel(static_cast<gpu::SplitRole>(i)) << " "
                      << formatShare(static_cast<double>(o.splitTotal[i]) /
                                     static_cast<double>(total));
        std::cout << "\n";
    }
    const auto& tc = o.tensorCores;
    if (tc.kernelTime > 0)
        std::cout << "  Tensor Cores: "
                  << formatShare(static_cast<double>(tc.tensorCoreTime) /
                                 static_cast<double>(tc.kernelTime))
                  << " of kernel time"
                  << (tc.eligibleOpTime > 0
                          ? ", " +
                                formatShare(static_cast<double>(tc.eligibleOpTcTime) /
                                            static_cast<double>(tc.eligibleOpTime)) +
                                " of eligible ops' kernel time"
                          : "")
                  << "\n";
    std::cout << "  top kernels:\n";
    for (size_t i = 0; i < g.kernelTable.rows.size() && i < 5; ++i) {
        const auto& r = g.kernelTable.rows[i];
        std::cout << "    " << d(r.totalNs) << "  " << formatShare(r.share) << "  " << r.calls
                  << "x  " << (r.tensorCore ? "TC  " : "    ") << r.name.substr(0, 90)
                  << (r.op.empty() ? "" : "  <- " + r.op) << "\n";
    }
    const auto& h = g.hta;
    if (h.applicable && h.gpuRowsKept > 0) {
        std::cout << "  HTA (HTA's definitions: " << h.note << "; " << h.gpuRowsKept
                  << " GPU rows kept, " << h.gpuRowsDropped << " dropped):\n"
                  << "    temporal breakdown: idle " << h.temporal.idlePct << "%, compute "
                  << h.temporal.computePct << "%, non-compute " << h.temporal.nonComputePct
                  << "% of " << d(h.temporal.kernelTimeNs) << " (first to last kernel)\n";
        if (h.commCompOverlapPct)
            std::cout << "    comm-comp overlap: " << *h.commCompOverlapPct << "%\n";
        for (const auto& s : h.idle)
            std::cout << "    idle on stream " << s.stream << ": host wait "
                      << formatShare(s.hostWaitRatio) << ", kernel wait "
                      << formatShare(s.kernelWaitRatio) << ", other " << formatShare(s.otherRatio)
                      << "\n";
    }
    const auto& st = o.deviceTotal;
    int64_t span = 0;
    for (const auto& s : o.steps) span += s.duration();
    if (span > 0)
        std::cout << "  studio per step (every joined step, the last too): idle "
                  << formatShare(static_cast<double>(st.idle) / static_cast<double>(span))
                  << ", compute "
                  << formatShare(static_cast<double>(st.compute) / static_cast<double>(span))
                  << ", non-compute "
                  << formatShare(static_cast<double>(st.nonCompute) / static_cast<double>(span))
                  << " of " << d(span) << "\n";
    for (const auto& c : g.communication.collectives)
        std::cout << "  " << c.name << " (" << c.processGroup << ", " << c.dtype << ", "
                  << c.bytesPerCall << " B): " << c.calls << " calls, " << d(c.timeNs) << ", algbw "
                  << c.algbwGBs << " GB/s, busbw " << c.busbwGBs << " GB/s\n";
    std::cout << "\n";
}

void printText(const analysis::ProfileReport& r) {
    const auto& a = r.steps;
    std::cout << "Profile: source " << r.sourceId << " (" << r.sourceLabel << ")\n";
    std::cout << "Steps: " << a.steps.size() << ", split by " << a.splitLabel << "\n";
    const bool phases = a.split == analysis::StepSplit::Phases;
    char line[512];
    if (phases)
        std::snprintf(line, sizeof line, "%-8s %12s %12s %12s %12s %12s %12s %12s %12s  %s", "step",
                      "total", "iter gap", "forward", "backward", "optimizer", "callbacks", "other",
                      "tail", "flag");
    else
        std::snprintf(line, sizeof line, "%-8s %12s %12s %12s %12s %12s  %s", "step", "total",
                      "data load", "cpu ops", "other", "kernels", "flag");
    std::cout << line << "\n";
    for (const auto& s : a.steps) {
        const char* flag = s.warmup ? "warm-up" : s.slow ? "slow" : "";
        if (phases)
            std::snprintf(line, sizeof line, "#%-7lld %12s %12s %12s %12s %12s %12s %12s %12s  %s",
                          static_cast<long long>(s.number), d(s.dur).c_str(),
                          d(s.iterationGap).c_str(), d(s.forward).c_str(), d(s.backward).c_str(),
                          d(s.optimizer).c_str(), d(s.callbacks).c_str(), d(s.other).c_str(),
                          d(s.tail).c_str(), flag);
        else
            std::snprintf(line, sizeof line, "#%-7lld %12s %12s %12s %12s %12s  %s",
                          static_cast<long long>(s.number), d(s.dur).c_str(),
                          d(s.iterationGap).c_str(), d(s.cpuOps).c_str(), d(s.other).c_str(),
                          d(s.kernels).c_str(), flag);
        std::cout << line << "\n";
    }
    std::cout << "Median step " << formatDuration(a.medianNs) << ", slow above "
              << formatDuration(a.slowThresholdNs) << "\n";
    bool device = false;
    for (const auto& s : a.steps) device = device || s.gpuBusy >= 0;
    if (device) {
        std::snprintf(line, sizeof line, "%-8s %12s %14s %12s %12s", "step", "host", "device span",
                      "joined", "GPU busy");
        std::cout << line << "\n";
        for (const auto& s : a.steps) {
            std::snprintf(line, sizeof line, "#%-7lld %12s %14s %12s %12s",
                          static_cast<long long>(s.number), d(s.dur).c_str(),
                          s.deviceStart >= 0 ? d(s.deviceEnd - s.deviceStart).c_str() : "-",
                          d(s.joinedEnd - s.joinedStart).c_str(), d(s.gpuBusy).c_str());
            std::cout << line << "\n";
        }
    }
    std::cout << "\n";
    if (r.gpu) printGpu(*r.gpu);
    if (r.ascend) printAscend(*r.ascend);
    const auto& m = r.memory;
    if (!m.hasPeak) {
        std::cout << "Memory: no memory data in this profile\n\n";
    } else {
        std::cout << "Memory peak: " << static_cast<int64_t>(m.peakBytes) << " bytes at "
                  << m.peakTs << " ns (" << m.origin << "), pool peak "
                  << static_cast<int64_t>(m.poolPeakBytes) << " bytes; " << m.liveAtPeakCount
                  << " allocations live, " << m.liveAtPeakBytes << " bytes";
        if (m.untrackedAtPeakBytes > 0)
            std::cout << " (" << m.untrackedAtPeakBytes << " bytes from before the profile)";
        std::cout << "\n";
        for (const auto& l : m.topAtPeak)
            std::cout << "  " << l.bytes << " bytes  " << (l.op.empty() ? "?" : l.op) << "  "
                      << l.shape << "  " << l.tensor << "\n";
        std::cout << "\n";
    }
    if (r.overview) {
        std::cout << r.overview->title << "\n";
        for (const auto& [k, v] : r.overview->figures) std::cout << "  " << k << ": " << v << "\n";
        std::cout << "\n";
    }
    if (r.advice.empty()) std::cout << "Advice: no bottleneck above the thresholds\n";
    for (const auto& f : r.advice) {
        std::cout << "[" << analysis::adviceKindKey(f.kind) << ", " << f.device << "] " << f.title
                  << "\n  " << f.explanation << "\n";
        for (const auto& [k, v] : f.figures) std::cout << "  " << k << ": " << v << "\n";
        std::cout << "  evidence: " << f.evidence.size() << " slices, range [" << f.rangeStart
                  << ", " << f.rangeEnd << "] ns\n";
    }
}

void writeFinding(JsonWriter& w, const analysis::AdviceFinding& f) {
    w.StartObject();
    kv(w, "kind", std::string(analysis::adviceKindKey(f.kind)));
    kv(w, "title", f.title);
    kv(w, "explanation", f.explanation);
    kv(w, "share", f.share);
    kv(w, "threshold", f.threshold);
    kv(w, "cost_ns", f.costNs);
    w.Key("figures");
    w.StartObject();
    for (const auto& [k, v] : f.figures) kv(w, k.c_str(), v);
    w.EndObject();
    w.Key("evidence");
    w.StartArray();
    for (int64_t id : f.evidence) w.Int64(id);
    w.EndArray();
    w.Key("range_ns");
    w.StartArray();
    w.Int64(f.rangeStart);
    w.Int64(f.rangeEnd);
    w.EndArray();
    kv(w, "device", f.device);
    w.Key("glossary");
    w.StartObject();
    for (const auto& [k, v] : f.glossary) kv(w, k.c_str(), v);
    w.EndObject();
    w.EndObject();
}

void writeJson(JsonWriter& w, const analysis::ProfileReport& r) {
    const auto& a = r.steps;
    w.StartObject();
    kv(w, "source_id", r.sourceId);
    kv(w, "source_label", r.sourceLabel);
    kv(w, "split", std::string(a.split == analysis::StepSplit::Phases ? "phases" : "ops"));
    kv(w, "split_label", a.splitLabel);
    kv(w, "median_ns", a.medianNs);
    kv(w, "mad_ns", a.madNs);
    kv(w, "slow_threshold_ns", a.slowThresholdNs);
    w.Key("steps");
    w.StartArray();
    for (const auto& s : a.steps) {
        w.StartObject();
        kv(w, "number", s.number);
        kv(w, "slice_id", s.sliceId);
        kv(w, "ts", s.ts);
        kv(w, "dur", s.dur);
        kv(w, "iteration_gap", s.iterationGap);
        kv(w, "data_loading", s.dataLoading);
        kv(w, "forward", s.forward);
        kv(w, "backward", s.backward);
        kv(w, "optimizer", s.optimizer);
        kv(w, "callbacks", s.callbacks);
        kv(w, "other", s.other);
        kv(w, "tail", s.tail);
        kv(w, "cpu_ops", s.cpuOps);
        kv(w, "kernels", s.kernels);
        if (s.gpuBusy >= 0) {
            kv(w, "device_start", s.deviceStart);
            kv(w, "device_end", s.deviceEnd);
            kv(w, "joined_start", s.joinedStart);
            kv(w, "joined_end", s.joinedEnd);
            kv(w, "gpu_busy", s.gpuBusy);
        }
        w.Key("slow");
        w.Bool(s.slow);
        w.Key("warmup");
        w.Bool(s.warmup);
        w.EndObject();
    }
    w.EndArray();
    const auto& m = r.memory;
    w.Key("memory");
    w.StartObject();
    kv(w, "origin", m.origin);
    if (m.hasPeak) {
        kv(w, "peak_ts", m.peakTs);
        kv(w, "peak_bytes", m.peakBytes);
        kv(w, "pool_peak_bytes", m.poolPeakBytes);
        kv(w, "live_at_peak", m.liveAtPeakCount);
        kv(w, "live_bytes_at_peak", m.liveAtPeakBytes);
        kv(w, "untracked_bytes_at_peak", m.untrackedAtPeakBytes);
    }
    w.Key("top_allocations");
    w.StartArray();
    for (const auto& l : m.topAtPeak) {
        w.StartObject();
        kv(w, "bytes", l.bytes);
        kv(w, "op", l.op);
        kv(w, "shape", l.shape);
        kv(w, "tensor", l.tensor);
        kv(w, "ts", l.ts);
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    w.Key("overview");
    if (r.overview)
        writeFinding(w, *r.overview);
    else
        w.Null();
    w.Key("advice");
    w.StartArray();
    for (const auto& f : r.advice) writeFinding(w, f);
    w.EndArray();
    kv(w, "device", r.device);
    w.Key("ascend");
    if (r.ascend)
        analysis::gpu::writeAscendJson(w, *r.ascend);
    else
        w.Null();
    w.Key("gpu");
    if (r.gpu)
        analysis::gpu::writeGpuReportJson(w, *r.gpu);
    else
        w.Null();
    w.EndObject();
}

int runAnalyze(const Args& args) {
    std::optional<int64_t> source, run;
    if (args.has("source")) source = intOption(args, "source");
    if (args.has("run")) run = intOption(args, "run");
    if (source && run) throw CliError{"give --source or --run, not both"};
    auto store = openSession(args.positional[0], store::TraceStore::Mode::ReadOnly);
    auto r = analysis::analyzeProfile(*store, source, run);
    if (!r) throw CliError{r.error()};
    if (!args.json) {
        printText(r.value());
        return 0;
    }
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    writeJson(w, r.value());
    printJson(buf);
    return 0;
}

TS_CLI_COMMAND("analyze",
               "why the steps are slow: step split, memory peak and advice for a profile",
               "SESSION [--source N | --run N] [--json]",
               {{"source", true, "analyse this source (default: the newest profile)"},
                {"run", true, "analyse this run's profile"}},
               &runAnalyze, 1, 1);

}  // namespace
}  // namespace ts::cli
