// A profiled run through the CLI: `train --profile` records it, `export --chrome --run N`
// writes its profile, the Chrome importer reads it back with the same slices (by name),
// flows, counter samples and instants, and a second reader — tests/profiler/check_trace_events.py,
// an independent Python check of the Trace Event Format's rules — accepts the file (and
// rejects broken variants of it, so the check can fail). `stats --run` and `analyze --run`
// cover the profile. Skips the Python part when /usr/bin/python3 is absent.
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using ts::store::TraceStore;

namespace {

constexpr const char* kPython = "/usr/bin/python3";

std::string checkerPath() {
    return (fs::path(TRAINSCOPE_SOURCE_DIR) / "tests" / "profiler" / "check_trace_events.py")
        .string();
}

/// Runs the checker on `trace` (--json); returns its exit code and parsed output.
int runChecker(const std::string& trace, rapidjson::Document& out) {
    const std::string cmd =
        std::string(kPython) + " '" + checkerPath() + "' '" + trace + "' --json 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), &pclose);
    std::string text;
    std::array<char, 4096> buf{};
    size_t n = 0;
    while ((n = std::fread(buf.data(), 1, buf.size(), p.get())) > 0) text.append(buf.data(), n);
    const int status = pclose(p.release());
    out.Parse(text.c_str());
    EXPECT_FALSE(out.HasParseError()) << text;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::map<std::string, int64_t> sliceCounts(TraceStore& s, int64_t sourceId) {
    auto q = s.db().prepare(
        "SELECT n.str, count(*) FROM slices sl JOIN tracks t ON t.id = sl.track_id "
        "JOIN strings n ON n.id = sl.name_id WHERE t.source_id = ? GROUP BY n.str");
    q.bind(1, sourceId);
    std::map<std::string, int64_t> out;
    while (q.step()) out[q.text(0)] = q.int64(1);
    return out;
}

int64_t count(TraceStore& s, const std::string& table, int64_t sourceId) {
    const std::string src = std::to_string(sourceId);
    std::string sql;
    if (table == "flows")
        sql = "SELECT count(*) FROM flows WHERE source_id = " + src;
    else
        sql = "SELECT count(*) FROM " + table + " x JOIN tracks t ON t.id = x.track_id " +
              "WHERE t.source_id = " + src;
    return s.db().queryInt(sql).value();
}

void writeText(const fs::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary);
    f << text;
}

std::string readText(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

TEST(ProfileExport, ChromeTraceReimportsWithTheSameCountsAndPassesTheFormatCheck) {
    const fs::path dir = ts::test::tempDir("prof_export");
    const std::string session = (dir / "run.tscope").string();
    auto r = ts::test::runCli({"train", "--model", "lenet5", "--dataset", "synthetic",
                               "--synthetic-samples", "256", "--batch-size", "16", "--limit-steps",
                               "5", "--eval-limit", "32", "--profile", "--profile-schedule",
                               "0,1,3,1", "-o", session, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    rapidjson::Document doc;
    ASSERT_FALSE(doc.Parse(r.out.c_str()).HasParseError()) << r.out;
    ASSERT_TRUE(doc["profile"].IsObject());
    const int64_t runId = doc["run_id"].GetInt64();
    const int64_t sourceId = doc["profile"]["source_id"].GetInt64();
    EXPECT_EQ(doc["profile"]["steps"].GetInt64(), 3);
    EXPECT_STREQ(doc["profile"]["schedule"].GetString(), "wait=0,warmup=1,active=3,repeat=1");

    const std::string trace = (dir / "run.json").string();
    r = ts::test::runCli(
        {"export", session, "--chrome", trace, "--run", std::to_string(runId), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    rapidjson::Document ex;
    ASSERT_FALSE(ex.Parse(r.out.c_str()).HasParseError()) << r.out;

    const std::string back = (dir / "back.tscope").string();
    r = ts::test::runCli({"import", trace, "-o", back, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;

    auto a = TraceStore::open(session, TraceStore::Mode::ReadOnly).value();
    auto b = TraceStore::open(back, TraceStore::Mode::ReadOnly).value();
    auto srcs = b->sources().value();
    ASSERT_EQ(srcs.size(), 1u);
    const int64_t backId = srcs[0].id;
    const auto before = sliceCounts(*a, sourceId);
    EXPECT_EQ(before.at("ProfilerStep#2"), 1);
    EXPECT_GT(before.at("Conv2D"), 0);
    EXPECT_EQ(sliceCounts(*b, backId), before);
    for (const char* t : {"flows", "counters", "instants"})
        EXPECT_EQ(count(*b, t, backId), count(*a, t, sourceId)) << t;
    EXPECT_EQ(ex["slices"].GetInt64(), count(*a, "slices", sourceId));
    EXPECT_EQ(ex["flows"].GetInt64(), count(*a, "flows", sourceId));

    // The analyses read the re-imported trace like the recorded one.
    r = ts::test::runCli({"analyze", back, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    rapidjson::Document an;
    ASSERT_FALSE(an.Parse(r.out.c_str()).HasParseError());
    EXPECT_STREQ(an["split"].GetString(), "phases");
    EXPECT_EQ(an["steps"].Size(), 3u);
    EXPECT_GT(an["memory"]["top_allocations"].Size(), 0u);

    // stats covers the run's profile, grouped by input shape.
    r = ts::test::runCli(
        {"stats", session, "--run", std::to_string(runId), "--group-by-input-shape", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    rapidjson::Document st;
    ASSERT_FALSE(st.Parse(r.out.c_str()).HasParseError());
    bool convShape = false;
    for (const auto& row : st["rows"].GetArray())
        convShape |= std::string(row["name"].GetString()) == "Conv2D" &&
                     std::string(row["input_shapes"].GetString()).rfind("[[16,1,28,28]", 0) == 0;
    EXPECT_TRUE(convShape);

    // The second reader.
    if (!fs::exists(kPython)) GTEST_SKIP() << "no " << kPython << ": format check skipped";
    rapidjson::Document chk;
    ASSERT_EQ(runChecker(trace, chk), 0) << chk["errors"][0].GetString();
    EXPECT_TRUE(chk["valid"].GetBool());
    EXPECT_EQ(chk["slices"].GetInt64(), ex["slices"].GetInt64());
    EXPECT_EQ(chk["flows"].GetInt64(), ex["flows"].GetInt64());
    EXPECT_EQ(chk["counter_samples"].GetInt64(), ex["counter_samples"].GetInt64());
    EXPECT_EQ(chk["instants"].GetInt64(), ex["instants"].GetInt64());

    // ... which can fail: each broken variant breaks one rule.
    const std::string good = readText(trace);
    const size_t x = good.find("\"ph\":\"X\",\"dur\":");
    const size_t s = good.find("\"ph\":\"s\"");
    ASSERT_NE(x, std::string::npos);
    ASSERT_NE(s, std::string::npos);
    const std::vector<std::pair<std::string, std::string>> broken = {
        {"negative dur", std::string(good).replace(x, 15, "\"ph\":\"X\",\"dur\":-")},
        {"unpaired flow", std::string(good).replace(s, 8, "\"ph\":\"t\"")},
        {"E without B", std::string(good).insert(good.find('[') + 1,
                                                 "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":0},")},
        {"string ts", std::string(good).insert(good.find('[') + 1,
                                               "{\"ph\":\"i\",\"pid\":1,\"tid\":1,"
                                               "\"ts\":\"5\",\"name\":\"x\"},")},
        {"missing pid", std::string(good).insert(good.find('[') + 1,
                                                 "{\"ph\":\"X\",\"tid\":1,\"ts\":1,\"dur\":1,"
                                                 "\"name\":\"x\"},")},
        {"bad metadata", std::string(good).insert(good.find('[') + 1,
                                                  "{\"ph\":\"M\",\"pid\":1,\"tid\":1,"
                                                  "\"name\":\"thread_name\",\"args\":{}},")},
        {"unknown phase", std::string(good).insert(good.find('[') + 1,
                                                   "{\"ph\":\"Q\",\"pid\":1,\"tid\":1,\"ts\":1},")},
        {"truncated", good.substr(0, good.size() / 2)},
    };
    for (const auto& [what, text] : broken) {
        const fs::path p = dir / "broken.json";
        writeText(p, text);
        rapidjson::Document bad;
        EXPECT_NE(runChecker(p.string(), bad), 0) << what;
        if (bad.IsObject()) {
            EXPECT_FALSE(bad["valid"].GetBool()) << what;
        }
    }
}

// A third reader: the trace engine of Chrome DevTools' Performance panel (npm package
// @paulirish/trace_engine), when node and the package are installed — see
// tests/profiler/devtools_trace_check.mjs; TRAINSCOPE_TRACE_ENGINE names the package folder,
// default <build>/tools-node/node_modules/@paulirish/trace_engine.
TEST(ProfileExport, ChromeDevToolsTraceEngineReadsEverySliceAndFlow) {
    const char* env = std::getenv("TRAINSCOPE_TRACE_ENGINE");
    const fs::path engine = env ? fs::path(env)
                                : fs::path(TS_BUILD_DIR) / "tools-node" / "node_modules" /
                                      "@paulirish" / "trace_engine";
    if (!fs::exists(engine / "analyze-trace.mjs") || std::system("node --version > /dev/null 2>&1"))
        GTEST_SKIP() << "node or " << engine.string() << " missing: DevTools check skipped";
    const fs::path dir = ts::test::tempDir("prof_devtools");
    const std::string session = (dir / "run.tscope").string(), trace = (dir / "run.json").string();
    auto r = ts::test::runCli({"train", "--model", "mlp", "--dataset", "synthetic",
                               "--synthetic-samples", "256", "--batch-size", "16", "--limit-steps",
                               "3", "--eval-limit", "32", "--profile", "-o", session, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    r = ts::test::runCli({"export", session, "--chrome", trace, "--run", "1", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    rapidjson::Document ex;
    ASSERT_FALSE(ex.Parse(r.out.c_str()).HasParseError());

    const std::string cmd =
        "node '" +
        (fs::path(TRAINSCOPE_SOURCE_DIR) / "tests" / "profiler" / "devtools_trace_check.mjs")
            .string() +
        "' '" + trace + "' '" + engine.string() + "' 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), &pclose);
    std::string text;
    std::array<char, 4096> buf{};
    size_t n = 0;
    while ((n = std::fread(buf.data(), 1, buf.size(), p.get())) > 0) text.append(buf.data(), n);
    ASSERT_EQ(pclose(p.release()), 0) << text;
    rapidjson::Document dt;
    ASSERT_FALSE(dt.Parse(text.c_str()).HasParseError()) << text;
    EXPECT_EQ(dt["entries"].GetInt64(), ex["slices"].GetInt64());
    EXPECT_EQ(dt["flows"].GetInt64(), ex["flows"].GetInt64());
    EXPECT_EQ(dt["flow_events"].GetInt64(), 2 * ex["flows"].GetInt64());  // both ends bound
    ASSERT_EQ(dt["threads"].Size(), 1u);
    EXPECT_EQ(std::string(dt["threads"][0]["name"].GetString()).rfind("training thread ", 0), 0u);
}
