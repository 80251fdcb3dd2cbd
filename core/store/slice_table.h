#pragma once
// The `slices` virtual table: SQL over the slice chunks (slice_chunks, slice_chunk.h) with
// the columns the slices table always had (id, track_id, ts, dur, depth, name_id, cat_id,
// arg_set_id, flags), read-only. Constraints on track_id, ts and id (=, <, <=, >, >=) pick
// the chunks to decode; rows come out in (track_id, ts, id) order, so ORDER BY on those
// costs no sort. Every connection to a session registers the module (SqliteDb::open);
// other SQLite tools see the table but cannot read it ("no such module").
struct sqlite3;

namespace ts::store {

inline constexpr const char* kSliceModule = "trainscope_slices";

/// Registers the module on `db` (SQLITE_OK or an SQLite error code).
int registerSliceTable(sqlite3* db);

}  // namespace ts::store
