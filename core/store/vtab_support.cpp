#include "core/store/vtab_support.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ts::store {

DirectoryKey directoryKey(sqlite3* db) {
    DirectoryKey k;
    unsigned int version = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK)
        k.dataVersion = version;
    k.changes = sqlite3_total_changes64(db);
    return k;
}

ChunkBlobReader::~ChunkBlobReader() {
    sqlite3_finalize(m_fetch);
}

Status ChunkBlobReader::read(int64_t rowid, const std::function<Status(std::string_view)>& use) {
    if (!m_fetch) {
        const std::string sql = std::string("SELECT data FROM ") + m_table + " WHERE id = ?";
        if (sqlite3_prepare_v3(m_db, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &m_fetch,
                               nullptr) != SQLITE_OK)
            return Error{std::string(m_table) + ": " + sqlite3_errmsg(m_db)};
    }
    sqlite3_bind_int64(m_fetch, 1, rowid);
    const int rc = sqlite3_step(m_fetch);
    if (rc != SQLITE_ROW) {
        const std::string why = rc == SQLITE_DONE ? "chunk " + std::to_string(rowid) + " is gone"
                                                  : std::string(sqlite3_errmsg(m_db));
        sqlite3_reset(m_fetch);
        return Error{std::string(m_table) + ": " + why};
    }
    const auto* data = static_cast<const char*>(sqlite3_column_blob(m_fetch, 0));
    Status s = use(
        std::string_view(data ? data : "", static_cast<size_t>(sqlite3_column_bytes(m_fetch, 0))));
    sqlite3_reset(m_fetch);
    return s;
}

char constraintOp(unsigned char op) {
    switch (op) {
        case SQLITE_INDEX_CONSTRAINT_EQ:
            return '=';
        case SQLITE_INDEX_CONSTRAINT_GT:
            return '>';
        case SQLITE_INDEX_CONSTRAINT_GE:
            return 'G';
        case SQLITE_INDEX_CONSTRAINT_LT:
            return '<';
        case SQLITE_INDEX_CONSTRAINT_LE:
            return 'L';
        default:
            return 0;
    }
}

void narrowToConstraint(char op, sqlite3_value* v, int64_t& lo, int64_t& hi) {
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    auto none = [&] { lo = kMax, hi = kMin; };
    const int type = sqlite3_value_numeric_type(v);
    if (type == SQLITE_NULL) return none();
    if (type == SQLITE_TEXT || type == SQLITE_BLOB) {
        if (op == '<' || op == 'L') return;  // every integer is below it
        return none();
    }
    int64_t from = kMin, to = kMax;  // the integers that satisfy the constraint
    if (type == SQLITE_INTEGER) {
        const int64_t x = sqlite3_value_int64(v);
        switch (op) {
            case '=':
                from = to = x;
                break;
            case '>':
                if (x == kMax) return none();
                from = x + 1;
                break;
            case 'G':
                from = x;
                break;
            case '<':
                if (x == kMin) return none();
                to = x - 1;
                break;
            default:
                to = x;
                break;
        }
    } else {
        const double d = sqlite3_value_double(v);
        if (std::isnan(d)) return none();
        constexpr double kTop = 9223372036854775808.0;  // 2^63: no int64 reaches it
        auto clampTo = [&](double x) {                  // an integral double -> int64
            return x >= kTop ? kMax : x <= -kTop ? kMin : static_cast<int64_t>(x);
        };
        switch (op) {
            case '=':
                if (d != std::floor(d) || d >= kTop || d < -kTop) return none();
                from = to = static_cast<int64_t>(d);
                break;
            case '>':
                if (d >= kTop) return none();
                from = clampTo(std::floor(d) + 1);
                break;
            case 'G':
                if (d >= kTop) return none();
                from = clampTo(std::ceil(d));
                break;
            case '<':
                if (d <= -kTop) return none();
                to = clampTo(std::ceil(d) - 1);
                break;
            default:
                if (d < -kTop) return none();
                to = clampTo(std::floor(d));
                break;
        }
    }
    lo = std::max(lo, from);
    hi = std::min(hi, to);
}

int vtabError(sqlite3_vtab* v, const std::string& msg) {
    sqlite3_free(v->zErrMsg);
    v->zErrMsg = sqlite3_mprintf("%s", msg.c_str());
    return SQLITE_ERROR;
}

}  // namespace ts::store
