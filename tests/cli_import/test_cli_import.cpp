// trainscope-cli import / export: the JSON shape, exit codes, several files in one session,
// and import -> export -> import keeping every slice, counter and flow.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "tests/common/test_support.h"

namespace ts::test {
namespace {

rapidjson::Document parse(const std::string& s) {
    rapidjson::Document d;
    d.Parse(s.c_str());
    return d;
}

TEST(CliImport, PrintsTheIssueShapeAndRoundTrips) {
    TS_REQUIRE_CORPUS();
    const auto dir = tempDir("cli_import");
    const std::string a = (dir / "a.tscope").string(), b = (dir / "b.tscope").string();
    const std::string out = (dir / "out.json").string();
    for (const char* file : {"real/catapult/thread_time_visualisation.json.gz",
                             "real/hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                             "real/catapult/instance_counters.json"}) {
        SCOPED_TRACE(file);
        std::filesystem::remove(a);
        std::filesystem::remove(b);
        auto r = runCli({"import", corpusFile(file).string(), "-o", a, "--json"});
        ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
        auto d = parse(r.out);
        ASSERT_TRUE(d.IsObject() && d.HasMember("sources"));
        const auto& s = d["sources"][0];
        for (const char* k :
             {"path", "status", "error", "events", "slices", "async_slices", "instants", "marks",
              "samples", "counter_samples", "flows", "processes", "threads", "skipped",
              "skipped_reasons", "ts_min_ns", "ts_max_ns"})
            EXPECT_TRUE(s.HasMember(k)) << k;
        EXPECT_STREQ(s["status"].GetString(), "complete");
        // X events without dur are slices (unfinished), not skipped
        EXPECT_FALSE(s["skipped_reasons"].HasMember("json_missing_dur"));
        auto e = runCli({"export", a, "--chrome", out, "--json"});
        ASSERT_EQ(e.exitCode, 0) << e.out << e.err;
        auto r2 = runCli({"import", out, "-o", b, "--json"});
        ASSERT_EQ(r2.exitCode, 0) << r2.out << r2.err;
        auto d2 = parse(r2.out);
        const auto& s2 = d2["sources"][0];
        for (const char* k : {"slices", "async_slices", "instants", "marks", "samples",
                              "counter_samples", "flows", "ts_min_ns", "ts_max_ns"})
            EXPECT_EQ(s[k].GetInt64(), s2[k].GetInt64()) << k;
    }
}

TEST(CliImport, FailedSourceExitsNonZeroAndSeveralFilesArePrefixed) {
    TS_REQUIRE_CORPUS();
    const auto dir = tempDir("cli_import2");
    const std::string garbage = (dir / "bad.json").string();
    FILE* f = std::fopen(garbage.c_str(), "w");
    std::fputs("{not json", f);
    std::fclose(f);
    const std::string session = (dir / "s.tscope").string();
    auto r = runCli({"import", corpusFile("real/hta/base.json.gz").string(),
                     corpusFile("real/hta/backward_thread.json").string(), garbage, "-o", session,
                     "--json"});
    EXPECT_EQ(r.exitCode, 1);
    auto d = parse(r.out);
    ASSERT_TRUE(d.HasMember("sources"));
    ASSERT_EQ(d["sources"].Size(), 3u);
    EXPECT_STREQ(d["sources"][2]["status"].GetString(), "failed");
    auto q = runCli({"query", session,
                     "SELECT count(*) AS n FROM processes WHERE name LIKE 'base: %' OR name LIKE "
                     "'backward_thread: %'",
                     "--json"});
    EXPECT_NE(q.out.find("\"n\""), std::string::npos) << q.out << q.err;
    EXPECT_EQ(q.out.find("\"n\":0"), std::string::npos) << q.out;
}

}  // namespace
}  // namespace ts::test
