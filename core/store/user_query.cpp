#include "core/store/user_query.h"

#include <sqlite3.h>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>

namespace ts::store {
namespace {

// PRAGMAs that only report, with or without an argument (the table or index they describe).
constexpr std::array<std::string_view, 13> kInfoPragmas = {
    "table_info",  "table_xinfo",     "index_list",      "index_info",    "index_xinfo",
    "table_list",  "database_list",   "collation_list",  "function_list", "module_list",
    "pragma_list", "compile_options", "foreign_key_list"};
// PRAGMAs that report a value when given none (and set it when given one: refused then).
constexpr std::array<std::string_view, 9> kValuePragmas = {
    "user_version",   "schema_version", "application_id", "page_count",  "page_size",
    "freelist_count", "encoding",       "data_version",   "journal_mode"};

template <size_t N>
bool among(const std::array<std::string_view, N>& list, const char* name) {
    if (!name) return false;
    for (std::string_view s : list)
        if (sqlite3_stricmp(std::string(s).c_str(), name) == 0) return true;
    return false;
}

struct Check {
    std::string refused;  // the first thing refused, "" when none
};

// A PRAGMA read as a table (pragma_table_info(...)): the same list as the statement form.
// (A table-valued PRAGMA takes no value to set: its arguments are the table and schema.)
bool pragmaTableAllowed(const char* table) {
    if (!table || sqlite3_strnicmp(table, "pragma_", 7) != 0) return true;
    return among(kInfoPragmas, table + 7) || among(kValuePragmas, table + 7);
}

// The process's resident memory in bytes (0 when /proc cannot say).
uint64_t residentBytes() {
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long long size = 0, resident = 0;
    const int got = std::fscanf(f, "%llu %llu", &size, &resident);
    std::fclose(f);
    return got == 2 ? resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

int authorize(void* arg, int action, const char* a1, const char* a2, const char*, const char*) {
    auto* check = static_cast<Check*>(arg);
    auto deny = [&](std::string why) {
        if (check->refused.empty()) check->refused = std::move(why);
        return SQLITE_DENY;
    };
    switch (action) {
        case SQLITE_READ:
            if (!pragmaTableAllowed(a1))
                return deny(std::string("PRAGMA ") + (a1 + 7) + " (as the table " + a1 +
                            ") is not allowed in a query (only PRAGMAs that report)");
            return SQLITE_OK;
        case SQLITE_SELECT:
        case SQLITE_RECURSIVE:
            return SQLITE_OK;
        case SQLITE_FUNCTION:
            if (a2 && (sqlite3_stricmp(a2, "load_extension") == 0 ||
                       sqlite3_stricmp(a2, "fts3_tokenizer") == 0))
                return deny(std::string("the function ") + a2 + "() is not allowed in a query");
            return SQLITE_OK;
        case SQLITE_PRAGMA:
            if (among(kInfoPragmas, a1) || (among(kValuePragmas, a1) && !a2)) return SQLITE_OK;
            return deny(std::string("PRAGMA ") + (a1 ? a1 : "?") + (a2 ? " with a value" : "") +
                        " is not allowed in a query (only PRAGMAs that report)");
        case SQLITE_ATTACH:
        case SQLITE_DETACH:
            return deny("ATTACH and DETACH are not allowed in a query");
        case SQLITE_TRANSACTION:
        case SQLITE_SAVEPOINT:
            return deny("transactions are not allowed in a query");
        case SQLITE_UPDATE:
            // SQLite asks this for the schema table when it first connects a virtual table
            // (slices, args) on a connection. A user's UPDATE of it cannot pass anyway:
            // writable_schema is refused above and the statement would not be read-only.
            if (a1 && (sqlite3_stricmp(a1, "sqlite_master") == 0 ||
                       sqlite3_stricmp(a1, "sqlite_schema") == 0))
                return SQLITE_OK;
            return deny("only read-only statements are allowed (SELECT, WITH, ...)");
        default:  // every kind of write (the statement would not be read-only either)
            return deny("only read-only statements are allowed (SELECT, WITH, ...)");
    }
}

}  // namespace

Result<UserQuery> UserQuery::prepare(SqliteDb& db, std::string_view sql,
                                     const std::atomic<bool>* cancel, QueryLimits limits) {
    sqlite3* h = db.handle();
    // Temporary tables and sorts on disk, not in memory (changing it only when needed: a
    // change drops the connection's temporary objects).
    if (auto t = db.queryInt("PRAGMA temp_store", 0); !t || t.value() != 1)
        (void)db.exec("PRAGMA temp_store=FILE");
    Check check;
    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    sqlite3_set_authorizer(h, &authorize, &check);
    const int rc = sqlite3_prepare_v2(h, sql.data(), static_cast<int>(sql.size()), &stmt, &tail);
    sqlite3_set_authorizer(h, nullptr, nullptr);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(stmt);
        if (!check.refused.empty()) return Error{check.refused};
        return Error{"SQL error: " + db.lastError()};
    }
    Statement st(h, stmt, {});
    if (!stmt) return Error{"empty query"};
    if (!sqlite3_stmt_readonly(stmt))
        return Error{"only read-only statements are allowed (SELECT, WITH, ...)"};
    // Only comments and semicolons may follow: a second statement is refused unrun.
    const char* end = sql.data() + sql.size();
    while (tail && tail < end) {
        sqlite3_stmt* next = nullptr;
        const char* after = nullptr;
        const int r = sqlite3_prepare_v2(h, tail, static_cast<int>(end - tail), &next, &after);
        sqlite3_finalize(next);
        if (r != SQLITE_OK || next) return Error{"only one statement is allowed"};
        if (after == tail) break;
        tail = after;
    }
    UserQuery q;
    q.m_st = std::move(st);
    q.m_guard = std::make_unique<Guard>();
    q.m_guard->db = h;
    q.m_guard->cancel = cancel;
    if (limits.timeout && limits.timeout->count() > 0) {
        q.m_guard->timeout = *limits.timeout;
        q.m_guard->deadline = std::chrono::steady_clock::now() + *limits.timeout;
    }
    if (limits.memoryBytes && *limits.memoryBytes > 0) {
        q.m_guard->memoryBytes = *limits.memoryBytes;
        q.m_guard->residentAtStart = residentBytes();
    }
    return q;
}

int UserQuery::onProgress(void* arg) {
    auto* g = static_cast<Guard*>(arg);
    if (g->cancel && g->cancel->load(std::memory_order_relaxed)) {
        g->stop = Stop::Cancelled;
        return 1;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= g->deadline) {
        g->stop = Stop::TimedOut;
        return 1;
    }
    // /proc is read a few times a second, not on every callback.
    if (g->memoryBytes > 0 && now >= g->nextMemoryCheck) {
        g->nextMemoryCheck = now + std::chrono::milliseconds(50);
        const uint64_t resident = residentBytes();
        if (resident > g->residentAtStart && resident - g->residentAtStart > g->memoryBytes) {
            g->stop = Stop::OutOfMemory;
            return 1;
        }
    }
    return 0;
}

bool UserQuery::step() {
    if (!m_guard) return false;
    if (m_guard->stop != Stop::None) return false;
    const bool watch = m_guard->cancel || m_guard->timeout.count() > 0 || m_guard->memoryBytes > 0;
    if (watch) sqlite3_progress_handler(m_guard->db, 1000, &UserQuery::onProgress, m_guard.get());
    const bool row = m_st.step();
    if (watch) sqlite3_progress_handler(m_guard->db, 0, nullptr, nullptr);
    return row;
}

std::string UserQuery::error() const {
    if (m_guard && m_guard->stop == Stop::Cancelled) return "query cancelled";
    if (m_guard && m_guard->stop == Stop::TimedOut) {
        const auto ms = m_guard->timeout.count();
        return "query timed out after " +
               (ms % 1000 ? std::to_string(ms) + " ms" : std::to_string(ms / 1000) + " s");
    }
    if (m_guard && m_guard->stop == Stop::OutOfMemory)
        return "query stopped: it took more than " + std::to_string(m_guard->memoryBytes >> 20) +
               " MiB of memory";
    return m_st.error();
}

}  // namespace ts::store
