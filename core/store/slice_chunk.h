#pragma once
// Slice chunks: how the store keeps duration events. Up to kSliceChunkRows slices of one
// track, sorted by (ts, id), make one row of table `slice_chunks`: a few summary columns
// (time and id bounds) and a BLOB with the slice columns, each a stream of varints (deltas
// where values grow: ts, id, arg ids). One row per 4,096 slices instead of one row per
// slice is what lets an import write millions of slices at the speed it parses them; the
// `slices` virtual table (slice_table.h) gives SQL the rows back.
//
// BLOB layout (format 1): byte 0 = format; varint count; 8 varints = byte length of each
// column stream in the order id, ts, dur, depth, name_id, cat_id, arg_set_id, flags; then
// the streams. id, ts: first value zigzag, then zigzag deltas (wrapping, so every int64
// round-trips); dur, depth, name_id, cat_id, flags: zigzag; arg_set_id: 0 for none, else
// 1 + zigzag(delta to the previous non-zero one).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ts::store {

/// Slices per chunk. Larger chunks mean fewer rows to write and read; smaller ones less to
/// decode for a point lookup (a 4,096-slice chunk decodes in ~10 us).
constexpr size_t kSliceChunkRows = 4096;

/// One slice as writers hand it over.
struct SliceRow {
    int64_t trackId = 0;
    int64_t ts = 0;
    int64_t dur = 0;
    int32_t depth = 0;
    int64_t nameId = 0;
    int64_t catId = 0;     // 0 = none (NULL in SQL)
    int64_t argSetId = 0;  // 0 = none (NULL in SQL)
    int32_t flags = 0;
};

/// A slice with its id (ids are assigned by the writer).
struct StoredSlice {
    int64_t id = 0;
    SliceRow row;
};

/// Columns of the `slices` table, in its declared order; bit (1u << column) in masks.
enum SliceColumn : int {
    kSliceId = 0,
    kSliceTrack = 1,
    kSliceTs = 2,
    kSliceDur = 3,
    kSliceDepth = 4,
    kSliceName = 5,
    kSliceCat = 6,
    kSliceArgs = 7,
    kSliceFlags = 8,
    kSliceColumnCount = 9
};
constexpr uint32_t kAllSliceColumns = (1u << kSliceColumnCount) - 1;

/// Decoded columns of one chunk (struct of arrays, rows in (ts, id) order). A column not
/// asked for is left empty.
struct SliceColumns {
    std::vector<int64_t> id, ts, dur, nameId, catId, argSetId;
    std::vector<int32_t> depth, flags;
    size_t count = 0;
};

/// What slice_chunks keeps beside the BLOB.
struct ChunkSummary {
    int64_t count = 0;
    int64_t minTs = 0, maxTs = 0;     // first and last ts (rows are sorted)
    int64_t maxEnd = 0;               // max(ts + dur)
    int64_t minId = 0, maxId = 0;     // bounds of the ids held
    int64_t firstId = 0, lastId = 0;  // ids of the first and last row
};

/// Sorts `rows` (one track's) by (ts, id) when they are not already, and encodes them.
/// `scratch` holds the column streams while encoding (keep it to encode chunk after chunk).
std::string encodeSliceChunk(std::span<StoredSlice> rows, ChunkSummary& summary,
                             std::vector<char>& scratch);
std::string encodeSliceChunk(std::span<StoredSlice> rows, ChunkSummary& summary);

/// One track's slices as chunks, ready to be written: a TrackChunkEncoder makes it on any
/// thread (it touches no store), StoreWriter::addTrackChunks() writes it.
struct TrackChunks {
    struct NameTotal {
        int64_t nameId = 0, count = 0, total = 0, min = 0, max = 0;
    };
    int64_t trackId = 0;
    int64_t slices = 0;
    std::vector<ChunkSummary> summaries;
    std::vector<std::string> blobs;
    std::vector<NameTotal> names;  // by-name totals (slice_name_stats)
};

/// Encodes a track handed over slice by slice in (ts, id) order into chunks of
/// kSliceChunkRows that follow one another in time, holding one chunk's rows at a time (a
/// track of millions of slices never needs a row buffer of its size).
class TrackChunkEncoder {
public:
    explicit TrackChunkEncoder(int64_t trackId);
    /// The next slice; (ts, id) must not decrease.
    void add(const StoredSlice& s);
    /// The chunks and by-name totals; the encoder is empty afterwards.
    TrackChunks finish();
    /// Chunks complete so far (their slices; no by-name totals: finish() gives those), so a
    /// long track is written while it is encoded.
    TrackChunks takeChunks();
    size_t pendingChunks() const { return m_out.blobs.size(); }

private:
    void encodeChunk();
    TrackChunks m_out;
    std::vector<StoredSlice> m_rows;  // the chunk being filled
    std::vector<char> m_scratch;      // column streams while encoding
    std::vector<int32_t> m_nameSlot;  // name id -> m_out.names (ids below kDenseNames)
    std::unordered_map<int64_t, int32_t> m_sparseSlot;  // the other name ids
    static constexpr int64_t kDenseNames = int64_t{1} << 22;
};

/// Decodes the columns in `columns` (a mask of SliceColumn bits; track is not in the BLOB).
/// False, with `why`, when the BLOB is damaged: never reads outside it.
bool decodeSliceChunk(std::string_view blob, uint32_t columns, SliceColumns& out,
                      std::string* why = nullptr);

}  // namespace ts::store
