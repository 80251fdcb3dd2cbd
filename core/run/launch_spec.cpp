#include "core/run/launch_spec.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/common/json.h"
#include "core/common/json_read.h"
#include "core/run/scalar_lines.h"

namespace ts::run {
namespace {

std::string upper(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

using json::kv;
using json::str;
using Writer = json::Writer;

std::string str(const rapidjson::Value& o, const char* k, const std::string& fallback) {
    auto it = o.FindMember(k);
    return it != o.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString())
                                                       : fallback;
}
bool boolean(const rapidjson::Value& o, const char* k, bool fallback) {
    auto it = o.FindMember(k);
    return it != o.MemberEnd() && it->value.IsBool() ? it->value.GetBool() : fallback;
}
double number(const rapidjson::Value& o, const char* k, double fallback) {
    auto it = o.FindMember(k);
    return it != o.MemberEnd() && it->value.IsNumber() ? it->value.GetDouble() : fallback;
}
std::vector<std::string> strings(const rapidjson::Value& o, const char* k) {
    std::vector<std::string> out;
    auto it = o.FindMember(k);
    if (it == o.MemberEnd() || !it->value.IsArray()) return out;
    for (const auto& v : it->value.GetArray())
        if (v.IsString()) out.emplace_back(v.GetString());
    return out;
}

}  // namespace

std::string_view rankSchemeName(RankScheme s) {
    switch (s) {
        case RankScheme::Torch:
            return "torch";
        case RankScheme::MindSpore:
            return "mindspore";
        case RankScheme::None:
            break;
    }
    return "none";
}

std::optional<RankScheme> parseRankScheme(std::string_view s) {
    const std::string u = upper(s);
    if (u == "NONE" || u.empty()) return RankScheme::None;
    if (u == "TORCH" || u == "PYTORCH") return RankScheme::Torch;
    if (u == "MINDSPORE" || u == "MS") return RankScheme::MindSpore;
    return std::nullopt;
}

Result<LogLevelSetting> parseLogLevelSetting(std::string_view text) {
    const size_t eq = text.rfind('=');
    if (eq == std::string_view::npos)
        return Error{"log level '" + std::string(text) + "': expected MODULE=LEVEL"};
    LogLevelSetting s;
    std::string module = upper(text.substr(0, eq));
    const std::string_view value = text.substr(eq + 1);
    if (module == "GLOBAL" || module == "ALL" || module == "*") module.clear();
    for (char c : module)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != ':' && c != '-')
            return Error{"log level '" + std::string(text) + "': '" + module +
                         "' is not a module name"};
    s.module = module;
    if (module == "EVENT") {
        const std::string v = upper(value);
        if (v == "ON" || v == "1" || v == "TRUE" || v == "ENABLE") {
            s.eventsOn = true;
            s.level = log::Level::Info;
        } else if (v == "OFF" || v == "0" || v == "FALSE" || v == "DISABLE") {
            s.eventsOn = false;
        } else {
            return Error{"log level '" + std::string(text) + "': EVENT takes on or off"};
        }
        return s;
    }
    const auto level = log::parseLevel(value);
    if (!level)
        return Error{"log level '" + std::string(text) + "': '" + std::string(value) +
                     "' is not a level (0-4, DEBUG, INFO, WARNING, ERROR, CRITICAL)"};
    s.level = *level;
    return s;
}

std::string formatLogLevelSetting(const LogLevelSetting& s) {
    const std::string module = s.module.empty() ? "GLOBAL" : s.module;
    if (s.module == "EVENT") return module + (s.eventsOn ? "=on" : "=off");
    return module + "=" + std::string(log::levelName(s.level));
}

std::string LaunchSpec::displayName() const {
    std::string out = std::filesystem::path(program).filename().string();
    for (const std::string& a : args) {
        if (out.size() > 60) {
            out += " ...";
            break;
        }
        out += ' ';
        if (a.size() > 40) {
            out.append(a, 0, 37);
            out += "...";
        } else {
            out += a;
        }
    }
    if (nproc > 1) out += " (" + std::to_string(nproc) + " processes)";
    return out;
}

Status validateLaunchSpec(const LaunchSpec& spec) {
    if (spec.program.empty()) return Error{"no program to run"};
    if (spec.nproc < 1 || spec.nproc > 1024)
        return Error{"processes: " + std::to_string(spec.nproc) + " is not in 1..1024"};
    if (spec.masterPort < 0 || spec.masterPort > 65535)
        return Error{"master port " + std::to_string(spec.masterPort) + " is not in 0..65535"};
    if (!(spec.graceSeconds >= 0)) return Error{"the stop grace period must be >= 0 seconds"};
    for (const auto& [k, v] : spec.env) {
        if (k.empty()) return Error{"an environment variable has no name"};
        if (k.find('=') != std::string::npos || k.find('\0') != std::string::npos)
            return Error{"environment variable '" + k + "': a name cannot hold '='"};
    }
    if (!spec.lossRegex.empty()) {
        auto re = ScalarRegex::compile(spec.lossRegex);
        if (!re) return Error{"--loss-regex: " + re.error()};
    }
    if (spec.profileSchedule.active <= 0) return Error{"profile schedule: active must be >= 1"};
    return {};
}

