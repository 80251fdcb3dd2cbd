#include "core/store/arg_table.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "core/store/arg_chunk.h"
#include "core/store/vtab_module.h"
#include "core/store/vtab_support.h"

namespace ts::store {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
enum Column { kId = 0, kSource = 1, kJson = 2 };

struct Table {
    static constexpr const char* kSchema =
        "CREATE TABLE x(id INTEGER, source_id INTEGER, json TEXT)";
    sqlite3_vtab base;  // first: SQLite casts between the two
    sqlite3* db = nullptr;
    std::shared_ptr<const ArgDirectory> dir;
    DirectoryKey key;
};

struct Cursor {
    sqlite3_vtab_cursor base;  // first
    explicit Cursor(sqlite3* db) : reader(db) {}
    ArgChunkReader reader;
    std::shared_ptr<const ArgDirectory> dir;
    int64_t idLo = kMin, idHi = kMax, srcLo = kMin, srcHi = kMax;
    size_t chunk = 0;             // index in dir->chunks()
    int64_t row = 0, rowEnd = 0;  // rows [row, rowEnd) of the current chunk
    std::shared_ptr<const ArgTexts> texts;
    struct Recent {
        int64_t rowid;
        std::shared_ptr<const ArgTexts> texts;
    };
    std::vector<Recent> recent;  // joins look ids up chunk after chunk
    bool eof = true;
};

Table* table(sqlite3_vtab* v) {
    return reinterpret_cast<Table*>(v);
}
Cursor* cursor(sqlite3_vtab_cursor* c) {
    return reinterpret_cast<Cursor*>(c);
}

// idxStr: one (column, operator) pair per argv value: 'i' id or 's' source_id, then the
// operator as constraintOp() names it.
int bestIndex(sqlite3_vtab* v, sqlite3_index_info* info) {
    Table* t = table(v);
    const double total = t->dir ? static_cast<double>(std::max<int64_t>(t->dir->rows(), 1)) : 1e6;
    std::string plan;
    int argv = 0;
    bool idEq = false, in = false;
    double rows = total;
    for (int i = 0; i < info->nConstraint; ++i) {
        const auto& c = info->aConstraint[i];
        const char op = constraintOp(c.op);
        if (!c.usable || !op || (c.iColumn != kId && c.iColumn != kSource)) continue;
        info->aConstraintUsage[i].argvIndex = ++argv;
        info->aConstraintUsage[i].omit = 1;  // applied exactly in xFilter
        plan += c.iColumn == kId ? 'i' : 's';
        plan += op;
        if (op == '=' && sqlite3_vtab_in(info, i, -1)) in = true;
        if (c.iColumn == kId && op == '=') idEq = true;
        rows /= op == '=' ? 10 : 3;
    }
    if (idEq) {
        rows = 1;
        info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
    }
    info->estimatedRows = static_cast<sqlite3_int64>(std::max(rows, 1.0));
    info->estimatedCost = idEq ? 10 : std::max(rows, 1.0) + 50;
    info->orderByConsumed = idEq || (!in && info->nOrderBy == 1 &&
                                     info->aOrderBy[0].iColumn == kId && !info->aOrderBy[0].desc);
    if (!plan.empty()) {
        info->idxStr = sqlite3_mprintf("%s", plan.c_str());
        info->needToFreeIdxStr = 1;
    }
    return SQLITE_OK;
}

/// Moves to the next row in bounds, from chunk `c.chunk` row `c.row` on.
int settle(Cursor& c, sqlite3_vtab* v) {
    const auto& cs = c.dir->chunks();
    while (c.chunk < cs.size()) {
        const ArgChunkInfo& k = cs[c.chunk];
        if (k.minId > c.idHi) break;
        if (!c.texts) {
            // Offsets into the chunk; unsigned differences are exact as idLo, idHi >= minId.
            auto offset = [&](int64_t id) {
                return static_cast<uint64_t>(id) - static_cast<uint64_t>(k.minId);
            };
            const auto count = static_cast<uint64_t>(std::max<int64_t>(k.count, 0));
            const int64_t first =
                c.idLo > k.minId ? static_cast<int64_t>(std::min(offset(c.idLo), count)) : 0;
            const int64_t last =
                static_cast<int64_t>(offset(c.idHi) < count ? offset(c.idHi) + 1 : count);
            if (k.sourceId < c.srcLo || k.sourceId > c.srcHi || first >= last) {
                ++c.chunk;
                continue;
            }
            for (const auto& r : c.recent)
                if (r.rowid == k.rowid) c.texts = r.texts;
            if (!c.texts) {
                auto t = c.reader.read(k);
                if (!t) return vtabError(v, t.error());
                c.texts = t.value();
                if (c.recent.size() == 4) c.recent.erase(c.recent.begin());
                c.recent.push_back({k.rowid, c.texts});
            }
            c.row = first;
            c.rowEnd = last;
        }
        if (c.row < c.rowEnd) {
            c.eof = false;
            return SQLITE_OK;
        }
        c.texts.reset();
        ++c.chunk;
    }
    c.eof = true;
    return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor* vc, int, const char* idxStr, int argc, sqlite3_value** argv) {
    Cursor& c = *cursor(vc);
    Table* t = table(vc->pVtab);
    c.idLo = c.srcLo = kMin;
    c.idHi = c.srcHi = kMax;
    const size_t n = idxStr ? std::strlen(idxStr) / 2 : 0;
    for (size_t i = 0; i < n && static_cast<int>(i) < argc; ++i) {
        const bool id = idxStr[2 * i] == 'i';
        narrowToConstraint(idxStr[2 * i + 1], argv[i], id ? c.idLo : c.srcLo,
                           id ? c.idHi : c.srcHi);
    }
    auto dir = currentDirectory(t->db, t->dir, t->key);
    if (!dir) return vtabError(vc->pVtab, dir.error());
    if (c.dir != dir.value()) c.recent.clear();
    c.dir = dir.value();
    c.texts.reset();
    c.eof = true;
    if (c.idLo > c.idHi || c.srcLo > c.srcHi) return SQLITE_OK;
    c.chunk = c.dir->lowerBound(c.idLo);
    return settle(c, vc->pVtab);
}

int next(sqlite3_vtab_cursor* vc) {
    Cursor& c = *cursor(vc);
    ++c.row;
    return settle(c, vc->pVtab);
}

int eof(sqlite3_vtab_cursor* vc) {
    return cursor(vc)->eof ? 1 : 0;
}

int column(sqlite3_vtab_cursor* vc, sqlite3_context* ctx, int col) {
    const Cursor& c = *cursor(vc);
    const ArgChunkInfo& k = c.dir->chunks()[c.chunk];
    if (col == kId) {
        sqlite3_result_int64(ctx, k.minId + c.row);
    } else if (col == kSource) {
        sqlite3_result_int64(ctx, k.sourceId);
    } else {
        const std::string_view s = c.texts->text(static_cast<size_t>(c.row));
        sqlite3_result_text64(ctx, s.data(), s.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    }
    return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* vc, sqlite3_int64* out) {
    const Cursor& c = *cursor(vc);
    *out = c.dir->chunks()[c.chunk].minId + c.row;
    return SQLITE_OK;
}

}  // namespace

int registerArgTable(sqlite3* db) {
    static const sqlite3_module m =
        vtab::readOnlyModule<Table, Cursor>(bestIndex, filter, next, eof, column, rowid);
    return sqlite3_create_module_v2(db, kArgModule, &m, nullptr, nullptr);
}

}  // namespace ts::store
