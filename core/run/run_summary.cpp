#include "core/run/run_summary.h"

#include "core/common/json_read.h"
#include "core/run/launch_spec.h"
#include "core/store/trace_store.h"

namespace ts::run {

namespace {

double number(const rapidjson::Value& v, double fallback = 0) {
    return v.IsNumber() ? v.GetDouble() : fallback;
}

std::vector<double> numbers(const rapidjson::Value& v) {
    std::vector<double> out;
    if (v.IsArray())
        for (const auto& x : v.GetArray()) out.push_back(number(x));
    return out;
}

std::vector<std::string> strings(const rapidjson::Value& v) {
    std::vector<std::string> out;
    if (v.IsArray())
        for (const auto& x : v.GetArray())
            if (x.IsString()) out.emplace_back(x.GetString());
    return out;
}

}  // namespace

bool parseRunSummary(const std::string& json, RunSummary& s) {
    rapidjson::Document d;
    if (!ts::json::parse(d, json) || !d.IsObject()) return false;
    auto get = [&](const char* k) -> const rapidjson::Value* {
        auto it = d.FindMember(k);
        return it == d.MemberEnd() ? nullptr : &it->value;
    };
    if (auto* v = get("epochs")) s.epochs = static_cast<int>(number(*v));
    if (auto* v = get("steps")) s.steps = static_cast<int64_t>(number(*v));
    if (auto* v = get("samples_per_s")) s.samplesPerS = number(*v);
    if (auto* v = get("train_seconds")) s.trainSeconds = number(*v);
    if (auto* v = get("final"); v && v->IsObject() && v->HasMember("loss"))
        s.finalLoss = number((*v)["loss"]);
    if (auto* v = get("eval"); v && v->IsObject())
        for (const auto& m : v->GetObject())
            if (m.value.IsNumber()) s.eval[m.name.GetString()] = m.value.GetDouble();
    if (auto* v = get("per_class"); v && v->IsObject()) {
        if (v->HasMember("precision")) s.precision = numbers((*v)["precision"]);
        if (v->HasMember("recall")) s.recall = numbers((*v)["recall"]);
        if (v->HasMember("f1")) s.f1 = numbers((*v)["f1"]);
    }
    if (auto* v = get("confusion_matrix"); v && v->IsArray()) {
        s.confusion.clear();
        for (const auto& row : v->GetArray()) {
            std::vector<int64_t> r;
            for (double x : numbers(row)) r.push_back(static_cast<int64_t>(x));
            s.confusion.push_back(std::move(r));
        }
    }
    if (auto* v = get("overflow_steps")) s.overflowSteps = static_cast<int64_t>(number(*v));
    if (auto* v = get("memory"); v && v->IsObject() && v->HasMember("peak_bytes"))
        s.peakBytes = static_cast<int64_t>(number((*v)["peak_bytes"]));
    if (auto* v = get("checkpoints")) s.checkpoints = strings(*v);
    if (auto* v = get("warnings")) s.warnings = strings(*v);
    // Command runs.
    if (auto* v = get("exit_code"); v && v->IsInt()) s.exitCode = v->GetInt();
    if (auto* v = get("signal"); v && v->IsInt()) s.signal = v->GetInt();
    if (auto* v = get("duration_s")) s.durationS = number(*v);
    if (auto* v = get("log_lines")) s.logLines = static_cast<int64_t>(number(*v));
    if (auto* v = get("processes"); v && v->IsArray()) s.processes = static_cast<int>(v->Size());
    if (auto* v = get("overflow_findings")) s.overflowFindings = static_cast<int64_t>(number(*v));
    if (auto* v = get("traces_imported"); v && v->IsArray())
        for (const auto& t : v->GetArray())
            if (t.IsObject() && t.HasMember("path") && t["path"].IsString())
                s.traces.emplace_back(t["path"].GetString());
    if (auto* v = get("dumps")) s.dumps = strings(*v);
    if (auto* v = get("rdr")) s.crashRecords = strings(*v);
    s.hasSummary = true;
    return true;
}

Result<std::vector<RunSummary>> readRunSummaries(store::TraceStore& store) {
    auto runs = store.runs();
    if (!runs) return Error{runs.error()};
    std::map<int64_t, std::string> summaries;
    auto q = store.db().prepare("SELECT id, coalesce(summary, '') FROM runs");
    while (q.step()) summaries[q.int64(0)] = q.text(1);
    if (!q.error().empty()) return Error{q.error()};
    std::vector<RunSummary> out;
    for (const auto& r : runs.value()) {
        RunSummary s;
        s.id = r.id;
        s.kind = r.kind;
        s.name = r.name;
        s.status = r.status;
        s.reason = r.reason;
        s.startedAtNs = r.startedAt;
        s.endedAtNs = r.endedAt;
        s.configJson = r.config;
        // A config without a model is not the engine's (e.g. an imported run).
        if (r.kind == "engine" && r.config.find("\"model\"") != std::string::npos)
            if (auto c = engine::TrainConfig::fromJson(r.config); c) {
                s.config = std::move(c.value());
                s.hasConfig = true;
            }
        if (r.kind == "command")
            if (auto spec = launchSpecFromJson(r.config)) {
                LaunchSpec sp = spec.value();
                sp.name.clear();
                s.commandLine = sp.displayName();
            }
        if (const auto& text = summaries[r.id]; !text.empty() && text != "{}")
            parseRunSummary(text, s);
        if (!s.hasSummary) s.steps = recordedSteps(store, r.id);
        out.push_back(std::move(s));
    }
    return out;
}

int64_t recordedSteps(store::TraceStore& store, int64_t runId) {
    auto q = store.db().prepare(
        "SELECT coalesce((SELECT max(s.step) FROM scalars s JOIN strings t ON t.id = s.tag_id "
        "WHERE s.run_id = ?1 AND t.str = 'train/loss'), (SELECT max(step) FROM scalars WHERE "
        "run_id = ?1), 0)");
    q.bind(1, runId);
    return q.step() ? q.int64(0) : 0;
}

}  // namespace ts::run
