// trainscope-cli: help, info --json, query (read-only), errors as JSON.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "core/store/store_writer.h"
#include "tests/common/test_support.h"

using namespace ts::store;

namespace {

std::string makeSession() {
    const std::string path = (ts::test::tempDir("cli") / "s.tscope").string();
    auto s = TraceStore::open(path, TraceStore::Mode::Create).value();
    const int64_t src = s->beginSource("trace.json", "chrome_json").value();
    {
        StoreWriter w(*s, src);
        const int64_t p = w.addProcess("1", "python");
        const int64_t t = w.addTrack("thread", p, w.addThread(p, "1"), "main");
        w.addSlice({t, 1000, 500, 0, w.intern("aten::mm"), 0, 0, 0});
        w.addSlice({t, 2000, 700, 0, w.intern("aten::relu"), 0, 0, 0});
    }
    SourceSummary sum;
    sum.status = ts::store::SourceStatus::Complete;
    sum.events = 2;
    sum.slices = 2;
    sum.tsMin = 1000;
    sum.tsMax = 2700;
    EXPECT_TRUE(s->finishSource(src, sum).ok());
    EXPECT_TRUE(s->beginRun("mlp", R"({"epochs":1})").ok());
    return path;
}

rapidjson::Document parse(const std::string& text) {
    rapidjson::Document d;
    d.Parse(text.c_str());
    EXPECT_FALSE(d.HasParseError()) << text;
    return d;
}

}  // namespace

TEST(Cli, EveryCommandHasHelp) {
    auto top = ts::test::runCli({"--help"});
    EXPECT_EQ(top.exitCode, 0);
    for (const char* cmd : {"info", "query"}) {
        EXPECT_NE(top.out.find(cmd), std::string::npos);
        auto r = ts::test::runCli({cmd, "--help"});
        EXPECT_EQ(r.exitCode, 0) << cmd;
        EXPECT_NE(r.out.find("--json"), std::string::npos) << cmd;
    }
}

TEST(Cli, InfoJsonDescribesTheSession) {
    const std::string path = makeSession();
    auto r = ts::test::runCli({"info", path, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto d = parse(r.out);
    ASSERT_TRUE(d.IsObject());
    ASSERT_EQ(d["sources"].Size(), 1u);
    EXPECT_STREQ(d["sources"][0]["status"].GetString(), "complete");
    EXPECT_EQ(d["counts"]["slices"].GetInt64(), 2);
    EXPECT_EQ(d["time_range_ns"][0].GetInt64(), 1000);
    EXPECT_EQ(d["time_range_ns"][1].GetInt64(), 2700);
    ASSERT_EQ(d["runs"].Size(), 1u);
    EXPECT_STREQ(d["runs"][0]["status"].GetString(), "running");
}

TEST(Cli, QueryReturnsRows) {
    const std::string path = makeSession();
    auto r = ts::test::runCli(
        {"query", path,
         "SELECT s.str AS name, dur FROM slices JOIN strings s ON s.id=name_id ORDER BY ts",
         "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    auto d = parse(r.out);
    ASSERT_EQ(d["rows"].Size(), 2u);
    EXPECT_STREQ(d["columns"][0].GetString(), "name");
    EXPECT_STREQ(d["rows"][1][0].GetString(), "aten::relu");
    EXPECT_EQ(d["rows"][1][1].GetInt64(), 700);
}

TEST(Cli, QueryRefusesWrites) {
    const std::string path = makeSession();
    for (const char* sql : {"DELETE FROM slices", "DROP TABLE slices", "UPDATE runs SET status='x'",
                            "SELECT 1; DELETE FROM slices", "PRAGMA user_version=99"}) {
        auto r = ts::test::runCli({"query", path, sql, "--json"});
        EXPECT_NE(r.exitCode, 0) << sql;
        EXPECT_NE(r.out.find("\"error\""), std::string::npos) << sql << ": " << r.out;
    }
    auto r = ts::test::runCli({"query", path, "SELECT count(*) FROM slices", "--json"});
    EXPECT_NE(r.out.find("[[2]]"), std::string::npos) << r.out;
}

TEST(Cli, BadSqlAndUnknownCommandAreJsonErrors) {
    const std::string path = makeSession();
    auto r = ts::test::runCli({"query", path, "SELEKT nonsense", "--json"});
    EXPECT_NE(r.exitCode, 0);
    EXPECT_NE(r.out.find("SQL error"), std::string::npos) << r.out;
    auto u = ts::test::runCli({"frobnicate", "--json"});
    EXPECT_NE(u.exitCode, 0);
    EXPECT_NE(u.out.find("unknown command"), std::string::npos) << u.out;
}
