#pragma once
// Writing summary events (summary_event.h) into a session: scalars into `scalars`, the
// other kinds into `summary_values`, TensorBoard HParams and lineage parameters into
// `run_params`; and reading them back for the views and the CLI. The writer counts what it
// kept by kind and what it could not keep by reason, so an import can report every value's
// fate. No Qt.
// Scalars go through the session's one scalar writer (core/store/scalar_writer.h).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/store/scalar_writer.h"
#include "core/store/sqlite_db.h"
#include "core/summary/summary_event.h"

namespace ts::store {
class TraceStore;
}

namespace ts::summary {

class SummaryWriter {
public:
    /// Writes rows of run `runId`; `sourceId` 0 for values a run records live. The caller
    /// holds the transaction.
    SummaryWriter(store::TraceStore& store, int64_t runId, int64_t sourceId);
    Status write(const SummaryEvent& ev);

    struct Counts {
        std::map<std::string, int64_t> kept;     // by kind name ("scalar", "histogram", ...)
        std::map<std::string, int64_t> skipped;  // by reason ("scalar_nan", "tensorboard_audio")
        std::optional<int64_t> wallMinNs, wallMaxNs;
        int64_t keptTotal() const;
        int64_t skippedTotal() const;
    };
    const Counts& counts() const { return m_counts; }
    /// Metric tags named by a TensorBoard HParams experiment (their last value is the run's
    /// final metric: writeFinalMetrics).
    const std::vector<std::string>& metricTags() const { return m_metricTags; }
    /// Writes run_params 'metric' rows: the last value of each tag in `tags`.
    Status writeFinalMetrics(const std::vector<std::string>& tags);

private:
    Status writeHParams(const std::string& json);
    store::TraceStore& m_store;
    int64_t m_runId, m_sourceId;
    store::ScalarWriter m_scalars;
    store::Statement m_insValue;  // prepared on the first write
    Counts m_counts;
    std::vector<std::string> m_metricTags;
};

/// Writes one run_params row (replacing the run's earlier value of that kind and key):
/// numeric when `text` is empty.
Status writeRunParam(store::TraceStore& store, int64_t runId, int64_t sourceId,
                     const std::string& kind, const std::string& key, std::optional<double> value,
                     const std::string& text = {});

/// The tags of a run's summary values of one kind, in tag order.
Result<std::vector<std::string>> summaryTags(store::TraceStore& store, int64_t runId,
                                             ValueKind kind);

struct StoredValue {
    int64_t id = 0;
    int64_t step = 0;
    int64_t wallTimeNs = 0;
    std::string data;
};
/// The values of one tag of a run, by step (then id).
Result<std::vector<StoredValue>> summaryValues(store::TraceStore& store, int64_t runId,
                                               ValueKind kind, const std::string& tag);

/// Runs that hold summary values of `kind`: (run id, run name), by id.
Result<std::vector<std::pair<int64_t, std::string>>> runsWithSummaries(store::TraceStore& store,
                                                                       ValueKind kind);

}  // namespace ts::summary
