#pragma once
// Small Chrome traces for the cluster tests, written as JSON files and imported with the
// importer the CLI uses: X events (times in µs) with pid/tid, process and thread names,
// process labels, and an optional distributedInfo.
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "core/common/job_control.h"
#include "core/store/trace_store.h"
#include "importers/registry.h"

namespace ts::test {

struct TraceEvent {
    std::string pid, tid;  // as JSON values: "1", "\"Stream 2\""
    double ts = 0, dur = 0;
    std::string name, cat;  // cat "" = none
};

struct TraceSpec {
    std::vector<TraceEvent> events;
    std::vector<std::pair<std::string, std::string>> processNames;  // pid -> name
    std::vector<std::pair<std::string, std::string>> processLabels;
    std::optional<int> rank;  // distributedInfo
    int worldSize = 2;
};

inline std::string jsonString(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

inline void writeTrace(const std::filesystem::path& path, const TraceSpec& spec) {
    std::ofstream f(path);
    f << "{\"schemaVersion\": 1";
    if (spec.rank)
        f << ", \"distributedInfo\": {\"backend\": \"gloo\", \"rank\": " << *spec.rank
          << ", \"world_size\": " << spec.worldSize << "}";
    f << ", \"traceEvents\": [\n";
    bool first = true;
    auto sep = [&] {
        if (!first) f << ",\n";
        first = false;
    };
    for (const auto& [pid, name] : spec.processNames) {
        sep();
        f << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pid
          << ",\"tid\":0,\"args\":{\"name\":" << jsonString(name) << "}}";
    }
    for (const auto& [pid, labels] : spec.processLabels) {
        sep();
        f << "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":" << pid
          << ",\"tid\":0,\"args\":{\"labels\":" << jsonString(labels) << "}}";
    }
    for (const TraceEvent& e : spec.events) {
        sep();
        f << "{\"ph\":\"X\",\"name\":" << jsonString(e.name) << ",\"pid\":" << e.pid
          << ",\"tid\":" << e.tid << ",\"ts\":" << e.ts << ",\"dur\":" << e.dur;
        if (!e.cat.empty()) f << ",\"cat\":" << jsonString(e.cat);
        f << "}";
    }
    f << "\n]}\n";
}

/// Imports `trace` into a new session `session`; throws on failure.
inline void importInto(const std::filesystem::path& session,
                       const std::vector<std::filesystem::path>& traces) {
    auto s = store::TraceStore::open(session.string(), store::TraceStore::Mode::Create);
    if (!s) throw std::runtime_error(s.error());
    for (const auto& t : traces) {
        JobControl jc;
        auto r = importers::importFile(t.string(), *s.value(), jc);
        if (r.status != ts::store::SourceStatus::Complete)
            throw std::runtime_error(t.string() + ": " + r.error);
    }
}

}  // namespace ts::test
