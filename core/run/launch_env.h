#pragma once
// The environment a command run's process gets: the launcher's own environment, then the
// variables the studio derives from the run's settings (the frameworks' own switches, as
// the seeds name them), then the user's --env, which win. Pure functions, so the Training
// panel can show the exact environment before anything starts.
//
// Always (the studio reads the child's streams):
//   PYTHONUNBUFFERED=1, GLOG_logtostderr=1, ASCEND_SLOG_PRINT_TO_STDOUT=1
// Log levels (LogLevelSetting):
//   global  GLOG_v=<0-4> GLOG_stderrthreshold=<0-4> ASCEND_GLOBAL_LOG_LEVEL=<0-3>
//           TORCH_CPP_LOG_LEVEL=INFO|WARNING|ERROR|FATAL (DEBUG also TORCH_DISTRIBUTED_DEBUG=INFO)
//   TORCH   TORCH_CPP_LOG_LEVEL            ASCEND  ASCEND_GLOBAL_LOG_LEVEL
//   ASCEND:<M>  ASCEND_MODULE_LOG_LEVEL=M=<n>:...   EVENT  ASCEND_GLOBAL_EVENT_ENABLE=0|1
//   <other> MS_SUBMODULE_LOG_v={M:<n>,...}  (MindSpore sub-modules: ME, KERNEL, DEVICE, ...)
// Ranks (RankScheme): torch RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT;
//   mindspore RANK_ID RANK_SIZE DEVICE_ID; always TRAINSCOPE_RANK.
// Crash records (--rdr): MS_RDR_ENABLE MS_RDR_MODE MS_RDR_PATH (default <run dir>/rdr).
// CUDA activity (--record-cuda, docs/GPU.md): CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH
//   (the CUPTI collector), TRAINSCOPE_CUPTI_DIR (<run dir>/cuda).
// Python package (resources/python, docs/RUNS.md): PYTHONPATH, TRAINSCOPE_HOOKS,
//   TRAINSCOPE_EVENTS, TRAINSCOPE_LOSS, TRAINSCOPE_PROFILE[_DIR,_OPTIONS],
//   TRAINSCOPE_DUMP_CONFIG, TRAINSCOPE_OVERFLOW.
#include <string>
#include <utility>
#include <vector>

#include "core/common/result.h"
#include "core/run/launch_spec.h"

namespace ts::run {

using EnvList = std::vector<std::pair<std::string, std::string>>;

/// One variable the launcher sets, and why ("log levels", "rank", "crash records",
/// "python package", "streams", "user").
struct EnvChange {
    std::string name, value, origin;
};

/// Where a run keeps what it produces (all absolute).
struct RunPaths {
    std::string runDir;        // <session>-runs/run-<id>
    std::string profileDir;    // <runDir>/profile
    std::string rdrDir;        // <runDir>/rdr (when the RDR config names no path)
    std::string pythonDir;     // the Python package ("" when not found: hooks off)
    std::string cudaDir;       // <runDir>/cuda: the collector's activity files
    std::string cuptiLibrary;  // libtrainscope_cupti.so ("" = not available)
    /// The events file of `rank` as TRAINSCOPE_EVENTS names it ({pid} left to the package).
    std::string eventsPattern(int rank) const;
};
/// RunPaths of run `runId` of `sessionPath`.
RunPaths runPathsFor(const std::string& sessionPath, int64_t runId, const std::string& pythonDir);

struct ProcessEnvironment {
    EnvList full;                    // what execve gets, sorted by name
    std::vector<EnvChange> changes;  // what differs from the base, in the order set
    std::string rdrPath;             // MS_RDR_PATH when crash records are on, else ""
};

/// The environment of the process of `rank` (0..nproc-1); `masterPort` is the job's port.
/// Errors: the RDR config cannot be read or is invalid; CUDA recording is asked for and
/// paths.cuptiLibrary is empty.
Result<ProcessEnvironment> buildProcessEnvironment(const LaunchSpec& spec, const EnvList& base,
                                                   const RunPaths& paths, int rank, int masterPort);

/// The variables the log levels alone set (for showing beside the Logs panel's levels).
std::vector<EnvChange> logLevelVariables(const std::vector<LogLevelSetting>& levels);

/// This process's environment.
EnvList currentEnvironment();

/// A TCP port on `addr` that nothing listens on now (bind to port 0); 29500 when it
/// cannot tell.
int pickFreePort(const std::string& addr);

}  // namespace ts::run
