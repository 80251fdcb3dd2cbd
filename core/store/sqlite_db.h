#pragma once
// Thin RAII wrappers over the SQLite C API: a connection and a prepared statement.
// Errors never throw: exec/step report them through Status and lastError().
#include <cstdint>
#include <string>
#include <string_view>

#include "core/common/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ts::store {

class Statement;

/// One SQLite connection. Not thread-safe: one thread uses it at a time.
class SqliteDb {
public:
    /// Immutable: read-only, and SQLite assumes nothing changes the file (no locks, no
    /// -shm or -wal): for a session on read-only media, which cannot hold those files.
    enum class Mode { ReadOnly, ReadWrite, Create, Immutable };

    SqliteDb() = default;
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;
    SqliteDb(SqliteDb&& o) noexcept;
    SqliteDb& operator=(SqliteDb&& o) noexcept;

    static Result<SqliteDb> open(const std::string& path, Mode mode);

    /// Runs one or more statements without results.
    Status exec(std::string_view sql);
    /// Prepares one statement; errors come back in the Statement (see Statement::ok()).
    Statement prepare(std::string_view sql);
    /// Runs a query that returns one integer (or `fallback` when it returns no row).
    Result<int64_t> queryInt(std::string_view sql, int64_t fallback = 0);

    std::string lastError() const;
    /// SQLite's extended result code of the last call that failed (SQLITE_FULL, ...).
    int lastErrorCode() const;
    int64_t lastInsertId() const;
    int changes() const;
    sqlite3* handle() const { return m_db; }
    bool readOnly() const { return m_readOnly; }

private:
    sqlite3* m_db = nullptr;
    bool m_readOnly = false;
};

/// True when `error` (a message of SqliteDb or Statement) says the disk or database is full.
bool isDiskFull(std::string_view error);

/// The 16 bytes every SQLite database file starts with.
inline constexpr std::string_view kSqliteHeader{"SQLite format 3\0", 16};

/// Whether the file at `path` starts with SQLite's header: a session, or another tool's
/// SQLite file (an Nsight Systems export).
bool isSqliteFile(const std::string& path);

/// A prepared statement. Bind indexes start at 1; column indexes at 0.
class Statement {
public:
    Statement() = default;
    Statement(sqlite3* db, sqlite3_stmt* stmt, std::string error);
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    Statement(Statement&& o) noexcept;
    Statement& operator=(Statement&& o) noexcept;

    bool ok() const { return m_stmt != nullptr && m_error.empty(); }
    const std::string& error() const { return m_error; }

    Statement& bind(int idx, int64_t v);
    Statement& bind(int idx, int v) { return bind(idx, static_cast<int64_t>(v)); }
    Statement& bind(int idx, double v);
    Statement& bind(int idx, std::string_view v);
    Statement& bind(int idx, const char* v) { return bind(idx, std::string_view(v)); }
    Statement& bind(int idx, const std::string& v) { return bind(idx, std::string_view(v)); }
    Statement& bindBlob(int idx, const void* data, size_t bytes);
    /// Binds without a copy: `data` must stay valid until the statement is stepped.
    Statement& bindBlobNoCopy(int idx, const void* data, size_t bytes);
    Statement& bindNull(int idx);

    /// Advances: true when a row is ready, false when done or failed (then error() is set).
    bool step();
    /// Runs a statement without rows to completion; resets it for reuse.
    Status run();
    void reset();

    int columnCount() const;
    std::string columnName(int col) const;
    /// SQLite type of the column in the current row (SQLITE_INTEGER, ...).
    int columnType(int col) const;
    bool isNull(int col) const;
    int64_t int64(int col) const;
    double real(int col) const;
    std::string text(int col) const;
    std::string_view textView(int col) const;
    std::string_view blob(int col) const;
    bool isReadOnly() const;
    sqlite3_stmt* handle() const { return m_stmt; }

private:
    sqlite3* m_db = nullptr;
    sqlite3_stmt* m_stmt = nullptr;
    std::string m_error;
};

}  // namespace ts::store
