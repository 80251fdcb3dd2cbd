#pragma once
// Log records in the session store's `logs` table: writing a batch and reading with a
// filter. Records from our engine carry a run id, imported ones a source id.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/log/log_filter.h"
#include "core/log/log_record.h"
#include "core/store/trace_store.h"

namespace ts::log {

/// Inserts `records` (function names are not stored). Uses the open transaction when there
/// is one, else wraps the batch in its own.
Status insertLogs(store::TraceStore& store, const std::vector<LogRecord>& records,
                  std::optional<int64_t> sourceId, std::optional<int64_t> runId);

struct LogRow {
    int64_t id = 0;
    std::optional<int64_t> sourceId;
    std::optional<int64_t> runId;
    LogRecord record;
};

struct LogQuery {
    LogFilter filter;
    int64_t afterId = 0;  // only rows with id > afterId (for following the tail)
    int64_t limit = 200000;
    std::optional<int64_t> sourceId;
    std::optional<int64_t> runId;
};

/// Rows matching `query`, in id order (file order for an import, time order for a run).
Result<std::vector<LogRow>> queryLogs(store::TraceStore& store, const LogQuery& query);
/// Distinct sub-module names in the logs table, sorted.
Result<std::vector<std::string>> logModules(store::TraceStore& store);

}  // namespace ts::log
