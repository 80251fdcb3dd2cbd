// trainscope-cli analyze SESSION: why the steps of a profile are slow — the step split
// (iteration gap, forward, backward, optimizer, tail), the memory peak with the allocations
// live at it, the overview naming the biggest cost, and the advice findings with evidence.
#include <charconv>
#include <cstdio>
#include <iostream>

#include "app/cli/session_open.h"
#include "core/analysis/profile/profile_report.h"
#include "core/timeline/time_axis.h"

namespace ts::cli {
namespace {

using timeline::formatDuration;

std::string d(int64_t ns) {
    return formatDuration(static_cast<double>(ns));
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
              << formatDuration(a.slowThresholdNs) << "\n\n";
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
        std::cout << "[" << analysis::adviceKindKey(f.kind) << "] " << f.title << "\n  "
                  << f.explanation << "\n";
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
