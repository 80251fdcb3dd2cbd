#pragma once
// SliceDirectory: the summaries of every row of `slice_chunks` (not the BLOBs), held in
// memory so a scan finds the chunks of a track range, a time range or an id without a
// query per chunk. A few dozen bytes per 4,096 slices: 10 M slices need ~150 KB.
// A directory is a snapshot: directoryKey() (vtab_support.h) tells when the database has
// changed since.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "core/common/result.h"
#include "core/store/slice_chunk.h"

struct sqlite3;

namespace ts::store {

struct ChunkInfo {
    int64_t rowid = 0;  // slice_chunks.id
    int64_t trackId = 0;
    ChunkSummary s;
};

class SliceDirectory {
public:
    /// Reads the summaries of every chunk through `db`.
    static Result<std::shared_ptr<const SliceDirectory>> load(sqlite3* db);

    /// Sorted by (track, first row's ts, first row's id, rowid): within a track, the order
    /// in which chunks must be opened to merge their rows by (ts, id).
    const std::vector<ChunkInfo>& chunks() const { return m_chunks; }
    /// [begin, end) indexes into chunks() of the tracks in [lo, hi].
    std::pair<size_t, size_t> trackRange(int64_t lo, int64_t hi) const;
    /// Indexes into chunks() of those whose id bounds hold `id` (one, unless a writer
    /// interleaved tracks), appended to `out`.
    void chunksHolding(int64_t id, std::vector<size_t>& out) const;
    int64_t rows() const { return m_rows; }
    int64_t trackCount() const { return m_tracks; }

private:
    std::vector<ChunkInfo> m_chunks;
    std::vector<uint32_t> m_byMinId;     // indexes into m_chunks, by minId
    std::vector<int64_t> m_prefixMaxId;  // max of maxId over m_byMinId[0..i]
    int64_t m_rows = 0, m_tracks = 0;
};

}  // namespace ts::store
