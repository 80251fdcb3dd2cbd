#pragma once
// dump.json configuration for per-op tensor dumps (the seeds' acl.json/dump.json fields):
// {"dump_path": "./dump", "dump_mode": "input"|"output"|"all", "dump_list": ["Conv2d", ...],
//  "dump_op_switch": "on"|"off", "steps": [0, 3] or "0-3,7", "op_filter": "regex",
//  "file_per": "step"|"run", "check_overflow": true, "stop_on_overflow": false,
//  "load_file_path": ""}. A top-level "dump" object wrapping the fields is also accepted.
#include <cstdint>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/common/result.h"

namespace ts::debug {

enum class DumpMode { Input, Output, All };

struct DumpConfig {
    std::string dumpPath = "./dump";
    DumpMode mode = DumpMode::All;
    std::vector<std::string> dumpList;  // op names or types; empty = every op
    bool opSwitch = true;               // dump_op_switch "on"
    std::set<int64_t> steps;            // empty = every step
    std::string opFilter;               // ECMAScript regex on the op name; empty = all
    bool filePerStep = true;            // false: one file for the whole run
    bool checkOverflow = false;
    bool stopOnOverflow = false;
    std::string loadFilePath;

    /// True when tensors of this op (name, type) at this step should be dumped.
    bool wantsOp(const std::string& opName, const std::string& opType, int64_t step) const;
    bool wantsInputs() const { return mode != DumpMode::Output; }
    bool wantsOutputs() const { return mode != DumpMode::Input; }
    /// File for a step: <dump_path>/step_<n>.h5 per step, <dump_path>/dump.h5 per run;
    /// a dump_path ending in .h5 is used as is for per-run files.
    std::string fileForStep(int64_t step) const;

    std::optional<std::regex> compiledFilter;  // set by parseDumpConfig
};

/// Parses dump.json text; unknown fields are ignored, wrong types are errors.
Result<DumpConfig> parseDumpConfig(const std::string& jsonText);
/// Reads and parses a dump.json file.
Result<DumpConfig> loadDumpConfig(const std::string& path);

}  // namespace ts::debug
