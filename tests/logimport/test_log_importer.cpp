// Sample logs of each format import with every line kept; sniffing; the logs CLI.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/log/log_store.h"
#include "importers/logs/log_file_importer.h"
#include "importers/logs/log_line_parser.h"
#include "importers/registry.h"
#include "tests/common/test_support.h"

using namespace ts::importers;
namespace fs = std::filesystem;

namespace {

fs::path sample(const std::string& name) {
    return fs::path(TRAINSCOPE_SOURCE_DIR) / "tests/data/logs" / name;
}

std::vector<std::string> fileLines(const fs::path& p) {
    std::ifstream in(p);
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

// Every non-blank line of `path` is found in exactly the record it belongs to: a header's
// message starts a record, any other line is a line of some record's message.
void expectEveryLineKept(const fs::path& path, const std::vector<ts::log::LogRecord>& recs) {
    std::vector<std::string> recordLines;
    for (const auto& r : recs) {
        std::istringstream in(r.message);
        for (std::string l; std::getline(in, l);) recordLines.push_back(l);
    }
    size_t next = 0;  // lines appear in file order
    for (const auto& line : fileLines(path)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        std::string want = line;
        if (auto h = logs::parseHeaderLine(line)) want = h->record.message;
        while (next < recordLines.size() && recordLines[next] != want) ++next;
        ASSERT_LT(next, recordLines.size()) << "line lost: " << line;
        ++next;
    }
}

struct SampleCase {
    const char* file;
    size_t records;
    const char* format;  // the format most lines have
};

}  // namespace

TEST(LogImporter, SamplesKeepEveryLine) {
    for (const SampleCase c :
         {SampleCase{"glog_cpp.log", 5, "glog"}, SampleCase{"mindspore_python.log", 4, "python"},
          SampleCase{"plog.log", 6, "plog"}, SampleCase{"traceback.txt", 4, "unknown"}}) {
        SCOPED_TRACE(c.file);
        auto parsed = logs::readLogFile(sample(c.file).string());
        ASSERT_TRUE(parsed) << parsed.error();
        EXPECT_EQ(parsed->records.size(), c.records);
        EXPECT_GT(parsed->stats.formats[c.format], 0);
        EXPECT_EQ(parsed->stats.lines, static_cast<int64_t>(fileLines(sample(c.file)).size()));
        expectEveryLineKept(sample(c.file), parsed->records);
    }
}

TEST(LogImporter, SampleDetails) {
    auto glog = logs::readLogFile(sample("glog_cpp.log").string());
    ASSERT_TRUE(glog);
    EXPECT_EQ(glog->records[2].module, "KERNEL");
    EXPECT_EQ(glog->records[2].function, "Launch");
    EXPECT_NE(glog->records[2].message.find("\n    shape: [32, 3, 224, 224]"), std::string::npos);
    EXPECT_EQ(glog->records[4].level, ts::log::Level::Critical);  // [EXCEPTION]
    auto py = logs::readLogFile(sample("mindspore_python.log").string());
    ASSERT_TRUE(py);
    EXPECT_EQ(py->records[3].module, "PYTHON");
    EXPECT_TRUE(py->records[3].message.ends_with("RuntimeError: Dataset sizes differ"));
    auto classic = logs::readLogFile(sample("glog_classic.log").string());
    ASSERT_TRUE(classic);
    EXPECT_EQ(classic->records[5].message,
              "CUDA error: out of memory\n    while allocating 2.0 GiB");
    EXPECT_EQ(classic->records[5].tsNs, ts::log::parseLogTime("2020-11-03-09:15:02.250.000"));
    EXPECT_EQ(classic->records[6].level, ts::log::Level::Critical);
    auto tb = logs::readLogFile(sample("traceback.txt").string());
    ASSERT_TRUE(tb);
    EXPECT_EQ(tb->stats.formats["traceback"], 1);
    EXPECT_EQ(tb->records[1].level, ts::log::Level::Error);  // "Error in atexit..."
}

TEST(LogImporter, SniffTakesLogsNotJson) {
    const std::string glogHead = "[INFO] ME(1,a,p):2021-01-01-12:00:00.000.000 [a.cc:1] F] x\n";
    EXPECT_EQ(logs::sniffLogText("/x/whatever.dat", glogHead), 60);
    EXPECT_EQ(logs::sniffLogText("/x/t.out", "Traceback (most recent call last):\n"), 60);
    EXPECT_EQ(logs::sniffLogText("/x/train.log", "epoch 1 loss 2\n"), 10);
    EXPECT_EQ(logs::sniffLogText("/x/mindspore.log.1234", "hello\n"), 10);
    EXPECT_EQ(logs::sniffLogText("/x/notes.md", "hello\n"), 0);
    EXPECT_EQ(logs::sniffLogText("/x/trace.json", "[{\"ph\":\"X\"}]"), 0);
    EXPECT_EQ(logs::sniffLogText("/x/trace.txt", "{\"traceEvents\": []}"), 0);
    EXPECT_EQ(logs::sniffLogText("/x/a.log", std::string("bin\0ary", 7)), 0);
}

TEST(LogImporter, ImportIntoSessionThroughRegistry) {
    const fs::path dir = ts::test::tempDir("logimport");
    auto store = ts::store::TraceStore::open((dir / "s.tscope").string(),
                                             ts::store::TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.error();
    ts::JobControl jc;
    ImportReport rep = importFile(sample("plog.log").string(), *store.value(), jc);
    EXPECT_EQ(rep.status, "complete") << rep.error;
    EXPECT_EQ(rep.kind, "log_text");
    EXPECT_EQ(rep.events, 6);
    ASSERT_TRUE(rep.tsMinNs);
    auto rows = ts::log::queryLogs(*store.value(), ts::log::LogQuery{});
    ASSERT_TRUE(rows);
    ASSERT_EQ(rows->size(), 6u);
    EXPECT_EQ(rows.value()[0].sourceId, rep.sourceId);
    EXPECT_EQ(rows.value()[0].record.tid, 12828);
    auto sources = store.value()->sources();
    ASSERT_TRUE(sources);
    ASSERT_EQ(sources->size(), 1u);
    EXPECT_EQ(sources.value()[0].status, "complete");
    EXPECT_NE(sources.value()[0].stats.find("\"plog\":4"), std::string::npos);
}

TEST(LogImporter, CancelRemovesTheSource) {
    const fs::path dir = ts::test::tempDir("logcancel");
    auto store = ts::store::TraceStore::open((dir / "s.tscope").string(),
                                             ts::store::TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    ts::JobControl jc;
    jc.cancel();
    ImportReport rep = logs::importLogFile(sample("glog_cpp.log").string(), *store.value(), jc);
    EXPECT_EQ(rep.status, "cancelled");
    EXPECT_TRUE(store.value()->sources()->empty());
    EXPECT_TRUE(ts::log::queryLogs(*store.value(), {})->empty());
}

TEST(LogImporter, MissingFileIsAnError) {
    EXPECT_FALSE(logs::readLogFile("/nonexistent/x.log"));
}

TEST(LogsCli, JsonFromLogFilesWithFilters) {
    auto res = ts::test::runCli({"logs", sample("glog_cpp.log").string(),
                                 sample("plog.log").string(), "--level", "ERROR", "--json"});
    ASSERT_EQ(res.exitCode, 0) << res.err;
    rapidjson::Document d;
    d.Parse(res.out.c_str());
    ASSERT_TRUE(d.IsObject()) << res.out;
    ASSERT_TRUE(d["records"].IsArray());
    // glog: ERROR + EXCEPTION; plog: 4 ERROR lines + the unknown 'not supported' line is INFO
    EXPECT_EQ(d["count"].GetInt(), 6);
    const auto& first = d["records"][0];
    EXPECT_STREQ(first["level"].GetString(), "ERROR");
    EXPECT_STREQ(first["module"].GetString(), "KERNEL");
    EXPECT_EQ(first["line"].GetInt(), 1408);
    EXPECT_TRUE(first["ts_ns"].IsInt64());
    for (const char* k : {"file", "pid", "tid", "message"}) EXPECT_TRUE(first.HasMember(k)) << k;

    auto mod =
        ts::test::runCli({"logs", sample("plog.log").string(), "--module", "runtime", "--json"});
    ASSERT_EQ(mod.exitCode, 0) << mod.err;
    d.Parse(mod.out.c_str());
    EXPECT_EQ(d["count"].GetInt(), 3);
}

TEST(LogsCli, ReadsASessionAndReportsErrors) {
    const fs::path dir = ts::test::tempDir("logcli");
    const std::string session = (dir / "s.tscope").string();
    {
        auto store = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::Create);
        ASSERT_TRUE(store);
        ts::JobControl jc;
        ASSERT_EQ(importFile(sample("traceback.txt").string(), *store.value(), jc).status,
                  "complete");
    }
    auto res = ts::test::runCli({"logs", session, "--module", "PYTHON", "--json"});
    ASSERT_EQ(res.exitCode, 0) << res.err;
    rapidjson::Document d;
    d.Parse(res.out.c_str());
    ASSERT_EQ(d["count"].GetInt(), 1);
    EXPECT_TRUE(d["records"][0]["ts_ns"].IsNull());

    auto bad = ts::test::runCli({"logs", session, "--level", "LOUD", "--json"});
    EXPECT_EQ(bad.exitCode, 1);
    d.Parse(bad.out.c_str());
    ASSERT_TRUE(d.IsObject());
    EXPECT_TRUE(d.HasMember("error"));
    auto missing = ts::test::runCli({"logs", "/nonexistent.log", "--json"});
    EXPECT_EQ(missing.exitCode, 1);
}

// Any program that logs reads the glog variables at start-up and warns about bad ones.
TEST(LogsCli, BadEnvironmentValueIsWarnedAboutAtStartup) {
    setenv("GLOG_v", "loud", 1);
    setenv("MS_SUBMODULE_LOG_v", "{NOPE:1}", 1);
    auto res = ts::test::runCli({"logs", sample("plog.log").string(), "--json"});
    unsetenv("GLOG_v");
    unsetenv("MS_SUBMODULE_LOG_v");
    EXPECT_EQ(res.exitCode, 0);
    EXPECT_NE(res.err.find("GLOG_v='loud' is not a level 0..4; using 2 (WARNING)"),
              std::string::npos)
        << res.err;
    EXPECT_NE(res.err.find("unknown sub-module 'NOPE'"), std::string::npos) << res.err;
    EXPECT_NE(res.err.find("[WARNING] COMMON("), std::string::npos) << res.err;
}

TEST(LogsCli, AFolderStandsForItsLogFiles) {
    auto res = ts::test::runCli({"logs", sample("").string(), "--module", "PYTHON", "--json"});
    ASSERT_EQ(res.exitCode, 0) << res.err;
    rapidjson::Document d;
    d.Parse(res.out.c_str());
    EXPECT_EQ(d["count"].GetInt(), 2);  // mindspore_python.log and traceback.txt
    const fs::path empty = ts::test::tempDir("emptylogs");
    auto none = ts::test::runCli({"logs", empty.string(), "--json"});
    EXPECT_EQ(none.exitCode, 1);
}
