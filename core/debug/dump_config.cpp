#include "core/debug/dump_config.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/common/json_read.h"

namespace ts::debug {
namespace {

Result<std::string> stringField(const rapidjson::Value& o, const char* key, std::string def) {
    if (!o.HasMember(key)) return def;
    if (!o[key].IsString())
        return Error{std::string("dump.json: \"") + key + "\" must be a string"};
    return std::string(o[key].GetString());
}

Result<bool> switchField(const rapidjson::Value& o, const char* key, bool def) {
    if (!o.HasMember(key)) return def;
    const auto& v = o[key];
    if (v.IsBool()) return v.GetBool();
    if (v.IsString()) {
        std::string s = v.GetString();
        if (s == "on" || s == "true" || s == "1") return true;
        if (s == "off" || s == "false" || s == "0") return false;
    }
    return Error{std::string("dump.json: \"") + key + "\" must be on/off or a boolean"};
}

Status parseSteps(const rapidjson::Value& v, std::set<int64_t>& out) {
    if (v.IsInt64()) {
        out.insert(v.GetInt64());
        return {};
    }
    if (v.IsArray()) {
        for (const auto& e : v.GetArray()) {
            if (!e.IsInt64()) return Error{"dump.json: \"steps\" array must hold integers"};
            out.insert(e.GetInt64());
        }
        return {};
    }
    if (!v.IsString()) return Error{"dump.json: \"steps\" must be an integer, array or \"a-b,c\""};
    std::stringstream ss(v.GetString());
    std::string part;
    while (std::getline(ss, part, ',')) {
        if (part.empty()) continue;
        try {
            auto dash = part.find('-', 1);
            if (dash == std::string::npos) {
                out.insert(std::stoll(part));
            } else {
                int64_t a = std::stoll(part.substr(0, dash)), b = std::stoll(part.substr(dash + 1));
                if (b < a || b - a > 1000000)
                    return Error{"dump.json: bad step range \"" + part + "\""};
                for (int64_t s = a; s <= b; ++s) out.insert(s);
            }
        } catch (const std::exception&) {
            return Error{"dump.json: bad step \"" + part + "\""};
        }
    }
    return {};
}

}  // namespace

bool DumpConfig::wantsOp(const std::string& opName, const std::string& opType, int64_t step) const {
    if (!opSwitch && dumpList.empty()) return false;
    if (!steps.empty() && !steps.count(step)) return false;
    if (!dumpList.empty() &&
        std::find(dumpList.begin(), dumpList.end(), opName) == dumpList.end() &&
        std::find(dumpList.begin(), dumpList.end(), opType) == dumpList.end())
        return false;
    if (compiledFilter && !std::regex_search(opName, *compiledFilter)) return false;
    return true;
}

std::string DumpConfig::fileForStep(int64_t step) const {
    const bool isFile = dumpPath.size() > 3 && dumpPath.compare(dumpPath.size() - 3, 3, ".h5") == 0;
    if (!filePerStep) return isFile ? dumpPath : dumpPath + "/dump.h5";
    std::string dir = dumpPath;
    if (isFile) dir = dumpPath.substr(0, dumpPath.size() - 3);
    return dir + "/step_" + std::to_string(step) + ".h5";
}

Result<DumpConfig> parseDumpConfig(const std::string& jsonText) {
    rapidjson::Document doc;
    if (const json::ParseResult p = json::parse(doc, jsonText); !p)
        return Error{"dump.json: " + p.message()};
    if (!doc.IsObject()) return Error{"dump.json: top level must be an object"};
    const rapidjson::Value* o = &doc;
    if (doc.HasMember("dump") && doc["dump"].IsObject()) o = &doc["dump"];
    DumpConfig c;
    auto path = stringField(*o, "dump_path", c.dumpPath);
    if (!path) return Error{path.error()};
    c.dumpPath = path.value();
    auto mode = stringField(*o, "dump_mode", "all");
    if (!mode) return Error{mode.error()};
    if (mode.value() == "input")
        c.mode = DumpMode::Input;
    else if (mode.value() == "output")
        c.mode = DumpMode::Output;
    else if (mode.value() == "all")
        c.mode = DumpMode::All;
    else
        return Error{"dump.json: \"dump_mode\" must be input, output or all"};
    if (o->HasMember("dump_list")) {
        const auto& l = (*o)["dump_list"];
        if (!l.IsArray()) return Error{"dump.json: \"dump_list\" must be an array"};
        for (const auto& e : l.GetArray()) {
            if (e.IsString())
                c.dumpList.emplace_back(e.GetString());
            else if (e.IsObject() && e.HasMember("op_name") && e["op_name"].IsString())
                c.dumpList.emplace_back(e["op_name"].GetString());
            else
                return Error{"dump.json: \"dump_list\" entries must be op names"};
        }
    }
    auto sw = switchField(*o, "dump_op_switch", true);
    if (!sw) return Error{sw.error()};
    c.opSwitch = sw.value();
    if (o->HasMember("steps")) {
        auto st = parseSteps((*o)["steps"], c.steps);
        if (!st) return Error{st.error()};
    }
    auto filter = stringField(*o, "op_filter", "");
    if (!filter) return Error{filter.error()};
    c.opFilter = filter.value();
    if (!c.opFilter.empty()) {
        try {
            c.compiledFilter = std::regex(c.opFilter);
        } catch (const std::regex_error& e) {
            return Error{"dump.json: bad \"op_filter\" regex: " + std::string(e.what())};
        }
    }
    auto per = stringField(*o, "file_per", "step");
    if (!per) return Error{per.error()};
    if (per.value() != "step" && per.value() != "run")
        return Error{"dump.json: \"file_per\" must be step or run"};
    c.filePerStep = per.value() == "step";
    auto co = switchField(*o, "check_overflow", false);
    if (!co) return Error{co.error()};
    c.checkOverflow = co.value();
    auto so = switchField(*o, "stop_on_overflow", false);
    if (!so) return Error{so.error()};
    c.stopOnOverflow = so.value();
    auto load = stringField(*o, "load_file_path", "");
    if (!load) return Error{load.error()};
    c.loadFilePath = load.value();
    return c;
}

Result<DumpConfig> loadDumpConfig(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{"cannot open dump config " + path};
    std::stringstream ss;
    ss << in.rdbuf();
    return parseDumpConfig(ss.str());
}

}  // namespace ts::debug
