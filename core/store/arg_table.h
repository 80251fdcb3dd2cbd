#pragma once
// The `args` virtual table: SQL over the arg chunks (arg_chunk.h) with the columns the args
// table always had (id, source_id, json), read-only. Constraints on id and source_id pick
// the chunks; rows come out in id order. Registered on every connection (SqliteDb::open).
struct sqlite3;

namespace ts::store {

inline constexpr const char* kArgModule = "trainscope_args";

/// Registers the module on `db` (SQLITE_OK or an SQLite error code).
int registerArgTable(sqlite3* db);

}  // namespace ts::store
