// The `slices` virtual table answers SQL exactly as a plain table of the same rows would:
// a differential test against such a table (ref_slices) in the same database, over chunks
// laid out the ways writers leave them — in order, overlapping (a track flushed out of
// order), ids interleaved across tracks — with constraints of every type SQLite may pass
// (integers, reals, numeric text, other text, NULL, IN lists) and joins. Plus: rows come out
// in (track_id, ts, id) order, writes are refused, a damaged chunk is an error.
#include <gtest/gtest.h>

#include <random>

#include "core/store/slice_chunk_writer.h"
#include "core/store/store_writer.h"
#include "core/store/trace_store.h"
#include "tests/common/sql_rows.h"
#include "tests/common/test_support.h"

namespace ts::store {
namespace {

struct Fixture {
    std::unique_ptr<TraceStore> store;
    std::vector<StoredSlice> all;
};

// Writes `rows` as one chunk and into ref_slices.
void put(SqliteDb& db, SliceChunkWriter& w, std::vector<StoredSlice> rows,
         std::vector<StoredSlice>& all) {
    Statement ins = db.prepare("INSERT INTO ref_slices VALUES(?,?,?,?,?,?,?,?,?)");
    for (const StoredSlice& r : rows) {
        ins.bind(1, r.id).bind(2, r.row.trackId).bind(3, r.row.ts).bind(4, r.row.dur);
        ins.bind(5, r.row.depth).bind(6, r.row.nameId);
        if (r.row.catId)
            ins.bind(7, r.row.catId);
        else
            ins.bindNull(7);
        if (r.row.argSetId)
            ins.bind(8, r.row.argSetId);
        else
            ins.bindNull(8);
        ins.bind(9, r.row.flags);
        ASSERT_TRUE(ins.run().ok());
        all.push_back(r);
    }
    ASSERT_TRUE(w.write(rows.front().row.trackId, rows).ok());
}

Fixture buildSlices() {
    Fixture f;
    const std::string path = (test::tempDir("slice_table") / "s.tscope").string();
    f.store = TraceStore::open(path, TraceStore::Mode::Create).value();
    SqliteDb& db = f.store->db();
    EXPECT_TRUE(db.exec("CREATE TABLE ref_slices(id INTEGER, track_id INTEGER, ts INTEGER, "
                        "dur INTEGER, depth INTEGER, name_id INTEGER, cat_id INTEGER, "
                        "arg_set_id INTEGER, flags INTEGER)")
                    .ok());
    SliceChunkWriter w(db);
    std::mt19937_64 rng(11);
    int64_t id = 1;
    auto row = [&](int64_t track, int64_t ts, int64_t dur, int depth) {
        StoredSlice r;
        r.id = id++;
        r.row = {track,
                 ts,
                 dur,
                 depth,
                 static_cast<int64_t>(1 + rng() % 5),
                 static_cast<int64_t>(rng() % 3),
                 static_cast<int64_t>(rng() % 4 ? 0 : id),
                 static_cast<int32_t>(rng() % 2)};
        return r;
    };
    // Track 1: three chunks in order (what importers write), equal ts across a boundary.
    for (int c = 0; c < 3; ++c) {
        std::vector<StoredSlice> rows;
        for (int i = 0; i < 50; ++i) rows.push_back(row(1, c * 1000 + i * 20, 10, i % 3));
        put(db, w, rows, f.all);
    }
    // Track 2: chunks that overlap in time (a writer flushed out of order), one inside
    // another, equal timestamps in both.
    for (int c = 0; c < 4; ++c) {
        std::vector<StoredSlice> rows;
        for (int i = 0; i < 40; ++i)
            rows.push_back(row(2, static_cast<int64_t>(rng() % 2000) - 500, 5, 0));
        put(db, w, rows, f.all);
    }
    put(db, w, {row(2, 700, 3, 1)}, f.all);
    // Tracks 3 and 4: ids taken in turns, so each chunk's id range spans the other's.
    {
        std::vector<StoredSlice> a, b;
        for (int i = 0; i < 60; ++i) {
            a.push_back(row(3, i * 7, 2, 0));
            b.push_back(row(4, i * 5, 2, 0));
        }
        put(db, w, a, f.all);
        put(db, w, b, f.all);
    }
    // Track 9: extreme values.
    put(db, w,
        {row(9, std::numeric_limits<int64_t>::min(), 0, 0),
         row(9, std::numeric_limits<int64_t>::max(), 0, 0), row(9, 0, 0, 0)},
        f.all);
    return f;
}

std::vector<std::string> sliceRows(SqliteDb& db, const std::string& sql) {
    return test::sqlRows(db, sql);
}

const char* kCols = "id, track_id, ts, dur, depth, name_id, cat_id, arg_set_id, flags";

TEST(SliceTable, ScansComeOutInTrackTsIdOrderWithEveryRow) {
    Fixture f = buildSlices();
    SqliteDb& db = f.store->db();
    const auto got = sliceRows(db, std::string("SELECT ") + kCols + " FROM slices");
    const auto want = sliceRows(
        db, std::string("SELECT ") + kCols + " FROM ref_slices ORDER BY track_id, ts, id");
    EXPECT_EQ(got.size(), f.all.size());
    EXPECT_EQ(got, want);
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM slices").value(),
              static_cast<int64_t>(f.all.size()));
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM slices WHERE cat_id IS NULL").value(),
              db.queryInt("SELECT count(*) FROM ref_slices WHERE cat_id IS NULL").value());
}

