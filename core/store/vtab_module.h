#pragma once
// The parts of the store's read-only virtual tables (slices, args) that do not depend on
// what they read: the life of the table and cursor objects and the module's function table.
// Table: starts with `sqlite3_vtab base`, has `sqlite3* db` and `static constexpr const
// char* kSchema` (the CREATE TABLE for sqlite3_declare_vtab). Cursor: starts with
// `sqlite3_vtab_cursor base`, constructible from the sqlite3*.
#include <sqlite3.h>

#include <new>

namespace ts::store::vtab {

template <class Table>
int connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char** err) {
    const int rc = sqlite3_declare_vtab(db, Table::kSchema);
    if (rc != SQLITE_OK) {
        *err = sqlite3_mprintf("%s", sqlite3_errmsg(db));
        return rc;
    }
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);  // it only reads its own database
    auto* t = new (std::nothrow) Table{};
    if (!t) return SQLITE_NOMEM;
    t->db = db;
    *out = &t->base;
    return SQLITE_OK;
}

template <class Table>
int disconnect(sqlite3_vtab* v) {
    sqlite3_free(v->zErrMsg);
    delete reinterpret_cast<Table*>(v);
    return SQLITE_OK;
}

template <class Table, class Cursor>
int open(sqlite3_vtab* v, sqlite3_vtab_cursor** out) {
    auto* c = new (std::nothrow) Cursor(reinterpret_cast<Table*>(v)->db);
    if (!c) return SQLITE_NOMEM;
    *out = &c->base;
    return SQLITE_OK;
}

template <class Cursor>
int close(sqlite3_vtab_cursor* c) {
    delete reinterpret_cast<Cursor*>(c);
    return SQLITE_OK;
}

/// A read-only module: no storage of its own (xCreate is xConnect, xDestroy xDisconnect:
/// its chunk table holds the data), no xUpdate (writes are refused).
template <class Table, class Cursor>
sqlite3_module readOnlyModule(decltype(sqlite3_module::xBestIndex) bestIndex,
                              decltype(sqlite3_module::xFilter) filter,
                              decltype(sqlite3_module::xNext) next,
                              decltype(sqlite3_module::xEof) eof,
                              decltype(sqlite3_module::xColumn) column,
                              decltype(sqlite3_module::xRowid) rowid) {
    sqlite3_module m{};
    m.iVersion = 1;
    m.xCreate = connect<Table>;
    m.xConnect = connect<Table>;
    m.xBestIndex = bestIndex;
    m.xDisconnect = disconnect<Table>;
    m.xDestroy = disconnect<Table>;
    m.xOpen = open<Table, Cursor>;
    m.xClose = close<Cursor>;
    m.xFilter = filter;
    m.xNext = next;
    m.xEof = eof;
    m.xColumn = column;
    m.xRowid = rowid;
    return m;
}

}  // namespace ts::store::vtab
