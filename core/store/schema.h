#pragma once
// The session schema: one ordered list of migrations. Migration i brings a file from
// user_version i to i+1. The full, commented DDL is in schema.cpp.
#include <span>
#include <string_view>

#include "core/common/result.h"

namespace ts::store {

class SqliteDb;

struct Migration {
    int toVersion;
    std::string_view summary;
    std::string_view sql;
    /// Work SQL cannot do (re-encoding rows), run after `sql`, then `sqlAfter`.
    Status (*step)(SqliteDb&) = nullptr;
    std::string_view sqlAfter = {};
};

/// Runs one migration on `db` (inside the caller's transaction).
Status applyMigration(SqliteDb& db, const Migration& m);

/// All migrations in order; the last one's toVersion is the current schema version.
std::span<const Migration> migrations();
int currentSchemaVersion();
/// Index DDL (CREATE INDEX IF NOT EXISTS ...). Bulk ingest may drop and re-create them.
std::string_view indexSql();
std::string_view dropIndexSql();

}  // namespace ts::store
