#pragma once
// Imports and runs whose writing process died (killed, crashed, the machine lost power)
// before it closed them: sources left 'importing' and runs left 'running' by a process that is
// gone. Every open of the session shows them the same way:
//  - a source is 'incomplete': the rows its writer committed stay, and its counts (events,
//    slices, skipped) are those rows', so counts and rows agree after any kill;
//  - a run is 'interrupted', ended at its last activity (its latest scalar, log line, finding,
//    dump, crash record or source), not at the time of the open that found it.
// A read-write open writes that state (markDeadWriters), and removes the args no committed
// slice or instant refers to (an import killed before it wrote its slices leaves them). A
// read-only open writes nothing: TEMP views named `sources` and `runs` over the stored
// tables show the same state (showDeadWriters), so `info`, `query`, `stats` and the studio
// agree with what a later writer will store.
#include <cstdint>
#include <vector>

#include "core/common/result.h"
#include "core/store/sqlite_db.h"

namespace ts::store {

struct DeadWriters {
    std::vector<int64_t> sources;  // sources.id left 'importing' by a dead process
    std::vector<int64_t> runs;     // runs.id left 'running' by a dead process (or none known)
    bool empty() const { return sources.empty() && runs.empty(); }
};

/// The sources and runs of `db` whose writer is gone.
Result<DeadWriters> findDeadWriters(SqliteDb& db);

/// Stores their recovered state and removes their unreferenced args (the caller holds the
/// transaction).
Status markDeadWriters(SqliteDb& db, const DeadWriters& dead);

/// Shows their recovered state to this connection only, writing nothing (TEMP views; the
/// connection's temp_store must not change afterwards, or SQLite drops them).
Status showDeadWriters(SqliteDb& db, const DeadWriters& dead);

/// Deletes the args of source `sourceId` that no slice or instant of it refers to.
Status removeUnreferencedArgs(SqliteDb& db, int64_t sourceId);

}  // namespace ts::store
