// Files that are not sessions, or damaged ones, give a clear error and never crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "core/session/session_overview.h"
#include "core/store/store_writer.h"
#include "tests/common/test_support.h"

using namespace ts::store;
namespace fs = std::filesystem;

namespace {

void writeFile(const fs::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary) << bytes;
}

// A real session with enough rows to span many pages, checkpointed into the main file.
fs::path makeSession(const std::string& tag) {
    const fs::path path = ts::test::tempDir(tag) / "good.tscope";
    auto s = TraceStore::open(path.string(), TraceStore::Mode::Create).value();
    const int64_t src = s->beginSource("x.json", "test").value();
    {
        StoreWriter w(*s, src);
        const int64_t p = w.addProcess("1");
        const int64_t t = w.addTrack("thread", p, w.addThread(p, "1"), "t");
        for (int i = 0; i < 20000; ++i) w.addSlice({t, i * 100, 50, 0, w.intern("op"), 0, 0, 0});
    }
    EXPECT_TRUE(s->db().exec("PRAGMA wal_checkpoint(TRUNCATE)").ok());
    return path;
}

}  // namespace

TEST(DamagedFiles, MissingFile) {
    auto s = TraceStore::open("/nonexistent/dir/x.tscope", TraceStore::Mode::ReadOnly);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().find("no such session"), std::string::npos) << s.error();
}

TEST(DamagedFiles, TextFileIsNotASession) {
    const fs::path p = ts::test::tempDir("dmg") / "notes.tscope";
    writeFile(p, "This is not a session at all, just some text.\n");
    auto s = TraceStore::open(p.string(), TraceStore::Mode::ReadWrite);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().find("not an SQLite database"), std::string::npos) << s.error();
}

TEST(DamagedFiles, OtherApplicationsDatabaseIsNotASession) {
    const fs::path p = ts::test::tempDir("dmg") / "other.db";
    {
        auto db = SqliteDb::open(p.string(), SqliteDb::Mode::Create).value();
        ASSERT_TRUE(db.exec("CREATE TABLE customers(id INTEGER, name TEXT)").ok());
    }
    auto s = TraceStore::open(p.string(), TraceStore::Mode::ReadWrite);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().find("another application"), std::string::npos) << s.error();
}

TEST(DamagedFiles, TruncatedSessionGivesAnErrorNotACrash) {
    const fs::path p = makeSession("dmg");
    const auto size = fs::file_size(p);
    fs::resize_file(p, size / 3);
    auto s = TraceStore::open(p.string(), TraceStore::Mode::ReadOnly);
    if (s.ok()) {
        // The header survived: reading the damaged part must fail cleanly, not crash.
        auto ov = ts::session::readOverview(*s.value());
        auto n = s.value()->db().queryInt("SELECT sum(dur) FROM slices");
        EXPECT_TRUE(!ov.ok() || !n.ok() || n.value() != 20000 * 50);
    } else {
        EXPECT_FALSE(s.error().empty());
    }
}

TEST(DamagedFiles, CorruptedPagesNeverCrash) {
    const fs::path p = makeSession("dmg");
    std::string bytes;
    {
        std::ifstream in(p, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    std::mt19937 rng(7);
    for (int round = 0; round < 8; ++round) {
        std::string damaged = bytes;
        // Keep the 100-byte header so SQLite gets past the signature; smash pages.
        for (int i = 0; i < 64; ++i)
            damaged[100 + rng() % (damaged.size() - 100)] = static_cast<char>(rng());
        const fs::path q = ts::test::tempDir("dmg") / "bad.tscope";
        writeFile(q, damaged);
        auto s = TraceStore::open(q.string(), TraceStore::Mode::ReadWrite);
        if (!s.ok()) continue;
        (void)ts::session::readOverview(*s.value());
        (void)s.value()->db().queryInt("SELECT count(*), sum(ts) FROM slices");
    }
    SUCCEED();
}

TEST(DamagedFiles, CliReportsJsonError) {
    const fs::path p = ts::test::tempDir("dmg") / "bad.tscope";
    writeFile(p, "garbage");
    auto r = ts::test::runCli({"info", p.string(), "--json"});
    EXPECT_NE(r.exitCode, 0);
    EXPECT_NE(r.out.find("\"error\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("not an SQLite database"), std::string::npos) << r.out;
}
