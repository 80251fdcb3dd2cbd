#pragma once
// Arg chunks: the JSON texts of event arguments, kept like slices (slice_chunk.h) — many
// per row of `arg_chunks` instead of one row each — because Kineto traces carry an args
// object on most events and a row per object costs SQLite ~0.4 us. A chunk holds up to
// kArgChunkRows texts (or about kArgChunkBytes of them) of one source with consecutive ids
// min_id, min_id + 1, ...; the `args` virtual table (arg_table.h) gives SQL the rows back.
//
// BLOB layout (format 1): byte 0 = format; varint count; count varints = byte length of each
// text; the texts one after the other.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/result.h"
#include "core/store/sqlite_db.h"
#include "core/store/vtab_support.h"

namespace ts::store {

constexpr size_t kArgChunkRows = 4096;
constexpr size_t kArgChunkBytes = size_t{1} << 20;

/// A decoded chunk: text i is blob[offsets[i], offsets[i + 1]).
struct ArgTexts {
    std::string blob;
    std::vector<uint32_t> offsets;
    size_t count() const { return offsets.empty() ? 0 : offsets.size() - 1; }
    std::string_view text(size_t i) const {
        return std::string_view(blob).substr(offsets[i], offsets[i + 1] - offsets[i]);
    }
};

/// Decodes `blob`; false (with `why`) when it is damaged. Never reads outside it.
bool decodeArgChunk(std::string_view blob, ArgTexts& out, std::string* why = nullptr);

/// Collects one source's args and writes them as chunks.
class ArgChunkWriter {
public:
    ArgChunkWriter() = default;
    ArgChunkWriter(SqliteDb& db, int64_t sourceId);
    /// Adds the text of arg id `id`; ids must follow each other (the writer assigns them).
    Status add(int64_t id, std::string_view json);
    /// Writes the chunk being filled, if any.
    Status flush();

private:
    Statement m_insert;
    int64_t m_sourceId = 0;
    int64_t m_firstId = 0;
    std::vector<uint32_t> m_lengths;
    std::string m_texts, m_blob;
};

struct ArgChunkInfo {
    int64_t rowid = 0, sourceId = 0, minId = 0, count = 0;
};

/// The summaries of every arg chunk, sorted by min_id (a snapshot, like SliceDirectory).
class ArgDirectory {
public:
    static Result<std::shared_ptr<const ArgDirectory>> load(sqlite3* db);
    const std::vector<ArgChunkInfo>& chunks() const { return m_chunks; }
    /// Index of the chunk holding `id`, or -1.
    ptrdiff_t find(int64_t id) const;
    /// Index of the first chunk that may hold ids >= id.
    size_t lowerBound(int64_t id) const;
    int64_t rows() const { return m_rows; }

private:
    std::vector<ArgChunkInfo> m_chunks;
    int64_t m_rows = 0;
};

/// Fetches and decodes arg chunk BLOBs through one prepared statement.
class ArgChunkReader {
public:
    explicit ArgChunkReader(sqlite3* db) : m_blobs(db, "arg_chunks") {}
    Result<std::shared_ptr<const ArgTexts>> read(const ArgChunkInfo& c);

private:
    ChunkBlobReader m_blobs;
};

}  // namespace ts::store
