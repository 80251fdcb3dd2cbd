#pragma once
// Trace files of a cluster (one per rank) imported in parallel, each into a session of its
// own: SQLite takes one writer per file, so ranks in separate sessions import on all cores.
// The importer is handed in (core does not depend on importers/): the CLI and the
// benchmark pass importers::importFile. No Qt.
#include <functional>
#include <string>
#include <vector>

#include "core/common/job_control.h"
#include "core/common/result.h"

namespace ts::store {
class TraceStore;
}

namespace ts::analysis {

/// Imports `file` into `session` (a new, empty session); an error when nothing usable came
/// of it.
using TraceImportFn =
    std::function<Status(const std::string& file, store::TraceStore& session, JobControl& job)>;

/// Imports the files of `groups[i]` (one rank's traces, see groupTracesByRank) into
/// `dir`/<i>.<first file's name>.tscope, the groups on `threads` threads, and returns those
/// session paths in the order of `groups`. Each session gets its ranks' summaries
/// (summarizeSessionRanks) once its files are in. The first failure ends it (its message names the
/// file); cancelled -> error "cancelled".
Result<std::vector<std::string>> importRankTraces(
    const std::vector<std::vector<std::string>>& groups, const std::string& dir, int threads,
    const TraceImportFn& importOne, JobControl* job = nullptr);

}  // namespace ts::analysis
