#pragma once
// What one import did: the counts the CLI prints with `import --json` and the GUI shows.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "core/store/status.h"

namespace ts::store {
class TraceStore;
}

namespace ts::importers {

struct ImportReport {
    std::string path;
    std::string kind;  // importer name
    store::SourceStatus status =
        store::SourceStatus::Failed;  // complete | partial | failed | cancelled
    std::string error;
    int64_t sourceId = 0;
    int64_t createdRunId = 0;  // a run the import made (summary, lineage and event files)
    int64_t events = 0;
    int64_t slices = 0;
    int64_t asyncSlices = 0;
    int64_t instants = 0;
    int64_t marks = 0;    // Chrome 'R' events (instants with scope 'm')
    int64_t samples = 0;  // stack samples: Chrome 'P' events and top-level samples
    int64_t counterSamples = 0;
    int64_t flows = 0;
    int64_t processes = 0;
    int64_t threads = 0;
    int64_t skipped = 0;
    std::map<std::string, int64_t> skippedReasons;
    std::optional<int64_t> tsMinNs;
    std::optional<int64_t> tsMaxNs;
    /// Extra facts (top-level keys seen, log lines, datasets, ...), as a JSON object.
    std::string extraJson = "{}";

    void skip(const std::string& reason) {
        ++skipped;
        ++skippedReasons[reason];
    }
    void seeTime(int64_t lo, int64_t hi) {
        if (!tsMinNs || lo < *tsMinNs) tsMinNs = lo;
        if (!tsMaxNs || hi > *tsMaxNs) tsMaxNs = hi;
    }
    /// Skipped records of the format's normal use (core/store/import_problems.h), counted
    /// quietly; problems() are the rest, shown loudly.
    int64_t expectedSkips() const;
    int64_t problems() const { return skipped - expectedSkips(); }
    /// JSON object of the counts, as stored in sources.stats.
    std::string statsJson() const;
};

/// Writes the report's status, error and counts onto its source row (no-op without a source).
/// When that write fails, a report that had no error becomes a failed one that says why.
void recordSource(store::TraceStore& store, ImportReport& report);

}  // namespace ts::importers
