#pragma once
// `trainscope-cli dump ranks FILE|SESSION...`: the first NaN/Inf of every rank, ordered by
// time, the rank that saw it first and whether it reached the others through a collective.
#include "app/cli/command.h"

namespace ts::cli {

/// Runs `dump ranks` (args.positional[0] is "ranks").
int runDumpRanks(const Args& args);

}  // namespace ts::cli
