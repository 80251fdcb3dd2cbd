// UserQuery: one read-only statement, whatever mode the session is open in; everything that
// could write or reach outside the session refused (a test per case); long queries stopped
// by a cancel token or a timeout.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "core/store/schema.h"
#include "core/store/trace_store.h"
#include "core/store/user_query.h"
#include "tests/common/test_support.h"

namespace ts::test {
namespace {

using store::UserQuery;

class UserQueryTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = tempDir("user_query");
        // read-write on purpose: the checks must not rely on a read-only connection
        auto s =
            store::TraceStore::open((m_dir / "s.tscope").string(), store::TraceStore::Mode::Create);
        ASSERT_TRUE(s) << s.error();
        m_store = std::move(s.value());
    }
    store::SqliteDb& db() { return m_store->db(); }
    std::string refusal(const std::string& sql) {
        auto q = UserQuery::prepare(db(), sql);
        return q ? std::string() : q.error();
    }
    std::filesystem::path m_dir;
    std::unique_ptr<store::TraceStore> m_store;
};

TEST_F(UserQueryTest, ReadsRun) {
    for (const char* sql :
         {"SELECT count(*) FROM slices", "WITH x(n) AS (SELECT 1) SELECT n FROM x", "SELECT 1;",
          "SELECT 1; -- a comment\n;  ", "PRAGMA table_info(slices)", "PRAGMA user_version",
          "SELECT name FROM pragma_table_info('sources')"}) {
        auto q = UserQuery::prepare(db(), sql);
        ASSERT_TRUE(q) << sql << ": " << q.error();
        while (q.value().step()) {
        }
        EXPECT_EQ(q.value().error(), "") << sql;
    }
}

TEST_F(UserQueryTest, RefusesWrites) {
    for (const char* sql :
         {"DELETE FROM sources", "INSERT INTO meta VALUES('a','b')", "UPDATE runs SET status='x'",
          "DROP TABLE sources", "CREATE TABLE t(x)", "REPLACE INTO meta VALUES('a','b')"})
        EXPECT_NE(refusal(sql).find("read-only"), std::string::npos) << sql;
    // (SQLite refuses this one itself: the schema table is read-only)
    EXPECT_FALSE(refusal("UPDATE sqlite_master SET sql = ''").empty());
}

TEST_F(UserQueryTest, RefusesAttach) {
    const std::string other = (m_dir / "other.db").string();
    EXPECT_NE(refusal("ATTACH DATABASE '" + other + "' AS o").find("ATTACH"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(other));  // not created either
    EXPECT_NE(refusal("DETACH DATABASE o").find("DETACH"), std::string::npos);
}

TEST_F(UserQueryTest, RefusesVacuumInto) {
    const std::string copy = (m_dir / "copy.tscope").string();
    EXPECT_FALSE(refusal("VACUUM INTO '" + copy + "'").empty());
    EXPECT_FALSE(std::filesystem::exists(copy));
    EXPECT_FALSE(refusal("VACUUM").empty());
}

TEST_F(UserQueryTest, RefusesWritableSchema) {
    for (const char* sql :
         {"PRAGMA writable_schema=ON", "PRAGMA writable_schema", "PRAGMA main.writable_schema = 1"})
        EXPECT_NE(refusal(sql).find("writable_schema"), std::string::npos) << sql;
    EXPECT_NE(refusal("PRAGMA user_version=99").find("user_version"), std::string::npos);
    EXPECT_EQ(db().queryInt("PRAGMA user_version").value(), store::currentSchemaVersion());
}

TEST_F(UserQueryTest, RefusesLoadExtension) {
    EXPECT_NE(refusal("SELECT load_extension('/tmp/x.so')").find("load_extension"),
              std::string::npos);
    EXPECT_FALSE(refusal("SELECT fts3_tokenizer('simple')").empty());
}

TEST_F(UserQueryTest, RefusesMultipleStatements) {
    for (const char* sql : {"SELECT 1; DELETE FROM sources", "SELECT 1; SELECT 2",
                            "SELECT 1; ATTACH 'x' AS y", "SELECT 1; garbage"})
        EXPECT_EQ(refusal(sql), "only one statement is allowed") << sql;
    EXPECT_EQ(db().queryInt("SELECT count(*) FROM sqlite_master").value() > 0, true);
}

TEST_F(UserQueryTest, RefusesTransactions) {
    for (const char* sql : {"BEGIN", "COMMIT", "SAVEPOINT a", "RELEASE a"})
        EXPECT_NE(refusal(sql).find("transactions"), std::string::npos) << sql;
}

TEST_F(UserQueryTest, EveryQueryHasLimitsAndSortsOnDisk) {
    const store::QueryLimits defaults;
    ASSERT_TRUE(defaults.timeout);
    EXPECT_EQ(*defaults.timeout, store::kDefaultQueryTimeout);
    ASSERT_TRUE(defaults.memoryBytes);
    EXPECT_EQ(*defaults.memoryBytes, store::kDefaultQueryMemoryBytes);
    auto q = UserQuery::prepare(db(), "SELECT 1");
    ASSERT_TRUE(q) << q.error();
    EXPECT_EQ(db().queryInt("PRAGMA temp_store").value(), 1) << "temporary tables on disk";
}

TEST_F(UserQueryTest, TableValuedPragmasAreCheckedLikeStatements) {
    EXPECT_NE(refusal("SELECT * FROM pragma_optimize(0x10002)").find("PRAGMA optimize"),
              std::string::npos);
    EXPECT_NE(refusal("SELECT * FROM pragma_integrity_check").find("not allowed"),
              std::string::npos);
    EXPECT_EQ(refusal("SELECT * FROM pragma_index_list('sources')"), "");
}

TEST_F(UserQueryTest, EmptyAndBadSql) {
    EXPECT_EQ(refusal("  -- nothing\n"), "empty query");
    EXPECT_NE(refusal("SELEKT 1").find("SQL error"), std::string::npos);
}

constexpr const char* kEndless =
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n";

TEST_F(UserQueryTest, CancelStopsALongQuery) {
    std::atomic<bool> cancel{false};
    auto q = UserQuery::prepare(db(), kEndless, &cancel);
    ASSERT_TRUE(q) << q.error();
    std::thread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        cancel = true;
    });
    // The query never ends by itself: that step() returns is the cancel's doing.
    EXPECT_FALSE(q.value().step());
    stopper.join();
    EXPECT_EQ(q.value().stopped(), UserQuery::Stop::Cancelled);
    EXPECT_EQ(q.value().error(), "query cancelled");
    // the connection is fine afterwards, and no progress handler is left behind
    q = UserQuery::prepare(db(), "SELECT 7");
    ASSERT_TRUE(q);
    ASSERT_TRUE(q.value().step());
    EXPECT_EQ(q.value().statement().int64(0), 7);
}

TEST_F(UserQueryTest, TimeoutStopsALongQuery) {
    auto q =
        UserQuery::prepare(db(), kEndless, nullptr, {.timeout = std::chrono::milliseconds(200)});
    ASSERT_TRUE(q) << q.error();
    EXPECT_FALSE(q.value().step());
    EXPECT_EQ(q.value().stopped(), UserQuery::Stop::TimedOut);
    EXPECT_EQ(q.value().error(), "query timed out after 200 ms");
}

}  // namespace
}  // namespace ts::test
