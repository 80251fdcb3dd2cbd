#pragma once
// What `launch` and `record` share: running a LaunchSpec as a command run of the session -o
// names, echoing the command's output, Ctrl-C as the studio's Stop, and the summary (one
// JSON object with --json).
#include <string>

#include "app/cli/command.h"
#include "core/run/launch_spec.h"

namespace ts::cli {

/// The spec both commands start from: the command after `--`, --name, --cwd and --env
/// NAME=VALUE (CliError naming what is wrong). `verb` names the command in messages.
run::LaunchSpec commandLaunchSpec(const Args& args, const std::string& verb);

/// Runs `spec` and returns the command's exit status as a shell reports it. With
/// spec.recordCuda, first checks that the CUPTI collector and a CUDA driver are there
/// (CliError saying which is missing). `verb` names the command in messages.
int runCommandRun(const Args& args, run::LaunchSpec spec, const std::string& verb);

}  // namespace ts::cli
