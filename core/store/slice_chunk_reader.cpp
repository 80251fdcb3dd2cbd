#include "core/store/slice_chunk_reader.h"

#include <sqlite3.h>

#include <string>

namespace ts::store {

SliceChunkReader::~SliceChunkReader() {
    sqlite3_finalize(m_fetch);
}

Result<std::shared_ptr<const SliceColumns>> SliceChunkReader::read(const ChunkInfo& c,
                                                                   uint32_t columns) {
    if (!m_fetch && sqlite3_prepare_v3(m_db, "SELECT data FROM slice_chunks WHERE id = ?", -1,
                                       SQLITE_PREPARE_PERSISTENT, &m_fetch, nullptr) != SQLITE_OK)
        return Error{std::string("slice chunks: ") + sqlite3_errmsg(m_db)};
    sqlite3_bind_int64(m_fetch, 1, c.rowid);
    const int rc = sqlite3_step(m_fetch);
    if (rc != SQLITE_ROW) {
        const std::string why = rc == SQLITE_DONE ? "chunk " + std::to_string(c.rowid) + " is gone"
                                                  : std::string(sqlite3_errmsg(m_db));
        sqlite3_reset(m_fetch);
        return Error{"slice chunks: " + why};
    }
    const auto* data = static_cast<const char*>(sqlite3_column_blob(m_fetch, 0));
    const std::string_view blob(data ? data : "",
                                static_cast<size_t>(sqlite3_column_bytes(m_fetch, 0)));
    auto cols = std::make_shared<SliceColumns>();
    std::string why;
    const bool ok = decodeSliceChunk(blob, columns, *cols, &why);
    sqlite3_reset(m_fetch);
    if (!ok || cols->count != static_cast<size_t>(c.s.count))
        return Error{
            "slice chunk " + std::to_string(c.rowid) + " of track " + std::to_string(c.trackId) +
            " is damaged" +
            (ok ? ": it holds another number of slices than its summary says" : ": " + why)};
    return std::shared_ptr<const SliceColumns>(std::move(cols));
}

Status forEachSliceChunk(sqlite3* db, int64_t trackLo, int64_t trackHi, uint32_t columns,
                         const std::function<Status(const ChunkInfo&, const SliceColumns&)>& f) {
    auto dir = SliceDirectory::load(db);
    if (!dir) return Error{dir.error()};
    SliceChunkReader reader(db);
    const auto [begin, end] = dir.value()->trackRange(trackLo, trackHi);
    for (size_t i = begin; i < end; ++i) {
        const ChunkInfo& c = dir.value()->chunks()[i];
        auto cols = reader.read(c, columns);
        if (!cols) return Error{cols.error()};
        if (auto s = f(c, *cols.value()); !s) return s;
    }
    return {};
}

}  // namespace ts::store
