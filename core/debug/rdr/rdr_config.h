#pragma once
// RDR (Running Data Recorder) configuration, as users know it from MindSpore:
//   config file {"rdr": {"enable": true, "mode": 1, "path": "/abs/dir"}}
//   or env MS_RDR_ENABLE (0|1), MS_RDR_MODE (1|2), MS_RDR_PATH (/abs/dir).
// Each field given in the file wins over the same field from the environment. Mode 1
// exports only when a run ends abnormally, mode 2 also when it ends normally. The path
// must be absolute; exports go to <path>/rank_<RANK_ID>/rdr/ (RANK_ID env, default 0).
#include <map>
#include <optional>
#include <string>

#include "core/common/result.h"

namespace ts::rdr {

struct RdrConfig {
    bool enable = false;
    int mode = 1;      // 1: abnormal end only; 2: abnormal and normal end
    std::string path;  // absolute root folder; required when enable is true
    int rankId = 0;    // from RANK_ID

    /// True when a run ending this way must be exported (false whenever disabled).
    bool exportsOn(bool abnormalEnd) const { return enable && (abnormalEnd || mode == 2); }
    /// <path>/rank_<rankId>/rdr
    std::string exportDir() const;
};

using EnvMap = std::map<std::string, std::string>;

/// Pure parse: `configText` is the JSON config file's text (nullopt when no file is
/// given), `env` the environment (only MS_RDR_* and RANK_ID are read). A file without an
/// "rdr" object leaves every field to the environment. Errors name the field or variable:
/// bad JSON, wrong types, mode not 1/2, MS_RDR_ENABLE not 0/1, a relative path, enable
/// without a path, RANK_ID not a non-negative integer. An empty variable counts as unset.
Result<RdrConfig> parseRdrConfig(const std::optional<std::string>& configText, const EnvMap& env);

/// Reads `configPath` (empty = no file) and parses it with the process environment.
Result<RdrConfig> loadRdrConfig(const std::string& configPath);

/// The MS_RDR_* and RANK_ID variables of the current process.
EnvMap rdrProcessEnv();

}  // namespace ts::rdr
