// CommandResult as JSON: the object `trainscope-cli launch --json` prints and runs.summary
// keeps for a command run (docs/RUNS.md lists the fields).
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>

#include "core/run/command_run.h"

namespace ts::run {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void str(Writer& w, const std::string& s) {
    w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
}
void kv(Writer& w, const char* k, const std::string& v) {
    w.Key(k);
    str(w, v);
}
void optInt(Writer& w, const char* k, const std::optional<int>& v) {
    w.Key(k);
    if (v)
        w.Int(*v);
    else
        w.Null();
}

}  // namespace

int CommandResult::shellExitCode() const {
    if (exitCode) return *exitCode;
    if (signal) return 128 + *signal;
    return status == "completed" ? 0 : 1;
}

std::string CommandResult::toJson() const {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.StartObject();
    w.Key("run");
    w.Int64(runId);
    kv(w, "status", status);
    optInt(w, "exit_code", exitCode);
    optInt(w, "signal", signal);
    kv(w, "reason", reason);
    w.Key("duration_s");
    w.Double(std::isfinite(durationS) ? std::round(durationS * 1000) / 1000 : 0.0);
    w.Key("log_lines");
    w.Int64(logLines);
    w.Key("scalars");
    w.StartObject();
    for (const auto& [tag, n] : scalars) {
        w.Key(tag.c_str(), static_cast<rapidjson::SizeType>(tag.size()));
        w.Int64(n);
    }
    w.EndObject();
    w.Key("traces_imported");
    w.StartArray();
    for (const TraceImportInfo& t : traces) {
        w.StartObject();
        kv(w, "path", t.path);
        w.Key("slices");
        w.Int64(t.slices);
        w.Key("source_id");
        w.Int64(t.sourceId);
        kv(w, "status", t.status);
        w.EndObject();
    }
    w.EndArray();
    w.Key("dumps");
    w.StartArray();
    for (const std::string& d : dumps) str(w, d);
    w.EndArray();
    w.Key("rdr");
    w.StartArray();
    for (const std::string& d : rdr) str(w, d);
    w.EndArray();
    w.Key("overflow_findings");
    w.Int64(overflowFindings);
    w.Key("processes");
    w.StartArray();
    for (const ProcessState& p : processes) {
        w.StartObject();
        w.Key("rank");
        w.Int(p.rank);
        w.Key("pid");
        w.Int64(p.pid);
        optInt(w, "exit_code", p.exitCode);
        optInt(w, "signal", p.signal);
        w.EndObject();
    }
    w.EndArray();
    kv(w, "run_dir", runDir);
    w.Key("environment");
    w.StartObject();
    for (const EnvChange& e : environment) {
        w.Key(e.name.c_str(), static_cast<rapidjson::SizeType>(e.name.size()));
        str(w, e.value);
    }
    w.EndObject();
    w.Key("warnings");
    w.StartArray();
    for (const std::string& s : warnings) str(w, s);
    w.EndArray();
    w.EndObject();
    return buf.GetString();
}

}  // namespace ts::run
