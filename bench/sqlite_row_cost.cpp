// bench/sqlite_row_cost: what one slice row costs SQLite (the library the store links), by
// the ways a writer can hand rows over, to find the floor under trace import. 2,000,000
// rows shaped like the session's `slices` (9 integer columns, 5 tracks), written in one
// transaction into a fresh file with the session's tables and pragmas, then committed:
//   values64     multi-row INSERT ... VALUES of 64 rows
//   values1      one row per statement run
//   feed         INSERT ... SELECT from ts_slice_rows(?), the table-valued function over
//                rows in memory (core/store/slice_feed; what StoreWriter does)
//   rowid        values64 into a rowid table (id INTEGER PRIMARY KEY) instead of the
//                clustered WITHOUT ROWID one
//   interleaved  values64, but the tracks' rows in chunks of 16,384 taking turns (what
//                writing each track while the file is still being parsed would do)
// usage: sqlite_row_cost [ROWS] [DIR]
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/store/schema.h"
#include "core/store/slice_feed.h"

namespace {

struct Row {
    int64_t v[9];  // id, track_id, ts, dur, depth, name_id, cat_id, arg_set_id, flags
};
std::vector<Row> g_rows;  // the rows in the order they are written

// The session's own tables (schema v1) are used as they are; the rowid way swaps the
// clustered slices table for this one.
constexpr const char* kRowid =
    "DROP TABLE slices; CREATE TABLE slices(id INTEGER PRIMARY KEY, track_id INTEGER NOT NULL, ts "
    "INTEGER NOT NULL, "
    "dur INTEGER NOT NULL, depth INTEGER NOT NULL, name_id INTEGER NOT NULL, cat_id INTEGER, "
    "arg_set_id INTEGER, flags INTEGER NOT NULL DEFAULT 0)";
constexpr const char* kInsert =
    "INSERT OR FAIL INTO slices(id, track_id, ts, dur, depth, name_id, cat_id, arg_set_id, "
    "flags) ";

void makeRows(size_t n, bool interleaved) {
    constexpr int kTracks = 5;
    constexpr size_t kChunk = 16384;
    std::vector<std::vector<Row>> tracks(kTracks);
    for (int t = 0; t < kTracks; ++t)
        for (size_t i = 0; i < n / kTracks; ++i) {
            const auto k = static_cast<int64_t>(i);
            tracks[static_cast<size_t>(t)].push_back(
                {{0, t + 1, 1'700'000'000'000'000'000 + k * 10'000, 8'250, k % 4, k % 7 + 1, 3,
                  k % 5 < 2 ? k + 1 : 0, 0}});
        }
    g_rows.clear();
    if (!interleaved) {
        for (auto& t : tracks) g_rows.insert(g_rows.end(), t.begin(), t.end());
    } else {
        for (size_t from = 0; from < n / kTracks; from += kChunk)
            for (auto& t : tracks)
                g_rows.insert(
                    g_rows.end(), t.begin() + static_cast<std::ptrdiff_t>(from),
                    t.begin() + static_cast<std::ptrdiff_t>(std::min(t.size(), from + kChunk)));
    }
    for (size_t i = 0; i < g_rows.size(); ++i) g_rows[i].v[0] = static_cast<int64_t>(i + 1);
}

bool check(sqlite3* db, int rc, int want) {
    if (rc == want) return true;
    std::fprintf(stderr, "sqlite: %s\n", sqlite3_errmsg(db));
    return false;
}

bool insertValues(sqlite3* db, int perStatement) {
    std::string sql = std::string(kInsert) + "VALUES";
    for (int r = 0; r < perStatement; ++r)
        sql += r ? ",(?,?,?,?,?,?,?,?,?)" : "(?,?,?,?,?,?,?,?,?)";
    sqlite3_stmt* st = nullptr;
    if (!check(db, sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK)) return false;
    bool ok = true;
    const auto per = static_cast<size_t>(perStatement);
    for (size_t first = 0; ok && first + per <= g_rows.size(); first += per) {
        for (size_t r = 0; r < per; ++r)
            for (int c = 0; c < 9; ++c) {
                const int64_t v = g_rows[first + r].v[c];
                const int idx = static_cast<int>(r) * 9 + c + 1;
                if ((c == 6 || c == 7) && v == 0)
                    sqlite3_bind_null(st, idx);
                else
                    sqlite3_bind_int64(st, idx, v);
            }
        ok = check(db, sqlite3_step(st), SQLITE_DONE);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return ok;
}

bool insertFeed(sqlite3* db) {
    if (!ts::store::registerSliceFeed(db).ok()) return false;
    sqlite3_stmt* st = nullptr;
    const std::string sql = std::string(kInsert) +
                            "SELECT id, track_id, ts, dur, depth, name_id, cat_id, arg_set_id, "
                            "flags FROM ts_slice_rows(?)";
    if (!check(db, sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK)) return false;
    std::vector<ts::store::FeedRow> rows;
    bool ok = true;
    for (size_t from = 0; ok && from < g_rows.size(); from += 4096) {
        rows.clear();
        for (size_t i = from; i < std::min(g_rows.size(), from + 4096); ++i) {
            const int64_t* v = g_rows[i].v;
            rows.push_back({v[0],
                            {v[1], v[2], v[3], static_cast<int32_t>(v[4]), v[5], v[6], v[7],
                             static_cast<int32_t>(v[8])}});
        }
        ts::store::bindSliceRows(st, 1, &rows);
        ok = check(db, sqlite3_step(st), SQLITE_DONE);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return ok;
}

double run(const std::string& dir, const std::string& way, size_t n) {
    makeRows(n, way == "interleaved");
    const std::string path = dir + "/sqlite_row_cost_" + std::to_string(::getpid()) + ".db";
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.c_str(), &db,
                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    sqlite3_exec(db,
                 "PRAGMA page_size=16384; PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; "
                 "PRAGMA cache_size=-262144;",
                 nullptr, nullptr, nullptr);
    const std::string tables(ts::store::migrations().front().sql);
    sqlite3_exec(db, tables.c_str(), nullptr, nullptr, nullptr);
    if (way == "rowid") sqlite3_exec(db, kRowid, nullptr, nullptr, nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
    const bool ok = way == "values1" ? insertValues(db, 1)
                    : way == "feed"  ? insertFeed(db)
                                     : insertValues(db, 64);
    sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sqlite3_close(db);
    for (const char* ext : {"", "-wal", "-shm"}) ::unlink((path + ext).c_str());
    return ok ? secs : -1;
}

}  // namespace

int main(int argc, char** argv) {
    const size_t n = argc > 1 ? static_cast<size_t>(std::atoll(argv[1])) : 2'000'000;
    const std::string dir = argc > 2 ? argv[2] : "/tmp";
    std::printf("SQLite %s, %zu slice rows, one transaction, committed\n", sqlite3_libversion(), n);
    for (const char* way : {"values64", "values1", "feed", "rowid", "interleaved"}) {
        const double secs = run(dir, way, n);
        if (secs < 0) return 1;
        std::printf("%-12s %.3f s  %.3f us/row\n", way, secs, secs * 1e6 / static_cast<double>(n));
    }
    return 0;
}
