#include "core/store/sqlite_db.h"

#include <sqlite3.h>

#include <fstream>
#include <mutex>
#include <utility>

#include "core/store/arg_table.h"
#include "core/store/slice_table.h"

namespace ts::store {

namespace {
/// Turns off SQLite's global allocation statistics (a mutex on every malloc) before the
/// library initialises; we never read them. Later calls are no-ops.
void configureSqliteOnce() {
    static std::once_flag once;
    std::call_once(once, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
}
}  // namespace

SqliteDb::~SqliteDb() {
    if (m_db) sqlite3_close_v2(m_db);
}

SqliteDb::SqliteDb(SqliteDb&& o) noexcept
    : m_db(std::exchange(o.m_db, nullptr)), m_readOnly(o.m_readOnly) {}

SqliteDb& SqliteDb::operator=(SqliteDb&& o) noexcept {
    if (this != &o) {
        if (m_db) sqlite3_close_v2(m_db);
        m_db = std::exchange(o.m_db, nullptr);
        m_readOnly = o.m_readOnly;
    }
    return *this;
}

Result<SqliteDb> SqliteDb::open(const std::string& path, Mode mode) {
    configureSqliteOnce();
    int flags = SQLITE_OPEN_NOMUTEX;
    switch (mode) {
        case Mode::ReadOnly:
            flags |= SQLITE_OPEN_READONLY;
            break;
        case Mode::ReadWrite:
            flags |= SQLITE_OPEN_READWRITE;
            break;
        case Mode::Create:
            flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
            break;
        case Mode::Immutable:
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
            break;
    }
    SqliteDb db;
    db.m_readOnly = mode == Mode::ReadOnly || mode == Mode::Immutable;
    std::string name = path;
    if (mode == Mode::Immutable) {  // a URI filename: '%', '?' and '#' escaped
        name = "file:";
        for (const char c : path) {
            if (c == '%' || c == '?' || c == '#') {
                static const char kHex[] = "0123456789abcdef";
                const auto u = static_cast<unsigned char>(c);
                name += {'%', kHex[u >> 4], kHex[u & 15]};
            } else {
                name += c;
            }
        }
        name += "?immutable=1";
    }
    const int rc = sqlite3_open_v2(name.c_str(), &db.m_db, flags, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = db.m_db ? sqlite3_errmsg(db.m_db) : sqlite3_errstr(rc);
        return Error{"cannot open '" + path + "': " + msg};
    }
    sqlite3_extended_result_codes(db.m_db, 1);
    sqlite3_busy_timeout(db.m_db, 5000);
    // Sessions keep slices and args in chunks behind virtual tables (slice_table.h,
    // arg_table.h).
    for (int (*reg)(sqlite3*) : {registerSliceTable, registerArgTable})
        if (const int mrc = reg(db.m_db); mrc != SQLITE_OK)
            return Error{"cannot open '" + path + "': " + sqlite3_errstr(mrc)};
    return db;
}

Status SqliteDb::exec(std::string_view sql) {
    char* err = nullptr;
    const std::string s(sql);
    if (sqlite3_exec(m_db, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : lastError();
        sqlite3_free(err);
        return Error{msg};
    }
    return {};
}

Statement SqliteDb::prepare(std::string_view sql) {
    sqlite3_stmt* stmt = nullptr;
    const int rc = sqlite3_prepare_v3(m_db, sql.data(), static_cast<int>(sql.size()),
                                      SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) return Statement(m_db, nullptr, lastError());
    if (!stmt) return Statement(m_db, nullptr, "empty statement");
    return Statement(m_db, stmt, {});
}

Result<int64_t> SqliteDb::queryInt(std::string_view sql, int64_t fallback) {
    Statement st = prepare(sql);
    if (!st.ok()) return Error{st.error()};
    if (st.step()) return st.int64(0);
    if (!st.error().empty()) return Error{st.error()};
    return fallback;
}

std::string SqliteDb::lastError() const {
    return m_db ? sqlite3_errmsg(m_db) : "no database";
}
bool isSqliteFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char head[kSqliteHeader.size()] = {};
    in.read(head, sizeof head);
    return std::string_view(head, static_cast<size_t>(in.gcount())) == kSqliteHeader;
}

bool isDiskFull(std::string_view error) {
    return error.find(sqlite3_errstr(SQLITE_FULL)) != std::string_view::npos;
}

int SqliteDb::lastErrorCode() const {
    return m_db ? sqlite3_extended_errcode(m_db) : SQLITE_MISUSE;
}
int64_t SqliteDb::lastInsertId() const {
    return sqlite3_last_insert_rowid(m_db);
}
int SqliteDb::changes() const {
    return sqlite3_changes(m_db);
}

Statement::Statement(sqlite3* db, sqlite3_stmt* stmt, std::string error)
    : m_db(db), m_stmt(stmt), m_error(std::move(error)) {}

Statement::~Statement() {
    if (m_stmt) sqlite3_finalize(m_stmt);
}

Statement::Statement(Statement&& o) noexcept
    : m_db(o.m_db), m_stmt(std::exchange(o.m_stmt, nullptr)), m_error(std::move(o.m_error)) {}

Statement& Statement::operator=(Statement&& o) noexcept {
    if (this != &o) {
        if (m_stmt) sqlite3_finalize(m_stmt);
        m_db = o.m_db;
        m_stmt = std::exchange(o.m_stmt, nullptr);
        m_error = std::move(o.m_error);
    }
    return *this;
}

Statement& Statement::bind(int idx, int64_t v) {
    if (m_stmt) sqlite3_bind_int64(m_stmt, idx, v);
    return *this;
}
Statement& Statement::bind(int idx, double v) {
    if (m_stmt) sqlite3_bind_double(m_stmt, idx, v);
    return *this;
}
Statement& Statement::bind(int idx, std::string_view v) {
    if (m_stmt)
        sqlite3_bind_text(m_stmt, idx, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
}
Statement& Statement::bindBlob(int idx, const void* data, size_t bytes) {
    if (m_stmt) sqlite3_bind_blob64(m_stmt, idx, data, bytes, SQLITE_TRANSIENT);
    return *this;
}
Statement& Statement::bindBlobNoCopy(int idx, const void* data, size_t bytes) {
    if (m_stmt) sqlite3_bind_blob64(m_stmt, idx, data, bytes, SQLITE_STATIC);
    return *this;
}
Statement& Statement::bindNull(int idx) {
    if (m_stmt) sqlite3_bind_null(m_stmt, idx);
    return *this;
}

bool Statement::step() {
    if (!m_stmt) return false;
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) m_error = sqlite3_errmsg(m_db);
    return false;
}

Status Statement::run() {
    if (!m_stmt) return Error{m_error.empty() ? "statement not prepared" : m_error};
    const int rc = sqlite3_step(m_stmt);
    sqlite3_reset(m_stmt);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) return Error{sqlite3_errmsg(m_db)};
    return {};
}

void Statement::reset() {
    if (m_stmt) {
        sqlite3_reset(m_stmt);
        sqlite3_clear_bindings(m_stmt);
    }
    m_error.clear();
}

int Statement::columnCount() const {
    return m_stmt ? sqlite3_column_count(m_stmt) : 0;
}
std::string Statement::columnName(int col) const {
    const char* n = sqlite3_column_name(m_stmt, col);
    return n ? n : "";
}
int Statement::columnType(int col) const {
    return sqlite3_column_type(m_stmt, col);
}
bool Statement::isNull(int col) const {
    return columnType(col) == SQLITE_NULL;
}
int64_t Statement::int64(int col) const {
    return sqlite3_column_int64(m_stmt, col);
}
double Statement::real(int col) const {
    return sqlite3_column_double(m_stmt, col);
}
std::string Statement::text(int col) const {
    return std::string(textView(col));
}
std::string_view Statement::textView(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, col));
    if (!p) return {};
    return {p, static_cast<size_t>(sqlite3_column_bytes(m_stmt, col))};
}
std::string_view Statement::blob(int col) const {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(m_stmt, col));
    if (!p) return {};
    return {p, static_cast<size_t>(sqlite3_column_bytes(m_stmt, col))};
}
bool Statement::isReadOnly() const {
    return m_stmt && sqlite3_stmt_readonly(m_stmt) != 0;
}

}  // namespace ts::store
