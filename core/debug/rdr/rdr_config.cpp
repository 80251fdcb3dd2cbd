#include "core/debug/rdr/rdr_config.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/common/json_read.h"

namespace ts::rdr {
namespace {

const char* const kVars[] = {"MS_RDR_ENABLE", "MS_RDR_MODE", "MS_RDR_PATH", "RANK_ID"};

std::optional<std::string> envValue(const EnvMap& env, const char* key) {
    auto it = env.find(key);
    if (it == env.end() || it->second.empty()) return std::nullopt;  // empty = unset
    return it->second;
}

Result<int> parseSmallInt(const std::string& text, const char* what) {
    if (text.empty() || text.size() > 9 ||
        text.find_first_not_of("0123456789") != std::string::npos) {
        std::string msg = what;
        msg += " must be a non-negative integer, got \"";
        msg += text;
        msg += '"';
        return Error{msg};
    }
    return std::stoi(text);
}

Status applyEnv(const EnvMap& env, RdrConfig& c) {
    if (auto v = envValue(env, "MS_RDR_ENABLE")) {
        if (*v == "1")
            c.enable = true;
        else if (*v == "0")
            c.enable = false;
        else
            return Error{"MS_RDR_ENABLE must be 0 or 1, got \"" + *v + "\""};
    }
    if (auto v = envValue(env, "MS_RDR_MODE")) {
        if (*v == "1" || *v == "2")
            c.mode = *v == "1" ? 1 : 2;
        else
            return Error{"MS_RDR_MODE must be 1 or 2, got \"" + *v + "\""};
    }
    if (auto v = envValue(env, "MS_RDR_PATH")) c.path = *v;
    return {};
}

Status applyFile(const std::string& text, RdrConfig& c) {
    rapidjson::Document doc;
    if (const json::ParseResult p = json::parse(doc, text); !p)
        return Error{"RDR config: invalid JSON at offset " + std::to_string(p.offset) + ": " +
                     p.error};
    if (!doc.IsObject()) return Error{"RDR config: the top level must be a JSON object"};
    if (!doc.HasMember("rdr")) return {};
    const auto& r = doc["rdr"];
    if (!r.IsObject()) return Error{"RDR config: \"rdr\" must be an object"};
    if (r.HasMember("enable")) {
        if (!r["enable"].IsBool()) return Error{"RDR config: \"rdr.enable\" must be true or false"};
        c.enable = r["enable"].GetBool();
    }
    if (r.HasMember("mode")) {
        const auto& m = r["mode"];
        if (!m.IsInt() || (m.GetInt() != 1 && m.GetInt() != 2))
            return Error{"RDR config: \"rdr.mode\" must be 1 or 2"};
        c.mode = m.GetInt();
    }
    if (r.HasMember("path")) {
        if (!r["path"].IsString()) return Error{"RDR config: \"rdr.path\" must be a string"};
        c.path = r["path"].GetString();
    }
    return {};
}

}  // namespace

std::string RdrConfig::exportDir() const {
    std::string root = path;
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    if (root == "/") root.clear();
    return root + "/rank_" + std::to_string(rankId) + "/rdr";
}

Result<RdrConfig> parseRdrConfig(const std::optional<std::string>& configText, const EnvMap& env) {
    RdrConfig c;
    if (auto st = applyEnv(env, c); !st) return Error{st.error()};
    if (configText) {
        if (auto st = applyFile(*configText, c); !st) return Error{st.error()};
    }
    if (auto v = envValue(env, "RANK_ID")) {
        auto rank = parseSmallInt(*v, "RANK_ID");
        if (!rank) return Error{rank.error()};
        c.rankId = rank.value();
    }
    if (!c.path.empty() && c.path.front() != '/')
        return Error{"RDR path must be an absolute path, got \"" + c.path + "\""};
    if (c.enable && c.path.empty())
        return Error{"RDR is enabled but no path is set (rdr.path or MS_RDR_PATH)"};
    return c;
}

Result<RdrConfig> loadRdrConfig(const std::string& configPath) {
    std::optional<std::string> text;
    if (!configPath.empty()) {
        std::ifstream in(configPath, std::ios::binary);
        if (!in) return Error{"cannot read RDR config file " + configPath};
        std::ostringstream ss;
        ss << in.rdbuf();
        text = ss.str();
    }
    auto r = parseRdrConfig(text, rdrProcessEnv());
    if (!r && !configPath.empty()) return Error{configPath + ": " + r.error()};
    return r;
}

EnvMap rdrProcessEnv() {
    EnvMap env;
    for (const char* k : kVars)
        if (const char* v = std::getenv(k)) env[k] = v;
    return env;
}

}  // namespace ts::rdr
