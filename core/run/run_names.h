#pragma once
// How runs are named and tidied (issue 26, item 14): a command run is named by its script
// and a counter ("train.py #3"), so runs of one script tell apart and their names stay
// short; the user may rename a run, and remove one that recorded nothing worth keeping (a
// run whose program was not found). No Qt; the studio's Training panel and the CLI use it.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/common/result.h"
#include "core/run/launch_spec.h"

namespace ts::store {
class TraceStore;
}

namespace ts::run {

/// What a command runs, in a word: the first argument that names a script file (*.py,
/// *.sh: the script of `python3 -u train.py`, of `torchrun --nproc 2 train.py`), the module
/// of `python -m pkg.mod`, else the program's file name.
std::string scriptOf(const LaunchSpec& spec);

/// "<script> #N", N one more than the highest number among the session's runs named so.
Result<std::string> nextRunName(store::TraceStore& store, const std::string& script);

/// Renames run `runId` (errors: no such run, an empty name).
Status renameRun(store::TraceStore& store, int64_t runId, std::string_view name);

/// Removes run `runId` and everything it recorded: its scalars, logs, findings, dumps, crash
/// records and the sources it produced. Refused while the run is still being recorded.
Status removeRun(store::TraceStore& store, int64_t runId);

}  // namespace ts::run
