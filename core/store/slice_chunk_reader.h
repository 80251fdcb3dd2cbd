#pragma once
// SliceChunkReader: fetches chunk BLOBs (slice_chunks.data) through a connection and decodes
// them, checking that a chunk holds what its summary says. forEachSliceChunk() hands every
// chunk of a track range to a callback, for readers that take whole columns (the timeline
// model) rather than rows in order (SliceScanner, the `slices` table).
#include <cstdint>
#include <functional>
#include <memory>

#include "core/common/result.h"
#include "core/store/slice_directory.h"
#include "core/store/vtab_support.h"

namespace ts::store {

class SliceChunkReader {
public:
    explicit SliceChunkReader(sqlite3* db) : m_blobs(db, "slice_chunks") {}

    /// The columns in `columns` (SliceColumn bits) of chunk `c`; an error when the chunk is
    /// gone or damaged.
    Result<std::shared_ptr<const SliceColumns>> read(const ChunkInfo& c, uint32_t columns);

private:
    ChunkBlobReader m_blobs;
};

/// Calls `f` for every chunk of the tracks in [trackLo, trackHi], by track and then by time
/// (the chunks of a track may overlap in time when a writer flushed it out of order).
Status forEachSliceChunk(sqlite3* db, int64_t trackLo, int64_t trackHi, uint32_t columns,
                         const std::function<Status(const ChunkInfo&, const SliceColumns&)>& f);

}  // namespace ts::store
