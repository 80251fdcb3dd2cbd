#pragma once
// What the store's chunk readers and virtual tables (slices, args) share: when a snapshot
// of chunk summaries is stale, reading one chunk's BLOB, and how a constraint value narrows
// an integer range exactly as SQLite would compare it with an INTEGER column.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/common/result.h"

struct sqlite3;
struct sqlite3_stmt;
struct sqlite3_value;
struct sqlite3_vtab;

namespace ts::store {

/// Changes whenever the database may hold other rows: the file's data version (commits of
/// any connection) and this connection's change count (its own uncommitted writes).
struct DirectoryKey {
    uint64_t dataVersion = 0;
    int64_t changes = -1;
    bool operator==(const DirectoryKey&) const = default;
};
DirectoryKey directoryKey(sqlite3* db);

/// `dir` as the database is now: loaded again with Dir::load(db) when `key` says the
/// database changed since it was read.
template <class Dir>
Result<std::shared_ptr<const Dir>> currentDirectory(sqlite3* db, std::shared_ptr<const Dir>& dir,
                                                    DirectoryKey& key) {
    const DirectoryKey now = directoryKey(db);
    if (!dir || !(now == key)) {
        auto d = Dir::load(db);
        if (!d) return Error{d.error()};
        dir = std::move(d.value());
        key = now;
    }
    return dir;
}

/// Reads chunk BLOBs of one table (`slice_chunks`, `arg_chunks`) by rowid through a
/// statement it prepares once.
class ChunkBlobReader {
public:
    ChunkBlobReader(sqlite3* db, const char* table) : m_db(db), m_table(table) {}
    ~ChunkBlobReader();
    ChunkBlobReader(const ChunkBlobReader&) = delete;
    ChunkBlobReader& operator=(const ChunkBlobReader&) = delete;
    /// Hands the BLOB of row `rowid` to `use` (valid only during the call).
    Status read(int64_t rowid, const std::function<Status(std::string_view)>& use);

private:
    sqlite3* m_db;
    const char* m_table;
    sqlite3_stmt* m_fetch = nullptr;
};

/// One character per SQLite constraint operator we index: '=', '>', 'G' (>=), '<', 'L' (<=);
/// 0 for the others.
char constraintOp(unsigned char sqliteOp);

/// Narrows [lo, hi] (inclusive) to the integers x for which "x op v" holds under SQLite's
/// rules for an INTEGER column: numeric text compares as its number, other text and blobs
/// sort after every number, NULL matches nothing (then lo > hi).
void narrowToConstraint(char op, sqlite3_value* v, int64_t& lo, int64_t& hi);

/// Sets the virtual table's error message; returns SQLITE_ERROR.
int vtabError(sqlite3_vtab* v, const std::string& msg);

}  // namespace ts::store
