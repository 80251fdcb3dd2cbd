// CommandResult as JSON: the object `trainscope-cli launch --json` prints and runs.summary
// keeps for a command run (docs/RUNS.md lists the fields).
#include <cmath>

#include "core/common/json.h"
#include "core/run/command_run.h"

namespace ts::run {
namespace {

using json::kv;
using json::str;
using Writer = json::Writer;

}  // namespace

int CommandResult::shellExitCode() const {
    if (exitCode) return *exitCode;
    if (signal) return 128 + *signal;
    return status == store::RunStatus::Completed ? 0 : 1;
}

std::string CommandResult::toJson() const {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.StartObject();
    kv(w, "run", runId);
    kv(w, "status", store::statusName(status));
    kv(w, "exit_code", exitCode);
    kv(w, "signal", signal);
    kv(w, "reason", reason);
    w.Key("duration_s");
    w.Double(std::isfinite(durationS) ? std::round(durationS * 1000) / 1000 : 0.0);
    kv(w, "log_lines", logLines);
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
        kv(w, "slices", t.slices);
        kv(w, "source_id", t.sourceId);
        kv(w, "status", t.statusText());
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
    kv(w, "overflow_findings", overflowFindings);
    w.Key("processes");
    w.StartArray();
    for (const ProcessState& p : processes) {
        w.StartObject();
        kv(w, "rank", p.rank);
        kv(w, "pid", p.pid);
        kv(w, "exit_code", p.exitCode);
        kv(w, "signal", p.signal);
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
