#include "core/store/slice_chunk_reader.h"

#include <string>

namespace ts::store {

Result<std::shared_ptr<const SliceColumns>> SliceChunkReader::read(const ChunkInfo& c,
                                                                   uint32_t columns) {
    auto cols = std::make_shared<SliceColumns>();
    Status s = m_blobs.read(c.rowid, [&](std::string_view blob) -> Status {
        std::string why;
        const bool ok = decodeSliceChunk(blob, columns, *cols, &why);
        if (ok && cols->count == static_cast<size_t>(c.s.count)) return {};
        return Error{
            "slice chunk " + std::to_string(c.rowid) + " of track " + std::to_string(c.trackId) +
            " is damaged" +
            (ok ? ": it holds another number of slices than its summary says" : ": " + why)};
    });
    if (!s) return Error{s.error()};
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
