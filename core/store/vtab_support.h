#pragma once
// What the store's virtual tables (slices, args) share: when a snapshot of chunk summaries
// is stale, and how a constraint value narrows an integer range exactly as SQLite would
// compare it with an INTEGER column.
#include <cstdint>
#include <string>

struct sqlite3;
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
