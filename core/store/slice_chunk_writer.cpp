#include "core/store/slice_chunk_writer.h"

namespace ts::store {

SliceChunkWriter::SliceChunkWriter(SqliteDb& db)
    : m_insert(db.prepare(
          "INSERT INTO slice_chunks(track_id, count, min_ts, max_ts, max_end, min_id, max_id, "
          "first_id, last_id, data) VALUES(?,?,?,?,?,?,?,?,?,?)")) {}

Status SliceChunkWriter::write(int64_t trackId, std::vector<StoredSlice>& rows) {
    if (rows.empty()) return {};
    ChunkSummary s;
    m_blob = encodeSliceChunk(rows, s, m_scratch);
    return write(trackId, s, m_blob);
}

Status SliceChunkWriter::write(int64_t trackId, const ChunkSummary& s, std::string_view blob) {
    m_insert.bind(1, trackId).bind(2, s.count).bind(3, s.minTs).bind(4, s.maxTs);
    m_insert.bind(5, s.maxEnd).bind(6, s.minId).bind(7, s.maxId).bind(8, s.firstId);
    m_insert.bind(9, s.lastId).bindBlobNoCopy(10, blob.data(), blob.size());
    return m_insert.run();
}

}  // namespace ts::store
