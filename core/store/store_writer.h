#pragma once
// StoreWriter: batched ingest of one source's trace rows. Rows go into the open
// transaction; every `batchRows` rows it commits and begins the next one, so a writer
// killed mid-import leaves every earlier batch intact. Ids of slices are assigned here
// (not by SQLite) so importers can link flows to slices before they are written. Slices
// wait per track until they fill a chunk (slice_chunk.h) or the batch commits.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/common/pair_hash.h"
#include "core/common/result.h"
#include "core/store/arg_chunk.h"
#include "core/store/batched_insert.h"
#include "core/store/slice_chunk_writer.h"
#include "core/store/trace_store.h"

namespace ts::store {

enum SliceFlags : int32_t { kSliceUnfinished = 1 };

class StoreWriter {
public:
    StoreWriter(TraceStore& store, int64_t sourceId, int64_t batchRows = 250000);
    ~StoreWriter();
    StoreWriter(const StoreWriter&) = delete;
    StoreWriter& operator=(const StoreWriter&) = delete;

    int64_t sourceId() const { return m_sourceId; }
    TraceStore& store() { return m_store; }
    int64_t intern(std::string_view s) { return s.empty() ? 0 : m_store.intern(s); }

    int64_t addProcess(std::string_view pid, std::string_view name = {}, int64_t sortIndex = 0);
    int64_t addThread(int64_t processId, std::string_view tid, std::string_view name = {},
                      int64_t sortIndex = 0);
    void setProcessName(int64_t processId, std::string_view name);
    void setProcessSortIndex(int64_t processId, int64_t sortIndex);
    void setProcessLabels(int64_t processId, std::string_view labels);
    void setThreadName(int64_t threadId, std::string_view name);
    void setThreadSortIndex(int64_t threadId, int64_t sortIndex);
    /// kind: thread | async | counter | gpu_stream. processId/threadId 0 = none.
    int64_t addTrack(std::string_view kind, int64_t processId, int64_t threadId,
                     std::string_view name, int64_t sortIndex = 0);

    /// Reserves the id the next slice written with addSlice(id, ...) will have.
    int64_t reserveSliceId() { return m_nextSliceId++; }
    /// Reserves `n` consecutive ids; returns the first.
    int64_t reserveSliceIds(int64_t n) {
        const int64_t first = m_nextSliceId;
        m_nextSliceId += n;
        return first;
    }
    /// Writes a whole track encoded by a TrackChunkEncoder (which may run on another
    /// thread), with its by-name totals.
    void addTrackChunks(const TrackChunks& t);
    int64_t addSlice(const SliceRow& row);
    void addSliceWithId(int64_t id, const SliceRow& row);
    int64_t addArgs(std::string_view json);
    void addInstant(int64_t trackId, int64_t ts, int64_t nameId, int64_t catId, char scope,
                    int64_t argSetId);
    /// A stack sample: an instant with scope 's' whose stack ends at `frameId` (0: unknown).
    void addSample(int64_t trackId, int64_t ts, int64_t nameId, int64_t catId, int64_t frameId,
                   int64_t argSetId);
    /// A stack frame of this source; `parentId` 0 at the root. Returns its id.
    int64_t addStackFrame(int64_t parentId, int64_t nameId, int64_t catId);
    /// A clock sync marker ('c' event); issueTs only on the side that issued the sync.
    void addClockSync(std::string_view syncId, int64_t ts, std::optional<int64_t> issueTs);
    struct ClockSync {
        int64_t sourceId = 0;
        std::string syncId;
        int64_t ts = 0;
        std::optional<int64_t> issueTs;
    };
    /// The clock syncs of the session's other sources, in source order.
    std::vector<ClockSync> otherClockSyncs();
    /// Adds `offset` to the times of this source's instants and counters written so far.
    Status shiftWrittenTimes(int64_t offset);
    void addCounter(int64_t trackId, int64_t ts, double value);
    void addFlow(int64_t sliceOut, int64_t sliceIn, int64_t nameId, int64_t catId);
    void logProblem(std::string_view key, int64_t byteOffset, std::string_view phase,
                    std::string_view message);

    /// Commits what is pending (rows count toward the batch size).
    Status flush();
    /// First error met by any insert, empty when none. After it the writer writes nothing
    /// more: its open batch was rolled back (earlier batches stay committed).
    const std::string& error() const { return m_error; }
    bool failed() const { return !m_error.empty(); }
    int64_t rowsWritten() const { return m_rows; }

private:
    struct NameStats {
        int64_t count = 0, total = 0, min = 0, max = 0;
    };
    void rowDone();
    void flushSlices();
    std::vector<StoredSlice>& trackSlices(int64_t trackId);
    void flushNameStats();
    static void accumulate(NameStats& ns, int64_t dur);
    void countName(int64_t trackId, int64_t nameId, int64_t dur);
    void foldCurrentTrackStats();
    void check(Status s);

    TraceStore& m_store;
    int64_t m_sourceId;
    int64_t m_batchRows;
    int64_t m_pending = 0;
    int64_t m_rows = 0;
    int64_t m_nextSliceId = 1;
    std::string m_error;
    struct TrackSlices {
        int64_t trackId = 0;
        std::vector<StoredSlice> rows;  // fewer than kSliceChunkRows, not written yet
    };
    std::vector<TrackSlices> m_trackSlices;
    std::unordered_map<int64_t, size_t> m_trackSliceIndex;  // track id -> m_trackSlices
    size_t m_lastTrackSlices = 0;
    SliceChunkWriter m_chunks;
    std::unordered_map<std::pair<int64_t, int64_t>, NameStats, Int64PairHash> m_nameStats;
    // Importers write track by track, so the current track's totals live in a flat array
    // indexed by name id (names below kFlatNames) and fold into m_nameStats on a track change.
    static constexpr int64_t kFlatNames = int64_t{1} << 20;
    int64_t m_statsTrack = -1;
    std::vector<NameStats> m_trackStats;
    std::vector<int64_t> m_trackStatsTouched;
    Statement m_nameStat, m_saveNextId;
    Statement m_problem, m_process, m_thread, m_track, m_frame, m_clockSync;
    // Rows nobody needs to read back before the commit: sent many per statement.
    BatchedInsert m_instants, m_counters, m_flows, m_samples;
    ArgChunkWriter m_args;
    int64_t m_nextArgId = 1;  // args ids are assigned here, like slice ids
};

}  // namespace ts::store
