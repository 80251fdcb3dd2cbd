// trainscope-cli record: runs a CUDA program with TrainScope's CUPTI collector injected
// (CUDA_INJECTION64_PATH, as Nsight Systems does) and imports what each of its CUDA
// processes recorded: kernels, memcpy/memset, runtime and driver API calls,
// synchronisations, NVTX ranges and CUPTI's overhead, on one track per device stream with
// launch flows (docs/GPU.md). The short form of `launch --record-cuda`: the run is a command
// run of the session like any other (logs, scalars, --json summary, Ctrl-C to stop).
// Without the collector (a build without the CUDA toolkit) or without an NVIDIA driver it
// refuses to start and says which is missing; a program that never initialises CUDA runs and
// records nothing, which the summary says.
#include "app/cli/command.h"
#include "app/cli/command_run_cli.h"

namespace ts::cli {
namespace {

int runRecord(const Args& args) {
    run::LaunchSpec s = commandLaunchSpec(args, "record");
    s.recordCuda = true;
    if (auto st = run::validateLaunchSpec(s); !st) throw CliError{st.error()};
    return runCommandRun(args, std::move(s), "record");
}

}  // namespace

TS_CLI_COMMAND("record",
               "Run a CUDA program with the CUPTI collector injected and import its GPU activity",
               "-o SESSION [--name N] [--cwd DIR] [--env K=V]... [--quiet] [--json] -- COMMAND "
               "[ARGS...]",
               {{"output", true, "(-o) session file to record the run in (created when missing)"},
                {"name", true, "run name (default: the command line)"},
                {"cwd", true, "working folder of the command (default: this one)"},
                {"env", true, "NAME=VALUE for the command's environment", true},
                {"quiet", false, "do not print the command's output"}},
               &runRecord, 0, 0, true);

}  // namespace ts::cli
