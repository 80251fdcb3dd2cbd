#pragma once
// LaunchSpec: everything that defines a command run — a user's program (a PyTorch or
// MindSpore script, a launcher, any executable) that the studio or `trainscope-cli launch`
// starts, watches and records as a run of a session (docs/RUNS.md). It is what runs.config
// keeps for a run of kind 'command', so a run can be started again with the same settings.
// Pure data plus its JSON form and validation; no process is touched here.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/common/result.h"
#include "core/log/log_level.h"
#include "core/profiler/profile_schedule.h"

namespace ts::run {

/// How the processes of a multi-process job learn their rank.
enum class RankScheme {
    None,       // nothing but TRAINSCOPE_RANK
    Torch,      // RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT
    MindSpore,  // RANK_ID, RANK_SIZE, DEVICE_ID
};
std::string_view rankSchemeName(RankScheme s);  // "none" | "torch" | "mindspore"
std::optional<RankScheme> parseRankScheme(std::string_view s);

/// One `--log-level MODULE=LEVEL`. Module "" is the global level (also written GLOBAL, ALL
/// or *); TORCH, ASCEND, ASCEND:<MOD> and EVENT are special (launch_env.h); any other name
/// is a MindSpore sub-module (MS_SUBMODULE_LOG_v). EVENT takes on/off (enabled: INFO).
struct LogLevelSetting {
    std::string module;
    log::Level level = log::Level::Warning;
    bool eventsOn = false;  // EVENT only
};
/// Parses "MODULE=LEVEL" (LEVEL: 0-4 or DEBUG/INFO/WARNING/ERROR/CRITICAL; EVENT=on|off).
Result<LogLevelSetting> parseLogLevelSetting(std::string_view text);
/// "MODULE=LEVEL" as parseLogLevelSetting reads it.
std::string formatLogLevelSetting(const LogLevelSetting& s);

struct LaunchSpec {
    std::string name;               // "" = "<script> #N" (core/run/run_names.h)
    std::string program;            // a path, or a name looked up on the child's PATH
    std::vector<std::string> args;  // without the program
    std::string cwd;                // "" = the launcher's working folder
    std::vector<std::pair<std::string, std::string>> env;  // set by the user; win over ours
    std::vector<std::string> watchDirs;  // folders whose new traces, dumps, event files and
                                         // crash records become the run's
    /// Also watch, for traces and event files, the working folder and the folders profilers
    /// write to by default there (defaultWatchFolders).
    bool watchDefaults = true;
    std::vector<LogLevelSetting> logLevels;
    std::string lossRegex;  // named groups: step, loss, and any other name becomes a tag

    // The studio's debugging switches, passed to the Python package (resources/python).
    bool pythonHooks = true;  // put the package on PYTHONPATH (it stays silent unless asked)
    bool recordLoss = true;   // TRAINSCOPE_LOSS: the value backward() is called on
    bool profile = false;     // torch.profiler driven by the optimizer's steps
    profiler::ProfileSchedule profileSchedule{
        0, 0, 1, 3, 1};  // skip_first 0, wait 0, warmup 1, active 3, repeat 1
    bool recordShapes = true;
    bool profileMemory = true;
    std::string dumpConfig;  // dump.json path: forward hooks dump module inputs/outputs
    bool overflowCheck = false;
    bool stopOnOverflow = false;
    std::string rdrConfig;      // {"rdr": {...}} file: MS_RDR_ENABLE / MS_RDR_MODE / MS_RDR_PATH
    std::string rdrConfigJson;  // the same as text (the studio's form); wins over the file
    // CUDA activity (docs/GPU.md): the CUPTI collector injected into every CUDA process
    // (CUDA_INJECTION64_PATH), each writing <run dir>/cuda/cuda-<pid>.tscupti, imported
    // as the run's traces (`trainscope-cli record`, `launch --record-cuda`, the Command
    // tab's "Record CUDA activity").
    bool recordCuda = false;

    // Several processes (one per rank).
    int nproc = 1;
    RankScheme ranks = RankScheme::None;
    std::string masterAddr = "127.0.0.1";
    int masterPort = 0;  // 0: a free port picked at start

    // Stop: SIGINT, then SIGTERM after graceSeconds, then SIGKILL after graceSeconds more.
    double graceSeconds = 5.0;

    /// The command line in a line: "python train.py --lr 0.1" shortened (run summaries).
    std::string displayName() const;
};

/// A folder watched by default: its path and how deep below it new files are looked for.
struct DefaultWatchFolder {
    std::string path;
    int maxDepth = 0;
};
/// The working folder (its own files) and, below it, the folders PyTorch's and TensorBoard's
/// tools write to unless told otherwise (tensorboard_trace_handler's "log" and "logs",
/// SummaryWriter's "runs", "traces", "profiler", "tb_logs", "lightning_logs"), searched a
/// few levels deep. `cwd` "" is the launcher's working folder.
std::vector<DefaultWatchFolder> defaultWatchFolders(const std::string& cwd);

/// Errors a user can act on: no program, nproc out of 1..1024, a port out of range, a
/// negative grace, a loss regex that does not compile or names no loss/tag group, an
/// empty environment variable name or one with '='.
Status validateLaunchSpec(const LaunchSpec& spec);

/// The spec as runs.config keeps it (a JSON object; every field, defaults included).
std::string launchSpecToJson(const LaunchSpec& spec);
/// Reads launchSpecToJson's output back; fields it lacks keep their defaults.
Result<LaunchSpec> launchSpecFromJson(std::string_view json);

}  // namespace ts::run
