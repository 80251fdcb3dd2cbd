#pragma once
// Logging configuration from glog/MindSpore environment variables, parsed by a pure
// function so every rule is testable case by case:
//   GLOG_v               global level 0..4 (default 2, WARNING)
//   GLOG_logtostderr     1 = stderr (default), 0 = files (needs GLOG_log_dir)
//   GLOG_log_dir         files go under <dir>/rank_<RANK_ID>/logs/; letters, digits, - _ / .
//   GLOG_stderrthreshold when writing files, records >= this also go to stderr (default 2)
//   GLOG_log_max         MB per file before a new file starts (default 50, 1..4095)
//   MS_SUBMODULE_LOG_v   "{ENGINE:1,DATASET:3}" per-sub-module levels over GLOG_v
//   RANK_ID              rank of this process (default 0)
// A bad value yields a warning naming the variable and the default is used. An empty value
// counts as unset.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/log/log_level.h"

namespace ts::log {

struct LogConfig {
    Level globalLevel = Level::Warning;
    bool toStderr = true;
    std::string logDir;  // as given in GLOG_log_dir ("" = none)
    int rankId = 0;
    Level stderrThreshold = Level::Warning;
    int64_t maxFileMb = 50;
    std::map<SubModule, Level> moduleLevels;

    /// <logDir>/rank_<rankId>/logs ("" when logDir is empty).
    std::string fileDir() const;
};

struct LogConfigResult {
    LogConfig config;
    std::vector<std::string> warnings;  // each names its variable
};

/// Returns the value of an environment variable, nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// Pure: builds the configuration from the variables `env` returns.
LogConfigResult parseLogEnv(const EnvLookup& env);
/// Convenience for tests: variables from a map.
LogConfigResult parseLogEnv(const std::map<std::string, std::string>& vars);
/// The process environment (getenv).
EnvLookup processEnv();

/// Parses MS_SUBMODULE_LOG_v's value into `out`; appends warnings for bad entries.
void parseSubModuleLevels(std::string_view value, std::map<SubModule, Level>& out,
                          std::vector<std::string>& warnings);

/// glog's file name: <program>.<host>.<user>.log.<LEVEL>.<yyyymmdd-hhmmss>.<pid>
/// (time in local time).
std::string glogFileName(std::string_view program, std::string_view host, std::string_view user,
                         Level level, int64_t unixNs, int64_t pid);

}  // namespace ts::log
