// trainscope-cli stats SESSION: the op table PyTorch's profiler prints (key_averages());
// with --samples the bottom-up table of the session's stack samples.
#include <charconv>
#include <cstdio>
#include <iostream>

#include "app/cli/session_open.h"
#include "core/common/units.h"
#include "core/timeline/op_stats.h"
#include "core/timeline/sample_stats.h"
#include "core/timeline/time_axis.h"

namespace ts::cli {
namespace {

/// `s` cut or padded to `width` characters (UTF-8: "µs" is one character wide, two bytes).
std::string padded(std::string s, size_t width, bool right) {
    if (displayWidth(s) > width) {
        size_t bytes = 0;
        for (size_t chars = 0; bytes < s.size() && chars < width - 1; ++chars) do
                ++bytes;
            while (bytes < s.size() && (static_cast<unsigned char>(s[bytes]) & 0xC0) == 0x80);
        s = s.substr(0, bytes) + "~";
    }
    const std::string pad(width - displayWidth(s), ' ');
    return right ? pad + s : s + pad;
}

void printTable(const timeline::OpStats& st, bool shapes) {
    using timeline::formatDuration;
    std::cout << padded("Name", 48, false) << padded("Category", 16, false)
              << (shapes ? padded("Input shapes", 28, false) : "") << padded("Calls", 9, true)
              << padded("Self", 13, true) << padded("Total", 13, true) << padded("Avg", 13, true)
              << padded("Min", 13, true) << padded("Max", 13, true) << padded("Self %", 9, true)
              << padded("Total %", 9, true) << "\n";
    char pct[32], totalPct[32];
    for (const auto& r : st.rows) {
        std::snprintf(pct, sizeof pct, "%.2f%%", r.selfPercent);
        std::snprintf(totalPct, sizeof totalPct, "%.2f%%", r.totalPercent);
        std::cout << padded(r.name, 48, false) << padded(r.category, 16, false)
                  << (shapes ? padded(r.inputShapes, 28, false) : "")
                  << padded(std::to_string(r.calls), 9, true)
                  << padded(formatDuration(static_cast<double>(r.selfNs)), 13, true)
                  << padded(formatDuration(static_cast<double>(r.totalNs)), 13, true)
                  << padded(formatDuration(r.avgNs), 13, true)
                  << padded(formatDuration(static_cast<double>(r.minNs)), 13, true)
                  << padded(formatDuration(static_cast<double>(r.maxNs)), 13, true)
                  << padded(pct, 9, true) << padded(totalPct, 9, true) << "\n";
    }
    std::cout << st.rows.size() << " rows, " << st.slices << " slices, range "
              << formatDuration(static_cast<double>(st.rangeEnd - st.rangeStart)) << " ["
              << st.rangeStart << ", " << st.rangeEnd << "] ns";
    if (st.traceSpans > 0)
        std::cout << "; " << st.traceSpans
                  << " trace-span annotation(s) left out (--include-trace-spans lists them)";
    std::cout << "\nSelf % is of the self time of all rows (it sums to 100 %); Total % is of the "
                 "range (nested and parallel calls make it sum past 100 %).\n";
}

// The bottom-up table of stack samples: self and total samples per function.
int runSampleStats(const Args& args, int64_t top) {
    timeline::SampleStatsOptions o;
    if (args.has("source")) o.sourceId = intOption(args, "source");
    auto store = openSession(args.positional[0], store::TraceStore::Mode::ReadOnly);
    auto result = timeline::computeSampleStats(*store, o);
    if (!result) throw CliError{result.error()};
    timeline::SampleStats& st = result.value();
    if (top >= 0 && static_cast<size_t>(top) < st.rows.size()) st.rows.resize(top);
    if (!args.json) {
        std::cout << padded("Function", 48, false) << padded("Module", 24, false)
                  << padded("Self", 10, true) << padded("Self %", 9, true)
                  << padded("Total", 10, true) << padded("Total %", 9, true) << "\n";
        char a[32], b[32];
        for (const auto& r : st.rows) {
            std::snprintf(a, sizeof a, "%.2f%%", r.selfPercent);
            std::snprintf(b, sizeof b, "%.2f%%", r.totalPercent);
            std::cout << padded(r.name, 48, false) << padded(r.category, 24, false)
                      << padded(std::to_string(r.self), 10, true) << padded(a, 9, true)
                      << padded(std::to_string(r.total), 10, true) << padded(b, 9, true) << "\n";
        }
        std::cout << st.rows.size() << " rows, " << st.samples << " samples (" << st.withoutStack
                  << " without a stack)\n";
        return 0;
    }
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.StartObject();
    w.Key("rows");
    w.StartArray();
    for (const auto& r : st.rows) {
        w.StartObject();
        kv(w, "name", r.name);
        kv(w, "category", r.category);
        kv(w, "self", r.self);
        kv(w, "self_percent", r.selfPercent);
        kv(w, "total", r.total);
        kv(w, "total_percent", r.totalPercent);
        w.EndObject();
    }
    w.EndArray();
    kv(w, "samples", st.samples);
    kv(w, "without_stack", st.withoutStack);
    w.EndObject();
    printJson(buf);
    return 0;
}

int runStats(const Args& args) {
    timeline::OpStatsOptions o;
    const std::string by = args.valueOr("by", "name");
    if (by == "cat" || by == "category")
        o.by = timeline::StatsGroupBy::Category;
    else if (by != "name")
        throw CliError{"--by must be 'name' or 'cat', got '" + by + "'"};
    if (args.has("step")) o.step = intOption(args, "step");
    if (args.has("source")) o.sourceId = intOption(args, "source");
    if (args.has("run")) o.runId = intOption(args, "run");
    o.groupByInputShape = args.has("group-by-input-shape");
    o.includeTraceSpans = args.has("include-trace-spans");
    int64_t top = -1;
    if (args.has("top")) {
        top = intOption(args, "top");
        if (top < 0) throw CliError{"--top must not be negative"};
    }
    if (args.has("samples")) {
        if (args.has("step") || args.has("run") || args.has("group-by-input-shape") ||
            args.has("by") || args.has("include-trace-spans"))
            throw CliError{"--samples takes --top and --source only"};
        return runSampleStats(args, top);
    }
    auto store = openSession(args.positional[0], store::TraceStore::Mode::ReadOnly);
    auto result = timeline::computeOpStats(*store, o);
    if (!result) throw CliError{result.error()};
    timeline::OpStats& st = result.value();
    if (top >= 0 && static_cast<size_t>(top) < st.rows.size()) st.rows.resize(top);

    if (!args.json) {
        printTable(st, o.groupByInputShape);
        return 0;
    }
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.StartObject();
    w.Key("rows");
    w.StartArray();
    for (const auto& r : st.rows) {
        w.StartObject();
        kv(w, "name", r.name);
        kv(w, "category", r.category);
        if (o.groupByInputShape) kv(w, "input_shapes", r.inputShapes);
        kv(w, "calls", r.calls);
        kv(w, "self_ns", r.selfNs);
        kv(w, "total_ns", r.totalNs);
        kv(w, "avg_ns", r.avgNs);
        kv(w, "min_ns", r.minNs);
        kv(w, "max_ns", r.maxNs);
        kv(w, "self_percent", r.selfPercent);
        kv(w, "total_percent", r.totalPercent);
        w.EndObject();
    }
    w.EndArray();
    w.Key("range_ns");
    w.StartArray();
    w.Int64(st.rangeStart);
    w.Int64(st.rangeEnd);
    w.EndArray();
    kv(w, "slices", st.slices);
    kv(w, "self_ns", st.selfNs);
    kv(w, "trace_spans_left_out", st.traceSpans);
    w.EndObject();
    printJson(buf);
    return 0;
}

TS_CLI_COMMAND("stats",
               "op statistics like PyTorch's key_averages(): calls, self, total, avg, min, max",
               "SESSION [--top N] [--by name|cat] [--step N] [--source N] [--run N] "
               "[--group-by-input-shape] [--include-trace-spans] [--samples] [--json]",
               {{"top", true, "only the N rows with the most self time"},
                {"by", true, "group by op name (default) or category (cat)"},
                {"step", true, "only slices inside ProfilerStep#N"},
                {"source", true, "only this source's tracks"},
                {"run", true, "only this run's profile"},
                {"group-by-input-shape", false, "split rows by input shapes (args)"},
                {"include-trace-spans", false,
                 "also list trace-span annotations (Kineto's \"PyTorch Profiler (0)\")"},
                {"samples", false,
                 "the bottom-up table of stack samples instead: self and total samples per "
                 "function"}},
               &runStats, 1, 1);

}  // namespace
}  // namespace ts::cli
