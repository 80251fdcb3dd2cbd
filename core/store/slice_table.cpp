#include "core/store/slice_table.h"

#include <sqlite3.h>

#include <cstring>
#include <string>

#include "core/store/slice_scan.h"
#include "core/store/vtab_module.h"
#include "core/store/vtab_support.h"

namespace ts::store {
namespace {

struct Table {
    static constexpr const char* kSchema =
        "CREATE TABLE x(id INTEGER, track_id INTEGER, ts INTEGER, dur INTEGER, depth INTEGER, "
        "name_id INTEGER, cat_id INTEGER, arg_set_id INTEGER, flags INTEGER)";
    sqlite3_vtab base;  // first: SQLite casts between the two
    sqlite3* db = nullptr;
    std::shared_ptr<const SliceDirectory> dir;
    DirectoryKey key;
};

struct Cursor {
    sqlite3_vtab_cursor base;  // first
    explicit Cursor(sqlite3* db) : scanner(db) {}
    SliceScanner scanner;
};

Table* table(sqlite3_vtab* v) {
    return reinterpret_cast<Table*>(v);
}
Cursor* cursor(sqlite3_vtab_cursor* c) {
    return reinterpret_cast<Cursor*>(c);
}

// idxStr: one (column, operator) pair of characters per argv value, in argv order.
// Columns 'i' id, 't' track_id, 's' ts; operators as constraintOp() names them.
char columnChar(int col) {
    return col == kSliceId ? 'i' : col == kSliceTrack ? 't' : col == kSliceTs ? 's' : 0;
}

int bestIndex(sqlite3_vtab* v, sqlite3_index_info* info) {
    Table* t = table(v);
    const double total = t->dir ? static_cast<double>(std::max<int64_t>(t->dir->rows(), 1)) : 1e6;
    const double tracks =
        t->dir ? static_cast<double>(std::max<int64_t>(t->dir->trackCount(), 1)) : 100;
    std::string plan;
    int argv = 0;
    bool idEq = false, eq[kSliceColumnCount] = {}, in = false;
    double rows = total;
    for (int i = 0; i < info->nConstraint; ++i) {
        const auto& c = info->aConstraint[i];
        const char col = columnChar(c.iColumn), op = constraintOp(c.op);
        if (!c.usable || !col || !op) continue;
        info->aConstraintUsage[i].argvIndex = ++argv;
        info->aConstraintUsage[i].omit = 1;  // bounds are applied exactly (xFilter)
        plan += col;
        plan += op;
        if (op == '=') {
            eq[c.iColumn] = true;
            if (sqlite3_vtab_in(info, i, -1)) in = true;  // SQLite feeds it value by value
        }
        if (col == 'i' && op == '=') idEq = true;
        if (col == 't') rows /= op == '=' ? tracks : 2;
        if (col == 's') rows /= op == '=' ? 1000 : 4;
        if (col == 'i' && op != '=') rows /= 4;
    }
    if (idEq) {
        rows = 1;
        info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
    }
    info->estimatedRows = static_cast<sqlite3_int64>(std::max(rows, 1.0));
    // Decoding a chunk costs about as much as reading a few hundred rows.
    info->estimatedCost = idEq ? 20 : std::max(rows, 1.0) + 200;
    // Rows come in (track_id, ts, id) order; a column fixed by = may be left out.
    bool ordered = !in;
    const int order[3] = {kSliceTrack, kSliceTs, kSliceId};
    size_t j = 0;
    for (int k = 0; ordered && k < info->nOrderBy; ++k) {
        const auto& o = info->aOrderBy[k];
        if (o.desc) {
            ordered = false;
            break;
        }
        while (j < 3 && order[j] != o.iColumn && eq[order[j]]) ++j;
        if (j < 3 && order[j] == o.iColumn)
            ++j;
        else
            ordered = false;
    }
    info->orderByConsumed = idEq || ordered;
    if (!plan.empty()) {
        info->idxStr = sqlite3_mprintf("%s", plan.c_str());
        info->needToFreeIdxStr = 1;
    }
    // Columns the statement reads, so a scan decodes only those (ts and id always).
    uint32_t used = 0;
    for (int c = 0; c < kSliceColumnCount; ++c)
        if (info->colUsed & (sqlite3_uint64{1} << c)) used |= 1u << c;
    info->idxNum = static_cast<int>(used);
    return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor* c, int idxNum, const char* idxStr, int argc, sqlite3_value** argv) {
    Cursor* cur = cursor(c);
    Table* t = table(c->pVtab);
    SliceBounds b;
    const size_t n = idxStr ? std::strlen(idxStr) / 2 : 0;
    for (size_t i = 0; i < n && static_cast<int>(i) < argc; ++i) {
        const char col = idxStr[2 * i], op = idxStr[2 * i + 1];
        int64_t& lo = col == 'i' ? b.idLo : col == 't' ? b.trackLo : b.tsLo;
        int64_t& hi = col == 'i' ? b.idHi : col == 't' ? b.trackHi : b.tsHi;
        narrowToConstraint(op, argv[i], lo, hi);
    }
    auto dir = currentDirectory(t->db, t->dir, t->key);
    if (!dir) return vtabError(c->pVtab, dir.error());
    if (auto s = cur->scanner.start(dir.value(), b, static_cast<uint32_t>(idxNum)); !s)
        return vtabError(c->pVtab, s.error());
    return SQLITE_OK;
}

int next(sqlite3_vtab_cursor* c) {
    if (auto s = cursor(c)->scanner.next(); !s) return vtabError(c->pVtab, s.error());
    return SQLITE_OK;
}

int eof(sqlite3_vtab_cursor* c) {
    return cursor(c)->scanner.atEnd() ? 1 : 0;
}

int column(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int col) {
    const SliceScanner& s = cursor(c)->scanner;
    const int64_t v = s.column(col);
    if ((col == kSliceCat || col == kSliceArgs) && v == 0)
        sqlite3_result_null(ctx);
    else
        sqlite3_result_int64(ctx, v);
    return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* c, sqlite3_int64* out) {
    *out = cursor(c)->scanner.id();
    return SQLITE_OK;
}

}  // namespace

int registerSliceTable(sqlite3* db) {
    static const sqlite3_module m =
        vtab::readOnlyModule<Table, Cursor>(bestIndex, filter, next, eof, column, rowid);
    return sqlite3_create_module_v2(db, kSliceModule, &m, nullptr, nullptr);
}

}  // namespace ts::store
