#pragma once
// Removing a run with the rows that belong to it: its scalars, summary values, run
// parameters, logs, dump files (and their tensors), overflow findings and crash records. The
// undo of an import that made the run (importers/batch_import.h), as TraceStore::deleteSource
// is the undo of its source.
#include <cstdint>

#include "core/common/result.h"

namespace ts::store {

class TraceStore;

/// Inside the open transaction, or in one of its own; all or nothing.
Status deleteRun(TraceStore& store, int64_t runId);

}  // namespace ts::store
