// trainscope-cli info SESSION: what a session holds.
#include <iostream>

#include "app/cli/session_open.h"

namespace ts::cli {
namespace {

int runInfo(const Args& args) {
    auto store = openSession(args.positional[0], store::TraceStore::Mode::ReadOnly);
    auto sources = store->sources();
    if (!sources) throw CliError{sources.error()};
    auto counts = store->tableCounts();
    if (!counts) throw CliError{counts.error()};
    auto range = store->timeRange();
    if (!range) throw CliError{range.error()};
    auto runs = store->runs();
    if (!runs) throw CliError{runs.error()};

    if (args.json) {
        rapidjson::StringBuffer buf;
        JsonWriter w(buf);
        w.StartObject();
        kv(w, "session", store->path());
        kv(w, "schema_version", int64_t{store->schemaVersion()});
        w.Key("sources");
        w.StartArray();
        for (const auto& s : sources.value()) {
            w.StartObject();
            kv(w, "id", s.id);
            kv(w, "path", s.path);
            kv(w, "kind", s.kind);
            kv(w, "status", store::statusName(s.status));
            w.Key("error");
            if (s.error.empty())
                w.Null();
            else
                w.String(s.error.c_str());
            kv(w, "events", s.events);
            kv(w, "slices", s.slices);
            kv(w, "skipped", s.skipped);
            w.Key("ts_min_ns");
            if (s.tsMin)
                w.Int64(*s.tsMin);
            else
                w.Null();
            w.Key("ts_max_ns");
            if (s.tsMax)
                w.Int64(*s.tsMax);
            else
                w.Null();
            w.Key("stats");
            w.RawValue(s.stats.c_str(), s.stats.size(), rapidjson::kObjectType);
            w.EndObject();
        }
        w.EndArray();
        w.Key("counts");
        w.StartObject();
        for (const auto& c : counts.value()) kv(w, c.table.c_str(), c.rows);
        w.EndObject();
        w.Key("time_range_ns");
        if (range.value()) {
            w.StartArray();
            w.Int64(range.value()->first);
            w.Int64(range.value()->second);
            w.EndArray();
        } else {
            w.Null();
        }
        w.Key("runs");
        w.StartArray();
        for (const auto& r : runs.value()) {
            w.StartObject();
            kv(w, "id", r.id);
            kv(w, "name", r.name);
            kv(w, "status", store::statusName(r.status));
            kv(w, "reason", r.reason);
            w.Key("config");
            w.RawValue(r.config.c_str(), r.config.size(), rapidjson::kObjectType);
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
        printJson(buf);
        return 0;
    }
    std::cout << "session  " << store->path() << " (schema v" << store->schemaVersion() << ")\n";
    std::cout << "sources  " << sources.value().size() << "\n";
    for (const auto& s : sources.value()) {
        std::cout << "  #" << s.id << " [" << store::statusName(s.status) << "] " << s.kind << " "
                  << s.path << "  " << s.events << " events, " << s.slices << " slices";
        if (s.skipped) std::cout << ", " << s.skipped << " skipped";
        if (!s.error.empty()) std::cout << "  (" << s.error << ")";
        std::cout << "\n";
    }
    std::cout << "rows\n";
    for (const auto& c : counts.value())
        if (c.rows) std::cout << "  " << c.table << ": " << c.rows << "\n";
    if (range.value())
        std::cout << "time     " << range.value()->first << " .. " << range.value()->second
                  << " ns (" << (range.value()->second - range.value()->first) / 1e6 << " ms)\n";
    std::cout << "runs     " << runs.value().size() << "\n";
    for (const auto& r : runs.value())
        std::cout << "  #" << r.id << " " << r.name << " [" << store::statusName(r.status) << "] "
                  << r.reason << "\n";
    return 0;
}

TS_CLI_COMMAND("info", "show what a session holds: sources, row counts, time range, runs",
               "SESSION [--json]", {}, &runInfo, 1, 1);

}  // namespace
}  // namespace ts::cli
