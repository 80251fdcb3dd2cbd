#pragma once
// SliceChunkWriter: encodes one track's slices as chunks (slice_chunk.h) and inserts them
// into slice_chunks, kSliceChunkRows per row. Used by StoreWriter and by the schema
// migration that moved the old slices table into chunks.
#include <cstdint>
#include <vector>

#include "core/common/result.h"
#include "core/store/slice_chunk.h"
#include "core/store/sqlite_db.h"

namespace ts::store {

class SliceChunkWriter {
public:
    SliceChunkWriter() = default;
    explicit SliceChunkWriter(SqliteDb& db);
    /// Writes `rows` (all of track `trackId`, any order; sorted in place) as one chunk.
    Status write(int64_t trackId, std::vector<StoredSlice>& rows);
    /// Writes a chunk encoded already (encodeSliceChunk, TrackChunkEncoder).
    Status write(int64_t trackId, const ChunkSummary& s, std::string_view blob);

private:
    Statement m_insert;
    std::string m_blob;
    std::vector<char> m_scratch;  // encodeSliceChunk's streams, kept from chunk to chunk
};

}  // namespace ts::store
