// Schema versions: older files migrate forward with their data; newer files are refused
// and left byte-for-byte untouched.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/store/arg_chunk.h"
#include "core/store/schema.h"
#include "core/store/slice_chunk_writer.h"
#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

using namespace ts::store;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Writes a session as build `version` would have: migrations up to it, its marker, data.
void writeFixture(const std::string& path, int version) {
    auto db = SqliteDb::open(path, SqliteDb::Mode::Create).value();
    for (const Migration& m : migrations()) {
        if (m.toVersion <= version) {
            ASSERT_TRUE(applyMigration(db, m).ok());
        }
    }
    ASSERT_TRUE(
        db.exec("INSERT INTO meta VALUES('application','trainscope');"
                "INSERT INTO strings(id, str) VALUES(1, 'MatMul');"
                "INSERT INTO sources(id, path, kind, status, slices) "
                "VALUES(1, 'old.json', 'chrome_json', 'complete', 1);"
                "INSERT INTO processes(id, source_id, pid) VALUES(1, 1, '42');"
                "INSERT INTO tracks(id, source_id, kind, process_id) VALUES(1, 1, 'thread', 1);"
                "PRAGMA user_version=" +
                std::to_string(version))
            .ok());
    if (version >= 2) {
        ASSERT_TRUE(
            db.exec("INSERT INTO runs(id, name, status) VALUES(1, 'old run', 'completed')").ok());
    }
    // Slices: rows of the clustered table up to v4, chunks from v5 on.
    if (version < 5) {
        ASSERT_TRUE(db.exec("INSERT INTO slices(id, track_id, ts, dur, depth, name_id, "
                            "arg_set_id) VALUES(1, 1, 100, 50, 0, 1, 7), (2, 1, 120, 10, 1, 1, "
                            "NULL);"
                            "INSERT INTO args(id, source_id, json) VALUES(7, 1, '{\"a\":1}'), "
                            "(8, 1, '{\"b\":[2]}'), (12, 1, '{}')")
                        .ok());
    } else {
        std::vector<StoredSlice> rows = {{1, {1, 100, 50, 0, 1, 0, 7, 0}},
                                         {2, {1, 120, 10, 1, 1, 0, 0, 0}}};
        ASSERT_TRUE(SliceChunkWriter(db).write(1, rows).ok());
        ArgChunkWriter args(db, 1);
        ASSERT_TRUE(args.add(7, "{\"a\":1}").ok());
        ASSERT_TRUE(args.add(8, "{\"b\":[2]}").ok());
        ASSERT_TRUE(args.add(12, "{}").ok());
        ASSERT_TRUE(args.flush().ok());
    }
}

}  // namespace

TEST(Migration, EveryOlderVersionOpensWithItsDataKept) {
    for (int v = 1; v < currentSchemaVersion(); ++v) {
        SCOPED_TRACE("from schema v" + std::to_string(v));
        const std::string path = (ts::test::tempDir("mig") / "old.tscope").string();
        writeFixture(path, v);
        auto s = TraceStore::open(path, TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(s.ok()) << s.error();
        EXPECT_EQ(s.value()->schemaVersion(), currentSchemaVersion());
        EXPECT_EQ(s.value()->db().queryInt("PRAGMA user_version").value(), currentSchemaVersion());
        EXPECT_EQ(s.value()->db().queryInt("SELECT dur FROM slices WHERE id=1").value(), 50);
        EXPECT_EQ(s.value()->db().queryInt("SELECT depth FROM slices WHERE id=2").value(), 1);
        EXPECT_EQ(s.value()->db().queryInt("SELECT count(*) FROM slices").value(), 2);
        auto& db = s.value()->db();
        Statement a = db.prepare(
            "SELECT a.json FROM slices s JOIN args a ON a.id = s.arg_set_id WHERE s.id = 1");
        ASSERT_TRUE(a.step()) << a.error();
        EXPECT_EQ(a.text(0), "{\"a\":1}");
        EXPECT_EQ(db.queryInt("SELECT count(*) FROM args").value(), 3);
        EXPECT_EQ(db.queryInt("SELECT id FROM args WHERE json = '{}'").value(), 12);
        EXPECT_EQ(db.queryInt("SELECT sum(id) FROM args WHERE source_id = 1").value(), 27);
        EXPECT_EQ(s.value()->string(1), "MatMul");
        // Tables of later versions exist and work; runs of older files were engine runs.
        if (v >= 2) {
            Statement k = db.prepare("SELECT kind FROM runs WHERE id = 1");
            ASSERT_TRUE(k.step());
            EXPECT_EQ(k.text(0), "engine");
        }
        EXPECT_TRUE(db.queryInt("SELECT count(*) FROM sources WHERE run_id IS NULL").value() == 1);
        EXPECT_TRUE(s.value()->beginRun("after-upgrade", "{}", "command").ok());
        EXPECT_EQ(s.value()->db().queryInt("SELECT count(*) FROM rdr_records").value(), 0);
    }
}

TEST(Migration, ReadOnlyOpenOfOlderFileUpgradesIt) {
    const std::string path = (ts::test::tempDir("mig") / "old.tscope").string();
    writeFixture(path, 1);
    auto s = TraceStore::open(path, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(s.ok()) << s.error();
    EXPECT_EQ(s.value()->schemaVersion(), currentSchemaVersion());
    EXPECT_EQ(s.value()->sources().value().size(), 1u);
}

TEST(Migration, NewerFileIsRefusedAndLeftUntouched) {
    const std::string path = (ts::test::tempDir("mig") / "new.tscope").string();
    writeFixture(path, currentSchemaVersion());
    {
        auto db = SqliteDb::open(path, SqliteDb::Mode::ReadWrite).value();
        ASSERT_TRUE(
            db.exec("PRAGMA user_version=" + std::to_string(currentSchemaVersion() + 7)).ok());
    }
    const std::string before = slurp(path);
    for (auto mode : {TraceStore::Mode::ReadOnly, TraceStore::Mode::ReadWrite}) {
        auto s = TraceStore::open(path, mode);
        ASSERT_FALSE(s.ok());
        EXPECT_NE(s.error().find("newer TrainScope"), std::string::npos) << s.error();
        EXPECT_NE(s.error().find("v" + std::to_string(currentSchemaVersion() + 7)),
                  std::string::npos);
    }
    EXPECT_EQ(slurp(path), before);
}
