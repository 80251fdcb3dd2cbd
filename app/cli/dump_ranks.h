#pragma once
// Parts of `trainscope-cli dump` in their own files: `dump ranks FILE|SESSION...` (the first
// NaN/Inf of every rank, ordered by time, the rank that saw it first and whether it reached the
// others through a collective) and the root cause of `dump compare --json`.
#include "app/cli/command.h"
#include "core/debug/dump_scan.h"

namespace ts::cli {

/// Runs `dump ranks` (args.positional[0] is "ranks").
int runDumpRanks(const Args& args);

/// Writes "root_cause" (the op, its inputs and outputs, or null), "root_cause_note",
/// "root_cause_others" and "first_failing_is_input" of `r` into the open object.
void writeRootCause(JsonWriter& w, const debug::CompareReport& r);

}  // namespace ts::cli