TEST(SliceTable, ConstraintsOfEveryTypeAnswerLikeAPlainTable) {
    Fixture f = buildSlices();
    SqliteDb& db = f.store->db();
    const std::vector<std::string> values = {"0",
                                             "1",
                                             "2",
                                             "3",
                                             "4",
                                             "9",
                                             "-1",
                                             "20",
                                             "25",
                                             "700",
                                             "1000",
                                             "1020",
                                             "-500",
                                             "2.5",
                                             "3.0",
                                             "-0.5",
                                             "1e3",
                                             "'2'",
                                             "'700'",
                                             "'abc'",
                                             "x'01'",
                                             "NULL",
                                             "1e300",
                                             "-1e300",
                                             "9223372036854775807",
                                             "-9223372036854775808",
                                             "9.3e18",
                                             "(SELECT 3)"};
    const std::vector<std::string> columns = {"id", "track_id", "ts"};
    const std::vector<std::string> ops = {"=", "<", "<=", ">", ">="};
    int checked = 0;
    for (const auto& c : columns)
        for (const auto& op : ops)
            for (const auto& v : values) {
                const std::string where = " WHERE " + c + " " + op + " " + v;
                const auto got = sliceRows(db, std::string("SELECT ") + kCols + " FROM slices" +
                                                   where + " ORDER BY track_id, ts, id");
                const auto want =
                    sliceRows(db, std::string("SELECT ") + kCols + " FROM ref_slices" + where +
                                      " ORDER BY track_id, ts, id");
                ASSERT_EQ(got, want) << where;
                ++checked;
            }
    EXPECT_EQ(checked, 3 * 5 * static_cast<int>(values.size()));
    // Ranges, several bounds on one column, IN lists, contradictions.
    for (const std::string where :
         {" WHERE track_id = 2 AND ts >= 0 AND ts < 700", " WHERE track_id BETWEEN 2 AND 3",
          " WHERE track_id IN (4, 1, 9) AND ts > 10", " WHERE id IN (5, 300, 151, 1000)",
          " WHERE ts >= 100 AND ts >= 200 AND ts <= 900 AND ts < 800",
          " WHERE track_id = 1 AND track_id = 2", " WHERE id > 10 AND id < 40 AND track_id = 1",
          " WHERE depth = 1 AND track_id = 1", " WHERE ts = 700",
          " WHERE id = 3 AND track_id = 2"}) {
        const auto got = sliceRows(db, std::string("SELECT ") + kCols + " FROM slices" + where +
                                           " ORDER BY track_id, ts, id");
        const auto want = sliceRows(db, std::string("SELECT ") + kCols + " FROM ref_slices" +
                                            where + " ORDER BY track_id, ts, id");
        EXPECT_EQ(got, want) << where;
    }
}

