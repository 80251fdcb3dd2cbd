#pragma once
// TraceStore: one TrainScope session, an SQLite file (*.tscope) in WAL mode.
// Opening checks that the file is a session, refuses files written by a newer schema,
// migrates older ones forward, and shows sources and runs left open by a dead writer as
// 'incomplete' / 'interrupted' (core/store/dead_writers.h; stored when opened for writing).
// A session on read-only media (a WAL file whose folder cannot hold -shm) is read immutable.
// Not thread-safe: one thread uses an instance at a time (open a second
// instance on another thread to read while a writer works).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/common/result.h"
#include "core/store/sqlite_db.h"
#include "core/store/status.h"

namespace ts::store {

/// Transparent hash so maps keyed by std::string can be searched with a string_view.
struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using StringIdMap = std::unordered_map<std::string, int64_t, StringHash, std::equal_to<>>;

struct SourceInfo {
    int64_t id = 0;
    std::string path;
    std::string kind;
    SourceStatus status = SourceStatus::Importing;
    std::string error;
    std::string label;
    int64_t events = 0;
    int64_t slices = 0;
    int64_t skipped = 0;
    std::optional<int64_t> tsMin;
    std::optional<int64_t> tsMax;
    std::string stats;  // JSON object
};

struct RunInfo {
    int64_t id = 0;
    std::string name;
    std::string config;           // JSON
    std::string kind = "engine";  // engine | command
    RunStatus status = RunStatus::Running;
    std::string reason;
    int64_t startedAt = 0;
    int64_t endedAt = 0;
    std::optional<int64_t> profileSourceId;
    std::string summary;  // JSON written at the end of the run ("" while running)
};

struct TableCount {
    std::string table;
    int64_t rows = 0;
};

/// What a finished import writes into its `sources` row.
struct SourceSummary {
    SourceStatus status = SourceStatus::Failed;  // complete | partial | failed
    std::string error;
    int64_t events = 0;
    int64_t slices = 0;
    int64_t skipped = 0;
    std::optional<int64_t> tsMin;
    std::optional<int64_t> tsMax;
    std::string statsJson = "{}";
};

class TraceStore {
public:
    enum class Mode { ReadOnly, ReadWrite, Create };

    /// Opens (or with Mode::Create, creates when missing) a session file.
    /// Errors: not an SQLite file, not a TrainScope session, newer schema, damaged file.
    static Result<std::unique_ptr<TraceStore>> open(const std::string& path, Mode mode);

    const std::string& path() const { return m_path; }
    int schemaVersion() const { return m_version; }
    SqliteDb& db() { return m_db; }
    bool readOnly() const { return m_db.readOnly(); }

    // ---- strings ----
    /// Id of `s` in the string table, inserting it if new (write mode only).
    int64_t intern(std::string_view s);
    /// Text of a string id ("" when unknown).
    std::string string(int64_t id);
    /// Largest string id (0 when none): taken before an import, so that a cancelled one can
    /// give back what it interned.
    int64_t maxStringId();
    /// Deletes strings with id > `id` that no row references any more (after a cancelled
    /// import) and forgets the interning cache.
    Status discardUnusedStringsAbove(int64_t id);

    // ---- transactions ----
    Status begin();
    Status commit();
    Status rollback();
    bool inTransaction() const { return m_inTx; }

    // ---- sources ----
    /// Adds a source in state 'importing', owned by this process; committed at once so a
    /// crash later leaves a trace of it.
    Result<int64_t> beginSource(std::string_view path, std::string_view kind);
    Status finishSource(int64_t id, const SourceSummary& summary);
    /// Removes a source and every row that belongs to it (used when an import is cancelled).
    Status deleteSource(int64_t id);
    /// Removes every row of a source but its `sources` row, whose counts become 0 (a failed
    /// import keeps nothing but the row that says why).
    Status discardSourceRows(int64_t id);
    Result<std::vector<SourceInfo>> sources();

    // ---- runs ----
    /// Adds a run in state 'running', recorded by this process (writer_pid). `kind`:
    /// "engine" or "command".
    Result<int64_t> beginRun(std::string_view name, std::string_view configJson,
                             std::string_view kind = "engine");
    Status finishRun(int64_t id, RunStatus status, std::string_view reason,
                     std::string_view summaryJson = "{}");
    Status setRunProfileSource(int64_t runId, int64_t sourceId);
    /// Links a source to the run that produced it (sources.run_id).
    Status setSourceRun(int64_t sourceId, int64_t runId);
    Result<std::vector<RunInfo>> runs();

    // ---- overview ----
    /// Row count of every data table (sources, processes, ..., rdr_records).
    Result<std::vector<TableCount>> tableCounts();
    /// [min ts, max ts + dur] over slices, instants and counters; nullopt when empty.
    Result<std::optional<std::pair<int64_t, int64_t>>> timeRange();

    /// Creates the query indexes (no-op when present).
    Status buildIndexes();
    /// Drops the bulk-ingest indexes (rebuilt by buildIndexes()).
    Status dropIndexes();

    /// Names of the tables holding session data, in display order.
    static const std::vector<std::string>& dataTables();

private:
    TraceStore() = default;
    Status migrate();
    /// Sources and runs left open by a dead process (dead_writers.h): stored on a read-write
    /// open, shown without writing on a read-only one.
    Status recoverDeadWriters();
    Status deleteSourceRows(int64_t id, bool keepSourceRow);

    SqliteDb m_db;
    std::string m_path;
    int m_version = 0;
    bool m_inTx = false;
    StringIdMap m_strings;
    bool m_stringsLoaded = false;
    Statement m_insertString;
};

}  // namespace ts::store
