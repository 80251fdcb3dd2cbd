// trainscope-cli launch: runs a user's training command (a PyTorch or MindSpore script, a
// launcher, any program) as a run of a session (core/run/command_run.h, docs/RUNS.md): its
// output becomes the run's logs and scalars, the traces, dumps, event files and crash
// records it writes become the run's, and the studio's debugging switches become the
// frameworks' own variables. Prints the command's output as it comes (on stderr with
// --json), then with --json one object: {"run","status","exit_code","signal","reason",
// "duration_s","log_lines","scalars","traces_imported","dumps","rdr",...}. Exits with the
// command's exit code (128 + N when signal N ended it). Ctrl-C stops the run the way the
// studio's Stop does: SIGINT, then SIGTERM, then SIGKILL.
#include <cstdlib>

#include "app/cli/command.h"
#include "app/cli/command_run_cli.h"
#include "core/profiler/run_profiler.h"
#include "core/run/command_run.h"

namespace ts::cli {
namespace {

run::LaunchSpec launchSpec(const Args& args) {
    run::LaunchSpec s = commandLaunchSpec(args, "launch");
    s.watchDirs = args.values("watch");
    s.watchDefaults = !args.has("no-default-watch");
    for (const std::string& l : args.values("log-level")) {
        auto setting = run::parseLogLevelSetting(l);
        if (!setting) throw CliError{"--log-level: " + setting.error()};
        s.logLevels.push_back(setting.value());
    }
    s.lossRegex = args.valueOr("loss-regex", "");
    s.profile = args.has("profile") || args.has("profile-schedule");
    if (auto sched = args.value("profile-schedule")) {
        std::string error;
        if (!profiler::parseScheduleText(*sched, &s.profileSchedule, &error))
            throw CliError{"--profile-schedule: " + error};
    }
    s.dumpConfig = args.valueOr("dump", "");
    s.overflowCheck = args.has("overflow-check") || args.has("stop-on-overflow");
    s.stopOnOverflow = args.has("stop-on-overflow");
    s.rdrConfig = args.valueOr("rdr", "");
    s.nproc = static_cast<int>(intOption(args, "nproc", 1, {.min = 1, .max = 1024}));
    const std::string scheme = args.valueOr("ranks", s.nproc > 1 ? "torch" : "none");
    auto r = run::parseRankScheme(scheme);
    if (!r) throw CliError{"--ranks: torch, mindspore or none, got '" + scheme + "'"};
    s.ranks = *r;
    s.masterAddr = args.valueOr("master-addr", s.masterAddr);
    s.masterPort = static_cast<int>(intOption(args, "master-port", 0, {.min = 0, .max = 65535}));
    s.graceSeconds = numberOption(args, "grace", s.graceSeconds, {.min = 0});
    s.pythonHooks = !args.has("no-hooks");
    s.recordLoss = !args.has("no-loss-hook");
    s.recordCuda = args.has("record-cuda");
    if (auto st = run::validateLaunchSpec(s); !st) throw CliError{st.error()};
    return s;
}

int runLaunch(const Args& args) {
    return runCommandRun(args, launchSpec(args), "launch");
}

}  // namespace

TS_CLI_COMMAND(
    "launch", "Run a training command (PyTorch, MindSpore, any program) as a run of a session",
    "-o SESSION [--name N] [--cwd DIR] [--env K=V]... [--watch DIR]... [--log-level "
    "MODULE=LEVEL]... "
    "[--loss-regex RE] [--profile] [--dump CONFIG] [--overflow-check] [--rdr CONFIG] [--nproc N] "
    "[--record-cuda] "
    "[--json] -- COMMAND [ARGS...]",
    {{"output", true, "(-o) session file to record the run in (created when missing)"},
     {"name", true, "run name (default: the script and a counter, \"train.py #3\")"},
     {"cwd", true, "working folder of the command (default: this one)"},
     {"env", true, "NAME=VALUE for the command's environment (wins over the studio's)", true},
     {"watch", true,
      "folder whose new traces (.json, .json.gz, .sqlite), dumps (.h5), TensorBoard event files "
      "and crash records become the run's",
      true},
     {"no-default-watch", false,
      "do not watch the working folder and the profilers' usual folders below it (log, logs, "
      "runs, traces, profiler, tb_logs, lightning_logs) for new traces and event files"},
     {"log-level", true,
      "MODULE=LEVEL: GLOBAL (GLOG_v, ASCEND_GLOBAL_LOG_LEVEL, TORCH_CPP_LOG_LEVEL), TORCH, ASCEND, "
      "ASCEND:<MOD>, EVENT=on|off, or a MindSpore sub-module (MS_SUBMODULE_LOG_v); LEVEL 0-4 or "
      "DEBUG..CRITICAL",
      true},
     {"loss-regex", true,
      "regular expression with named groups (?P<step>..) (?P<loss>..), any other name a tag: "
      "scalars from the command's output"},
     {"profile", false,
      "PyTorch: torch.profiler stepped by the optimizer; traces are imported into the session"},
     {"profile-schedule", true, "wait,warmup,active,repeat[,skip_first] (default 0,1,3,1)"},
     {"dump", true, "dump.json: forward hooks dump module inputs/outputs to HDF5 (PyTorch)"},
     {"overflow-check", false,
      "PyTorch: NaN/Inf in every module output; findings into the session"},
     {"stop-on-overflow", false, "stop the run at the end of the first step with a NaN/Inf"},
     {"rdr", true,
      "Running Data Recorder config {\"rdr\":{\"enable\",\"mode\",\"path\"}}: sets "
      "MS_RDR_ENABLE/MS_RDR_MODE/MS_RDR_PATH and records the crash records written there"},
     {"nproc", true, "processes to start, one per rank (default 1)"},
     {"ranks", true,
      "torch (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT; default with --nproc > 1), mindspore "
      "(RANK_ID, RANK_SIZE) or none"},
     {"master-addr", true, "MASTER_ADDR for torch ranks (default 127.0.0.1)"},
     {"master-port", true, "MASTER_PORT for torch ranks (default: a free port)"},
     {"grace", true, "seconds between SIGINT, SIGTERM and SIGKILL when stopping (default 5)"},
     {"no-hooks", false, "do not put TrainScope's Python package on PYTHONPATH"},
     {"no-loss-hook", false, "do not record the loss backward() is called on"},
     {"record-cuda", false,
      "inject TrainScope's CUPTI collector into every CUDA process (CUDA_INJECTION64_PATH): "
      "kernels, copies, API calls and NVTX ranges become the run's traces (docs/GPU.md)"},
     {"quiet", false, "do not print the command's output"}},
    &runLaunch, 0, 0, true);

}  // namespace ts::cli
