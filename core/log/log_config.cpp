#include "core/log/log_config.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "core/common/text.h"

namespace ts::log {
namespace {

std::optional<int64_t> parseInt(std::string_view s) {
    s = asciiTrim(s);
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

std::optional<Level> parseLevelNumber(std::string_view s) {
    const auto v = parseInt(s);
    if (!v || *v < 0 || *v >= kLevelCount) return std::nullopt;
    return static_cast<Level>(*v);
}

std::string levelText(Level l) {
    return std::to_string(static_cast<int>(l)) + " (" + std::string(levelName(l)) + ")";
}

std::string quoted(std::string_view v) {
    return "'" + std::string(v) + "'";
}

bool validDirChars(std::string_view dir) {
    for (char c : dir)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '/' &&
            c != '.')
            return false;
    return true;
}

}  // namespace

std::string LogConfig::fileDir() const {
    if (logDir.empty()) return {};
    std::string d = logDir;
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    return d + "/rank_" + std::to_string(rankId) + "/logs";
}

void parseSubModuleLevels(std::string_view value, std::map<SubModule, Level>& out,
                          std::vector<std::string>& warnings) {
    const std::string_view v = asciiTrim(value);
    if (v.size() < 2 || v.front() != '{' || v.back() != '}') {
        warnings.push_back("MS_SUBMODULE_LOG_v=" + quoted(value) +
                           " is not of the form {MODULE:LEVEL,...}; ignored");
        return;
    }
    std::string_view body = v.substr(1, v.size() - 2);
    while (!asciiTrim(body).empty()) {
        const size_t comma = body.find(',');
        const std::string_view entry = asciiTrim(body.substr(0, comma));
        body = comma == std::string_view::npos ? std::string_view() : body.substr(comma + 1);
        if (entry.empty()) continue;
        const size_t colon = entry.find(':');
        if (colon == std::string_view::npos) {
            warnings.push_back("MS_SUBMODULE_LOG_v: entry " + quoted(entry) +
                               " has no ':LEVEL'; ignored");
            continue;
        }
        const std::string_view name = asciiTrim(entry.substr(0, colon));
        const std::string_view levelStr = asciiTrim(entry.substr(colon + 1));
        const auto module = parseSubModule(name);
        if (!module) {
            warnings.push_back("MS_SUBMODULE_LOG_v: unknown sub-module " + quoted(name) +
                               "; ignored");
            continue;
        }
        const auto level = parseLevelNumber(levelStr);
        if (!level) {
            warnings.push_back("MS_SUBMODULE_LOG_v: level " + quoted(levelStr) + " of " +
                               std::string(name) + " is not 0..4; ignored");
            continue;
        }
        out[*module] = *level;
    }
}

LogConfigResult parseLogEnv(const EnvLookup& env) {
    LogConfigResult r;
    LogConfig& c = r.config;
    auto get = [&](std::string_view name) -> std::optional<std::string> {
        auto v = env(name);
        if (v && asciiTrim(*v).empty()) return std::nullopt;
        return v;
    };
    auto level = [&](std::string_view name, Level fallback) {
        const auto v = get(name);
        if (!v) return fallback;
        if (auto l = parseLevelNumber(*v)) return *l;
        r.warnings.push_back(std::string(name) + "=" + quoted(*v) + " is not a level 0..4; using " +
                             levelText(fallback));
        return fallback;
    };
    c.globalLevel = level("GLOG_v", Level::Warning);
    c.stderrThreshold = level("GLOG_stderrthreshold", Level::Warning);

    if (const auto v = get("GLOG_logtostderr")) {
        const auto n = parseInt(*v);
        if (n && (*n == 0 || *n == 1)) {
            c.toStderr = *n == 1;
        } else {
            r.warnings.push_back("GLOG_logtostderr=" + quoted(*v) + " is not 0 or 1; using 1");
        }
    }
    if (const auto v = get("RANK_ID")) {
        const auto n = parseInt(*v);
        if (n && *n >= 0 && *n <= 1000000) {
            c.rankId = static_cast<int>(*n);
        } else {
            r.warnings.push_back("RANK_ID=" + quoted(*v) + " is not a rank number; using 0");
        }
    }
    if (const auto v = get("GLOG_log_dir")) {
        const std::string dir(asciiTrim(*v));
        if (validDirChars(dir)) {
            c.logDir = dir;
        } else {
            r.warnings.push_back("GLOG_log_dir=" + quoted(*v) +
                                 " may only hold letters, digits, '-', '_', '.' and '/'; ignored");
        }
    }
    if (!c.toStderr && c.logDir.empty()) {
        r.warnings.push_back(
            "GLOG_log_dir must be set to a valid folder when GLOG_logtostderr=0; logging to "
            "stderr");
        c.toStderr = true;
    }
    if (const auto v = get("GLOG_log_max")) {
        const auto n = parseInt(*v);
        if (n && *n >= 1 && *n <= 4095) {
            c.maxFileMb = *n;
        } else {
            r.warnings.push_back("GLOG_log_max=" + quoted(*v) +
                                 " is not a size in MB between 1 and 4095; using 50");
        }
    }
    if (const auto v = get("MS_SUBMODULE_LOG_v"))
        parseSubModuleLevels(*v, c.moduleLevels, r.warnings);
    return r;
}

LogConfigResult parseLogEnv(const std::map<std::string, std::string>& vars) {
    return parseLogEnv([&vars](std::string_view name) -> std::optional<std::string> {
        auto it = vars.find(std::string(name));
        if (it == vars.end()) return std::nullopt;
        return it->second;
    });
}

EnvLookup processEnv() {
    return [](std::string_view name) -> std::optional<std::string> {
        const char* v = std::getenv(std::string(name).c_str());
        if (!v) return std::nullopt;
        return std::string(v);
    };
}

std::string glogFileName(std::string_view program, std::string_view host, std::string_view user,
                         Level level, int64_t unixNs, int64_t pid) {
    const time_t t = static_cast<time_t>(unixNs / 1000000000);
    std::tm tm{};
    localtime_r(&t, &tm);
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%04d%02d%02d-%02d%02d%02d", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    std::string name;
    name.append(program).append(".").append(host).append(".").append(user).append(".log.");
    name.append(levelName(level)).append(".").append(stamp).append(".");
    name += std::to_string(pid);
    return name;
}

}  // namespace ts::log
