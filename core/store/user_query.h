#pragma once
// UserQuery: SQL typed by a user (`trainscope-cli query`, the studio's SQL tab) run over a
// session read-only, whatever mode the session was opened in, and stoppable.
//
// prepare() accepts exactly one statement that reads: it refuses a second statement, any
// statement SQLite says writes (sqlite3_stmt_readonly), and — through an authorizer while the
// statement is compiled — what is "read-only" to SQLite yet changes or escapes the
// connection: ATTACH/DETACH, transactions and savepoints, PRAGMAs other than the ones that
// only report (writable_schema among those refused), and the functions load_extension and
// fts3_tokenizer. Each refusal says what was refused.
//
// A PRAGMA called as a table-valued function (`SELECT * FROM pragma_optimize(...)`) passes the
// same allow-list as the statement form.
//
// step() runs under a progress handler (installed for the step only, so nothing is left on
// the connection) that stops the statement (SQLITE_INTERRUPT) once the cancel token says so,
// the time limit has passed or the process's resident memory has grown by more than the
// memory limit since prepare(); error() then says "query cancelled", "query timed out after
// N s" or "query stopped: it took more than N MiB of memory", and stopped() tells which.
// Every query has both limits unless its caller lifts them (QueryLimits: the CLI's --timeout
// and --memory-limit), and its temporary tables and sorts go to disk (temp_store=FILE), so a
// runaway recursive CTE ends instead of taking the machine's memory.
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/common/result.h"
#include "core/store/sqlite_db.h"

namespace ts::store {

/// The limits of a query when its caller sets none.
inline constexpr std::chrono::milliseconds kDefaultQueryTimeout{5 * 60 * 1000};
inline constexpr uint64_t kDefaultQueryMemoryBytes = uint64_t{2} << 30;

/// How long a query may run (from prepare()) and how much the process's resident memory may
/// grow while it runs; an empty optional lifts that limit.
struct QueryLimits {
    std::optional<std::chrono::milliseconds> timeout = kDefaultQueryTimeout;
    std::optional<uint64_t> memoryBytes = kDefaultQueryMemoryBytes;
};

class UserQuery {
public:
    enum class Stop { None, Cancelled, TimedOut, OutOfMemory };

    /// Checks and compiles `sql` on `db`. `cancel` (may be null) is read from the step loop;
    /// it may be set from any thread or a signal handler.
    static Result<UserQuery> prepare(SqliteDb& db, std::string_view sql,
                                     const std::atomic<bool>* cancel = nullptr,
                                     QueryLimits limits = {});
    /// An empty query (step() gives no row); prepare() makes real ones.
    UserQuery() = default;

    /// The next row: true when one is ready; false at the end, on an error or when stopped.
    bool step();
    const Statement& statement() const { return m_st; }
    /// Empty while fine; the SQL error, or why the query was stopped.
    std::string error() const;
    Stop stopped() const { return m_guard ? m_guard->stop : Stop::None; }

private:
    struct Guard {
        sqlite3* db = nullptr;
        const std::atomic<bool>* cancel = nullptr;
        std::chrono::steady_clock::time_point deadline =
            std::chrono::steady_clock::time_point::max();
        std::chrono::milliseconds timeout{0};
        uint64_t memoryBytes = 0;  // 0: no limit
        uint64_t residentAtStart = 0;
        std::chrono::steady_clock::time_point nextMemoryCheck;
        Stop stop = Stop::None;
    };
    static int onProgress(void* guard);

    Statement m_st;
    std::unique_ptr<Guard> m_guard;  // stable address for the progress handler
};

}  // namespace ts::store
