#pragma once
// The run a summary, lineage or event file is imported into. MindSpore (and MindInsight)
// take one folder as one training job: its summary file(s) and its lineage file describe the
// same run, so a file whose folder already has an imported run joins that run; otherwise a
// run named after the folder is created. Shared by the summary importers (no Qt).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/common/result.h"
#include "importers/import_report.h"

namespace ts::store {
class TraceStore;
}

namespace ts::importers::summary_import {

struct SummaryRunTarget {
    int64_t sourceId = 0;
    int64_t runId = 0;
    std::string runName;
    bool createdRun = false;
    int64_t scalarRowidBefore = 0;  // scalars written by this import have larger rowids
};

/// Begins the source of `path` (sources.kind `kind`) and finds or creates its run.
Result<SummaryRunTarget> beginSummaryRun(store::TraceStore& store, const std::string& path,
                                         const std::string& kind, const std::string& runName);
/// Removes what the import wrote (a cancelled import): the source and its rows, the run
/// when the import created it, else the scalars it added to the run.
void discardSummaryRun(store::TraceStore& store, const SummaryRunTarget& t);
/// Closes a run the import created ('completed', or 'failed' for a failed import).
void finishSummaryRun(store::TraceStore& store, const SummaryRunTarget& t,
                      const ImportReport& report);
/// Writes (key, message) problems into import_log; a message starting "byte N:" keeps N as
/// the byte offset.
void logImportProblems(store::TraceStore& store, int64_t sourceId,
                       const std::vector<std::pair<std::string, std::string>>& problems);

}  // namespace ts::importers::summary_import
