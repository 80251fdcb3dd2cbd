// trainscope-cli stats SESSION: the op table PyTorch's profiler prints (key_averages()).
#include <charconv>
#include <cstdio>
#include <iostream>

#include "app/cli/session_open.h"
#include "core/timeline/op_stats.h"
#include "core/timeline/time_axis.h"

namespace ts::cli {
namespace {

std::string padded(std::string s, size_t width, bool right) {
    if (s.size() > width) s = s.substr(0, width - 1) + "~";
    const std::string pad(width - s.size(), ' ');
    return right ? pad + s : s + pad;
}

void printTable(const timeline::OpStats& st, bool shapes) {
    using timeline::formatDuration;
    std::cout << padded("Name", 48, false) << padded("Category", 16, false)
              << (shapes ? padded("Input shapes", 28, false) : "") << padded("Calls", 9, true)
              << padded("Self", 13, true) << padded("Total", 13, true) << padded("Avg", 13, true)
              << padded("Min", 13, true) << padded("Max", 13, true) << padded("% range", 9, true)
              << "\n";
    char pct[32];
    for (const auto& r : st.rows) {
        std::snprintf(pct, sizeof pct, "%.2f%%", r.percent);
        std::cout << padded(r.name, 48, false) << padded(r.category, 16, false)
                  << (shapes ? padded(r.inputShapes, 28, false) : "")
                  << padded(std::to_string(r.calls), 9, true)
                  << padded(formatDuration(static_cast<double>(r.selfNs)), 13, true)
                  << padded(formatDuration(static_cast<double>(r.totalNs)), 13, true)
                  << padded(formatDuration(r.avgNs), 13, true)
                  << padded(formatDuration(static_cast<double>(r.minNs)), 13, true)
                  << padded(formatDuration(static_cast<double>(r.maxNs)), 13, true)
                  << padded(pct, 9, true) << "\n";
    }
    std::cout << st.rows.size() << " rows, " << st.slices << " slices, range "
              << formatDuration(static_cast<double>(st.rangeEnd - st.rangeStart)) << " ["
              << st.rangeStart << ", " << st.rangeEnd << "] ns\n";
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
    int64_t top = -1;
    if (args.has("top")) {
        top = intOption(args, "top");
        if (top < 0) throw CliError{"--top must not be negative"};
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
        kv(w, "percent", r.percent);
        w.EndObject();
    }
    w.EndArray();
    w.Key("range_ns");
    w.StartArray();
    w.Int64(st.rangeStart);
    w.Int64(st.rangeEnd);
    w.EndArray();
    kv(w, "slices", st.slices);
    w.EndObject();
    printJson(buf);
    return 0;
}

TS_CLI_COMMAND("stats",
               "op statistics like PyTorch's key_averages(): calls, self, total, avg, min, max",
               "SESSION [--top N] [--by name|cat] [--step N] [--source N] [--run N] "
               "[--group-by-input-shape] [--json]",
               {{"top", true, "only the N rows with the most self time"},
                {"by", true, "group by op name (default) or category (cat)"},
                {"step", true, "only slices inside ProfilerStep#N"},
                {"source", true, "only this source's tracks"},
                {"run", true, "only this run's profile"},
                {"group-by-input-shape", false, "split rows by input shapes (args)"}},
               &runStats, 1, 1);

}  // namespace
}  // namespace ts::cli
