// The `args` virtual table answers SQL as a plain table of the same rows would (differential
// test against ref_args in the same database): chunks of several sources, ids with gaps
// between chunks, a chunk cut short by the row limit and one by the byte limit, texts of
// every size; every constraint type on id and source_id, IN lists, joins, ORDER BY. Writes
// are refused; a damaged chunk is an error; the codec refuses every truncation.
#include <gtest/gtest.h>

#include <random>

#include "core/store/arg_chunk.h"
#include "core/store/trace_store.h"
#include "tests/common/sql_rows.h"
#include "tests/common/test_support.h"

namespace ts::store {
namespace {

std::unique_ptr<TraceStore> build(int64_t& rows) {
    const std::string path = (test::tempDir("arg_table") / "s.tscope").string();
    auto store = TraceStore::open(path, TraceStore::Mode::Create).value();
    SqliteDb& db = store->db();
    EXPECT_TRUE(db.exec("CREATE TABLE ref_args(id INTEGER, source_id INTEGER, json TEXT)").ok());
    Statement ref = db.prepare("INSERT INTO ref_args VALUES(?, ?, ?)");
    std::mt19937_64 rng(5);
    rows = 0;
    auto put = [&](int64_t source, int64_t from, int64_t n, size_t maxLen) {
        ArgChunkWriter w(db, source);
        for (int64_t id = from; id < from + n; ++id) {
            std::string text = "{\"id\":" + std::to_string(id) + ",\"pad\":\"";
            text.append(rng() % (maxLen + 1), static_cast<char>('a' + rng() % 26));
            text += "\"}";
            ASSERT_TRUE(w.add(id, text).ok());
            ASSERT_TRUE(ref.bind(1, id).bind(2, source).bind(3, text).run().ok());
            ++rows;
        }
        ASSERT_TRUE(w.flush().ok());
    };
    put(1, 1, 5000, 20);       // two chunks: 4,096 + 904
    put(2, 6000, 40, 100000);  // big texts: chunks end at ~1 MiB
    put(1, 7000, 3, 0);
    put(3, 7003, 1, 5);
    return store;
}

std::vector<std::string> rows(SqliteDb& db, const std::string& sql) {
    return test::sqlRows(db, sql);
}

TEST(ArgTable, AnswersLikeAPlainTable) {
    int64_t n = 0;
    auto s = build(n);
    SqliteDb& db = s->db();
    EXPECT_GT(db.queryInt("SELECT count(*) FROM arg_chunks").value(), 4);
    EXPECT_EQ(rows(db, "SELECT id, source_id, json FROM args"),
              rows(db, "SELECT id, source_id, json FROM ref_args ORDER BY id"));
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM args").value(), n);
    const std::vector<std::string> values = {"0",
                                             "1",
                                             "2",
                                             "4096",
                                             "4097",
                                             "5000",
                                             "5001",
                                             "5999",
                                             "6000",
                                             "6020",
                                             "7002",
                                             "7003",
                                             "7004",
                                             "-1",
                                             "4096.5",
                                             "1e3",
                                             "'7000'",
                                             "'x'",
                                             "NULL",
                                             "x'00'",
                                             "9223372036854775807",
                                             "-9223372036854775808"};
    for (const char* col : {"id", "source_id"})
        for (const char* op : {"=", "<", "<=", ">", ">="})
            for (const auto& v : values) {
                const std::string where = std::string(" WHERE ") + col + " " + op + " " + v;
                ASSERT_EQ(rows(db, "SELECT id, source_id, length(json) FROM args" + where +
                                       " ORDER BY id"),
                          rows(db, "SELECT id, source_id, length(json) FROM ref_args" + where +
                                       " ORDER BY id"))
                    << where;
            }
    for (const std::string where :
         {" WHERE id BETWEEN 4090 AND 4100", " WHERE id IN (7003, 1, 6039, 5500, 4097)",
          " WHERE source_id = 1 AND id > 4999", " WHERE source_id IN (2, 3) AND id < 7003",
          " WHERE id > 10 AND id > 20 AND id <= 30 AND id < 25", " WHERE id = 3 AND id = 4"}) {
        EXPECT_EQ(rows(db, "SELECT id, json FROM args" + where + " ORDER BY id"),
                  rows(db, "SELECT id, json FROM ref_args" + where + " ORDER BY id"))
            << where;
    }
    ASSERT_TRUE(db.exec("CREATE TABLE want(a INTEGER); INSERT INTO want VALUES(5), (4096), "
                        "(4097), (6039), (6500), (7003), (NULL)")
                    .ok());
    EXPECT_EQ(rows(db,
                   "SELECT w.a, x.json FROM want w LEFT JOIN args x ON x.id = w.a ORDER BY "
                   "w.a"),
              rows(db,
                   "SELECT w.a, x.json FROM want w LEFT JOIN ref_args x ON x.id = w.a ORDER "
                   "BY w.a"));
    EXPECT_EQ(rows(db, "SELECT source_id, count(*), sum(length(json)) FROM args GROUP BY 1"),
              rows(db, "SELECT source_id, count(*), sum(length(json)) FROM ref_args GROUP BY 1"));
    EXPECT_EQ(rows(db, "SELECT id FROM args ORDER BY id DESC LIMIT 3"),
              rows(db, "SELECT id FROM ref_args ORDER BY id DESC LIMIT 3"));
}

TEST(ArgTable, WritesAreRefusedAndDamageIsAnError) {
    int64_t n = 0;
    auto s = build(n);
    SqliteDb& db = s->db();
    EXPECT_FALSE(db.exec("INSERT INTO args VALUES(99999, 1, '{}')").ok());
    EXPECT_FALSE(db.exec("DELETE FROM args").ok());
    ASSERT_TRUE(db.exec("UPDATE arg_chunks SET data = x'0103' WHERE source_id = 3").ok());
    Statement st = db.prepare("SELECT json FROM args WHERE id = 7003");
    EXPECT_FALSE(st.step());
    EXPECT_NE(st.error().find("damaged"), std::string::npos) << st.error();
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM args WHERE source_id = 1").value(), 5003);
}

TEST(ArgChunk, EveryTruncationIsRefused) {
    const std::string path = (test::tempDir("arg_chunk") / "s.tscope").string();
    auto s = TraceStore::open(path, TraceStore::Mode::Create).value();
    ArgChunkWriter w(s->db(), 1);
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(w.add(i + 1, std::string(i, 'x')).ok());
    ASSERT_TRUE(w.flush().ok());
    Statement q = s->db().prepare("SELECT data FROM arg_chunks");
    ASSERT_TRUE(q.step());
    const std::string blob(q.blob(0));
    ArgTexts t;
    ASSERT_TRUE(decodeArgChunk(blob, t));
    ASSERT_EQ(t.count(), 50u);
    EXPECT_EQ(t.text(49), std::string(49, 'x'));
    EXPECT_EQ(t.text(0), "");
    for (size_t cut = 0; cut < blob.size(); ++cut)
        EXPECT_FALSE(decodeArgChunk(blob.substr(0, cut), t)) << cut;
}

}  // namespace
}  // namespace ts::store
