#pragma once
// SliceScanner: reads slices out of their chunks in (track, ts, id) order — the order the
// `slices` table had when it was a clustered table — within bounds on track, ts and id.
// Chunks of one track normally follow one another; where a writer flushed a track's slices
// out of order, their chunks overlap and the scanner merges them (only the overlapping
// chunks are decoded at once). A point lookup by id decodes the chunk(s) holding it.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/store/slice_chunk_reader.h"
#include "core/store/slice_directory.h"

namespace ts::store {

/// Inclusive bounds; a scan with an empty range yields nothing.
struct SliceBounds {
    static constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    static constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    int64_t trackLo = kMin, trackHi = kMax;
    int64_t tsLo = kMin, tsHi = kMax;
    int64_t idLo = kMin, idHi = kMax;
    bool empty() const { return trackLo > trackHi || tsLo > tsHi || idLo > idHi; }
};

class SliceScanner {
public:
    /// Fetches chunk BLOBs through `db` (the scanner's own prepared statement).
    explicit SliceScanner(sqlite3* db);
    ~SliceScanner();
    SliceScanner(const SliceScanner&) = delete;
    SliceScanner& operator=(const SliceScanner&) = delete;

    /// Starts a scan over `dir`'s chunks. `columns`: SliceColumn bits the caller will read
    /// (ts and id are always decoded).
    Status start(std::shared_ptr<const SliceDirectory> dir, const SliceBounds& b, uint32_t columns);
    bool atEnd() const { return m_cur < 0; }
    Status next();

    /// The current row (valid while !atEnd()).
    int64_t track() const { return run().track; }
    int64_t id() const { return run().cols->id[run().pos]; }
    int64_t ts() const { return run().cols->ts[run().pos]; }
    int64_t dur() const { return run().cols->dur[run().pos]; }
    int32_t depth() const { return run().cols->depth[run().pos]; }
    int64_t nameId() const { return run().cols->nameId[run().pos]; }
    int64_t catId() const { return run().cols->catId[run().pos]; }
    int64_t argSetId() const { return run().cols->argSetId[run().pos]; }
    int32_t flags() const { return run().cols->flags[run().pos]; }
    /// Column `c` (SliceColumn) of the current row; must have been asked for.
    int64_t column(int c) const;

private:
    struct Run {
        std::shared_ptr<const SliceColumns> cols;
        int64_t track = 0;
        size_t pos = 0, end = 0;
    };
    struct Decoded {  // recently decoded chunks: joins look up ids chunk after chunk
        int64_t rowid = 0;
        uint32_t columns = 0;
        std::shared_ptr<const SliceColumns> cols;
    };
    const Run& run() const { return m_active[static_cast<size_t>(m_cur)]; }
    Status startGroup();
    Status fill();
    Status open(const ChunkInfo& c, bool single);
    Result<std::shared_ptr<const SliceColumns>> decode(const ChunkInfo& c);
    void skipFiltered(Run& r) const;
    void pick();

    SliceChunkReader m_reader;
    std::shared_ptr<const SliceDirectory> m_dir;
    SliceBounds m_b;
    uint32_t m_columns = 0;
    size_t m_next = 0, m_groupEnd = 0, m_end = 0;  // chunk indexes in m_dir->chunks()
    std::vector<Run> m_active;
    int m_cur = -1;
    std::vector<size_t> m_found;
    static constexpr size_t kRecent = 4;
    std::vector<Decoded> m_recent;
};

}  // namespace ts::store
