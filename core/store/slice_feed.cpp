#include "core/store/slice_feed.h"

#include <sqlite3.h>

#include <cstring>

#include "core/store/sqlite_db.h"

namespace ts::store {
namespace {

constexpr const char* kPointerType = "ts_slice_rows";
constexpr int kRowsColumn = 9;  // the hidden argument column

struct Cursor {
    sqlite3_vtab_cursor base;
    const std::vector<FeedRow>* rows = nullptr;
    size_t i = 0;
};

Cursor* cursor(sqlite3_vtab_cursor* c) {
    return reinterpret_cast<Cursor*>(c);
}

int feedConnect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char**) {
    const int rc = sqlite3_declare_vtab(
        db,
        "CREATE TABLE x(id, track_id, ts, dur, depth, name_id, cat_id, arg_set_id, flags, "
        "rows HIDDEN)");
    if (rc != SQLITE_OK) return rc;
    auto* vtab = static_cast<sqlite3_vtab*>(sqlite3_malloc(sizeof(sqlite3_vtab)));
    if (!vtab) return SQLITE_NOMEM;
    std::memset(vtab, 0, sizeof(sqlite3_vtab));
    *out = vtab;
    return SQLITE_OK;
}

int feedDisconnect(sqlite3_vtab* vtab) {
    sqlite3_free(vtab);
    return SQLITE_OK;
}

// Only usable with its argument: ts_slice_rows(?).
int feedBestIndex(sqlite3_vtab*, sqlite3_index_info* info) {
    for (int i = 0; i < info->nConstraint; ++i) {
        const auto& c = info->aConstraint[i];
        if (c.iColumn == kRowsColumn && c.op == SQLITE_INDEX_CONSTRAINT_EQ) {
            if (!c.usable) return SQLITE_CONSTRAINT;
            info->aConstraintUsage[i].argvIndex = 1;
            info->aConstraintUsage[i].omit = 1;
            info->estimatedCost = 1;
            return SQLITE_OK;
        }
    }
    return SQLITE_CONSTRAINT;
}

int feedOpen(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
    auto* c = new (std::nothrow) Cursor{};
    if (!c) return SQLITE_NOMEM;
    *out = &c->base;
    return SQLITE_OK;
}

int feedClose(sqlite3_vtab_cursor* c) {
    delete cursor(c);
    return SQLITE_OK;
}

int feedFilter(sqlite3_vtab_cursor* c, int, const char*, int argc, sqlite3_value** argv) {
    Cursor* cur = cursor(c);
    cur->rows =
        argc > 0
            ? static_cast<const std::vector<FeedRow>*>(sqlite3_value_pointer(argv[0], kPointerType))
            : nullptr;
    cur->i = 0;
    return SQLITE_OK;
}

int feedNext(sqlite3_vtab_cursor* c) {
    ++cursor(c)->i;
    return SQLITE_OK;
}

int feedEof(sqlite3_vtab_cursor* c) {
    const Cursor* cur = cursor(c);
    return !cur->rows || cur->i >= cur->rows->size();
}

void resultId(sqlite3_context* ctx, int64_t v) {
    if (v == 0)
        sqlite3_result_null(ctx);
    else
        sqlite3_result_int64(ctx, v);
}

int feedColumn(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int col) {
    const Cursor* cur = cursor(c);
    const FeedRow& f = (*cur->rows)[cur->i];
    switch (col) {
        case 0:
            sqlite3_result_int64(ctx, f.id);
            break;
        case 1:
            sqlite3_result_int64(ctx, f.row.trackId);
            break;
        case 2:
            sqlite3_result_int64(ctx, f.row.ts);
            break;
        case 3:
            sqlite3_result_int64(ctx, f.row.dur);
            break;
        case 4:
            sqlite3_result_int64(ctx, f.row.depth);
            break;
        case 5:
            sqlite3_result_int64(ctx, f.row.nameId);
            break;
        case 6:
            resultId(ctx, f.row.catId);
            break;
        case 7:
            resultId(ctx, f.row.argSetId);
            break;
        case 8:
            sqlite3_result_int64(ctx, f.row.flags);
            break;
        default:
            sqlite3_result_null(ctx);
            break;
    }
    return SQLITE_OK;
}

int feedRowid(sqlite3_vtab_cursor* c, sqlite3_int64* out) {
    *out = static_cast<sqlite3_int64>(cursor(c)->i);
    return SQLITE_OK;
}

const sqlite3_module& feedModule() {
    static const sqlite3_module module = [] {
        sqlite3_module m{};
        // No xCreate: an eponymous-only table, used as ts_slice_rows(?) without CREATE.
        m.xConnect = feedConnect;
        m.xBestIndex = feedBestIndex;
        m.xDisconnect = feedDisconnect;
        m.xOpen = feedOpen;
        m.xClose = feedClose;
        m.xFilter = feedFilter;
        m.xNext = feedNext;
        m.xEof = feedEof;
        m.xColumn = feedColumn;
        m.xRowid = feedRowid;
        return m;
    }();
    return module;
}

}  // namespace

Status registerSliceFeed(sqlite3* db) {
    sqlite3_stmt* probe = nullptr;
    const bool known = sqlite3_prepare_v2(db, "SELECT 1 FROM ts_slice_rows(NULL)", -1, &probe,
                                          nullptr) == SQLITE_OK;
    sqlite3_finalize(probe);
    if (known) return {};
    const int rc = sqlite3_create_module_v2(db, kPointerType, &feedModule(), nullptr, nullptr);
    if (rc != SQLITE_OK)
        return Error{std::string("cannot register the slice feed: ") + sqlite3_errstr(rc)};
    return {};
}

void bindSliceRows(sqlite3_stmt* st, int idx, const std::vector<FeedRow>* rows) {
    sqlite3_bind_pointer(st, idx, const_cast<std::vector<FeedRow>*>(rows), kPointerType, nullptr);
}

void bindSliceRows(Statement& st, int idx, const std::vector<FeedRow>* rows) {
    bindSliceRows(st.handle(), idx, rows);
}

}  // namespace ts::store
