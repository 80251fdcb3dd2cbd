#pragma once
// `trainscope-cli train --nproc N`: N local ranks of one data-parallel job (docs/DISTRIBUTED.md).
#include "app/cli/command.h"

namespace ts::cli {

/// Starts this program's `train` with the same options N times, one process per rank (RANK,
/// WORLD_SIZE, MASTER_ADDR, MASTER_PORT set per process, through the launcher of command
/// runs), prints their output prefixed "[rank R]", stops them all on Ctrl-C or when one
/// fails, and prints the job: with --json rank 0's summary plus "world_size", the job's
/// "samples_per_s" (the ranks' sum) and "ranks": [{"rank", "status", "reason", "steps",
/// "samples_per_s", "session"}]. Returns the exit code.
int runTrainRanks(const Args& args, int nproc);

/// Set by SIGINT / SIGTERM while a `train` runs (the handler only counts).
bool trainInterrupted();
void installTrainInterruptHandler();

}  // namespace ts::cli