TEST(SliceTable, JoinsAndOrderingsMatchAPlainTable) {
    Fixture f = buildSlices();
    SqliteDb& db = f.store->db();
    ASSERT_TRUE(db.exec("CREATE TABLE pairs(a INTEGER, b INTEGER);"
                        "INSERT INTO pairs VALUES(1, 160), (170, 151), (400, 2), (5, 5), "
                        "(99999, 3)")
                    .ok());
    for (const std::string q :
         {"SELECT p.a, x.ts, y.ts FROM pairs p JOIN %T x ON x.id = p.a JOIN %T y ON y.id = "
          "p.b ORDER BY p.a",
          "SELECT count(*) FROM %T s WHERE depth > 0 AND NOT EXISTS (SELECT 1 FROM %T p WHERE "
          "p.track_id = s.track_id AND p.depth = s.depth - 1 AND p.ts <= s.ts)",
          "SELECT track_id, count(*), min(ts), max(ts + dur), sum(dur) FROM %T GROUP BY "
          "track_id ORDER BY track_id",
          "SELECT id, ts FROM %T WHERE track_id = 2 ORDER BY ts DESC, id DESC",
          "SELECT id FROM %T WHERE track_id = 2 ORDER BY ts, id LIMIT 7 OFFSET 30",
          "SELECT ts, id FROM %T WHERE track_id = 3 ORDER BY ts",
          "SELECT name_id, count(*) FROM %T GROUP BY name_id ORDER BY name_id"}) {
        auto sub = [&](const std::string& table) {
            std::string s = q;
            for (size_t at; (at = s.find("%T")) != std::string::npos;) s.replace(at, 2, table);
            return s;
        };
        EXPECT_EQ(sliceRows(db, sub("slices")), sliceRows(db, sub("ref_slices"))) << q;
    }
    // The virtual table's rowid is the slice id.
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM slices WHERE rowid = id").value(),
              static_cast<int64_t>(f.all.size()));
}

TEST(SliceTable, WritesAreRefusedAndDamageIsAnError) {
    Fixture f = buildSlices();
    SqliteDb& db = f.store->db();
    EXPECT_FALSE(db.exec("INSERT INTO slices(id, track_id, ts, dur, depth, name_id) "
                         "VALUES(1, 1, 1, 1, 0, 1)")
                     .ok());
    EXPECT_FALSE(db.exec("DELETE FROM slices").ok());
    EXPECT_FALSE(db.exec("UPDATE slices SET dur = 0").ok());
    ASSERT_TRUE(db.exec("UPDATE slice_chunks SET data = x'0105' WHERE track_id = 2").ok());
    Statement st = db.prepare("SELECT count(*) FROM slices WHERE track_id = 2");
    EXPECT_FALSE(st.step());
    EXPECT_NE(st.error().find("damaged"), std::string::npos) << st.error();
    // The other tracks still read.
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM slices WHERE track_id = 1").value(), 150);
}

TEST(SliceTable, SeesTheWritersRowsOnceTheyAreWrittenAndReadsOnOtherConnections) {
    const std::string path = (test::tempDir("slice_table") / "w.tscope").string();
    auto s = TraceStore::open(path, TraceStore::Mode::Create).value();
    const int64_t src = s->beginSource("x", "test").value();
    int64_t track = 0;
    {
        StoreWriter w(*s, src);
        const int64_t p = w.addProcess("1");
        track = w.addTrack("thread", p, w.addThread(p, "1"), "t");
        // Out of time order, more than a chunk: partial chunks overlap after the flush.
        for (int i = 0; i < 5000; ++i)
            w.addSlice({track, (i * 7919) % 10007, 1, 0, w.intern("a"), 0, 0, 0});
        ASSERT_TRUE(w.flush().ok());
        EXPECT_EQ(s->db().queryInt("SELECT count(*) FROM slices").value(), 5000);
        for (int i = 0; i < 100; ++i) w.addSlice({track, i, 1, 0, w.intern("b"), 0, 0, 0});
    }
    EXPECT_EQ(s->db().queryInt("SELECT count(*) FROM slices").value(), 5100);
    EXPECT_GE(s->db().queryInt("SELECT count(*) FROM slice_chunks").value(), 3);
    auto ro = TraceStore::open(path, TraceStore::Mode::ReadOnly).value();
    Statement st = ro->db().prepare("SELECT ts FROM slices WHERE track_id = ?");
    st.bind(1, track);
    int64_t prev = std::numeric_limits<int64_t>::min(), n = 0;
    while (st.step()) {
        EXPECT_LE(prev, st.int64(0));
        prev = st.int64(0);
        ++n;
    }
    EXPECT_EQ(n, 5100);
    EXPECT_EQ(ro->timeRange().value()->first, 0);
}

}  // namespace
}  // namespace ts::store
