#pragma once
// Crash records in the session store (rdr_records, schema v3): one row per RDR export
// folder a run left (the engine's own, or one a command run's process wrote under
// MS_RDR_PATH), so the session lists them beside the run and the studio opens them.
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/debug/rdr/rdr_reader.h"
#include "core/store/trace_store.h"

namespace ts::rdr {

struct RdrRecordRow {
    int64_t id = 0, runId = 0;
    std::string path, reason, failingOp;
    int64_t epoch = -1, step = -1, createdAt = 0;
};

/// Inserts `row` (its id ignored; runId 0, epoch and step -1, failingOp "" as NULL;
/// createdAt 0 as now).
Status insertRdrRow(store::TraceStore& st, const RdrRecordRow& row);
/// Inserts the row of export `e` (its folder, reason, failing op, epoch, step) for `runId`.
Status insertRdrRecord(store::TraceStore& st, int64_t runId, const RdrExport& e);
/// The rows of one run (runId 0: all), oldest first.
Result<std::vector<RdrRecordRow>> readRdrRecords(store::TraceStore& st, int64_t runId);

}  // namespace ts::rdr