std::string launchSpecToJson(const LaunchSpec& s) {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.StartObject();
    kv(w, "kind", "command");
    kv(w, "name", s.name);
    kv(w, "program", s.program);
    w.Key("args");
    w.StartArray();
    for (const auto& a : s.args) str(w, a);
    w.EndArray();
    kv(w, "cwd", s.cwd);
    w.Key("env");
    w.StartObject();
    for (const auto& [k, v] : s.env) {
        w.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size()));
        str(w, v);
    }
    w.EndObject();
    w.Key("watch");
    w.StartArray();
    for (const auto& d : s.watchDirs) str(w, d);
    w.EndArray();
    w.Key("log_levels");
    w.StartArray();
    for (const auto& l : s.logLevels) str(w, formatLogLevelSetting(l));
    w.EndArray();
    kv(w, "loss_regex", s.lossRegex);
    w.Key("python_hooks");
    w.Bool(s.pythonHooks);
    w.Key("record_loss");
    w.Bool(s.recordLoss);
    w.Key("profile");
    w.Bool(s.profile);
    w.Key("profile_schedule");
    w.StartObject();
    kv(w, "skip_first", s.profileSchedule.skipFirst);
    kv(w, "wait", s.profileSchedule.wait);
    kv(w, "warmup", s.profileSchedule.warmup);
    kv(w, "active", s.profileSchedule.active);
    kv(w, "repeat", s.profileSchedule.repeat);
    w.EndObject();
    w.Key("record_shapes");
    w.Bool(s.recordShapes);
    w.Key("profile_memory");
    w.Bool(s.profileMemory);
    kv(w, "dump", s.dumpConfig);
    w.Key("overflow_check");
    w.Bool(s.overflowCheck);
    w.Key("stop_on_overflow");
    w.Bool(s.stopOnOverflow);
    kv(w, "rdr", s.rdrConfig);
    kv(w, "rdr_json", s.rdrConfigJson);
    w.Key("record_cuda");
    w.Bool(s.recordCuda);
    kv(w, "nproc", s.nproc);
    kv(w, "ranks", rankSchemeName(s.ranks));
    kv(w, "master_addr", s.masterAddr);
    kv(w, "master_port", s.masterPort);
    w.Key("grace_s");
    w.Double(s.graceSeconds);
    w.EndObject();
    return buf.GetString();
}

Result<LaunchSpec> launchSpecFromJson(std::string_view json) {
    rapidjson::Document d;
    if (!ts::json::parse(d, json) || !d.IsObject())
        return Error{"a command run's settings are not a JSON object"};
    LaunchSpec s;
    s.name = str(d, "name", "");
    s.program = str(d, "program", "");
    s.args = strings(d, "args");
    s.cwd = str(d, "cwd", "");
    if (auto it = d.FindMember("env"); it != d.MemberEnd() && it->value.IsObject())
        for (const auto& m : it->value.GetObject())
            if (m.value.IsString()) s.env.emplace_back(m.name.GetString(), m.value.GetString());
    s.watchDirs = strings(d, "watch");
    for (const std::string& t : strings(d, "log_levels")) {
        auto l = parseLogLevelSetting(t);
        if (!l) return Error{l.error()};
        s.logLevels.push_back(l.value());
    }
    s.lossRegex = str(d, "loss_regex", "");
    s.pythonHooks = boolean(d, "python_hooks", s.pythonHooks);
    s.recordLoss = boolean(d, "record_loss", s.recordLoss);
    s.profile = boolean(d, "profile", false);
    if (auto it = d.FindMember("profile_schedule"); it != d.MemberEnd() && it->value.IsObject()) {
        const auto& p = it->value;
        auto& ps = s.profileSchedule;
        ps.skipFirst =
            static_cast<int64_t>(number(p, "skip_first", static_cast<double>(ps.skipFirst)));
        ps.wait = static_cast<int64_t>(number(p, "wait", static_cast<double>(ps.wait)));
        ps.warmup = static_cast<int64_t>(number(p, "warmup", static_cast<double>(ps.warmup)));
        ps.active = static_cast<int64_t>(number(p, "active", static_cast<double>(ps.active)));
        ps.repeat = static_cast<int64_t>(number(p, "repeat", static_cast<double>(ps.repeat)));
    }
    s.recordShapes = boolean(d, "record_shapes", s.recordShapes);
    s.profileMemory = boolean(d, "profile_memory", s.profileMemory);
    s.dumpConfig = str(d, "dump", "");
    s.overflowCheck = boolean(d, "overflow_check", false);
    s.stopOnOverflow = boolean(d, "stop_on_overflow", false);
    s.rdrConfig = str(d, "rdr", "");
    s.rdrConfigJson = str(d, "rdr_json", "");
    s.recordCuda = boolean(d, "record_cuda", false);
    s.nproc = static_cast<int>(number(d, "nproc", 1));
    auto scheme = parseRankScheme(str(d, "ranks", "none"));
    if (!scheme) return Error{"unknown rank scheme '" + str(d, "ranks", "") + "'"};
    s.ranks = *scheme;
    s.masterAddr = str(d, "master_addr", s.masterAddr);
    s.masterPort = static_cast<int>(number(d, "master_port", 0));
    s.graceSeconds = number(d, "grace_s", s.graceSeconds);
    return s;
}

}  // namespace ts::run
