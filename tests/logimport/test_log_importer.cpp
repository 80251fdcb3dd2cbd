// Sample logs of each format import with every line kept; sniffing; the logs CLI.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/log/log_line_parser.h"
#include "core/log/output_sinks.h"
#include "core/log_store/log_store.h"
#include "importers/logs/log_file_importer.h"
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
        if (auto h = ts::log::parseHeaderLine(line)) want = h->record.message;
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
          SampleCase{"plog.log", 6, "plog"}, SampleCase{"traceback.txt", 4, "unknown"},
          SampleCase{"glog_classic.log", 7, "glog_classic"},
          // A real training's stdout: Python and C++ records, print()s, a traceback and
          // MindSpore's C++ call stack after it, which stays in the traceback's record.
          SampleCase{"mindspore_train_stdout.log", 7, "unknown"}}) {
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
    EXPECT_EQ(rep.status, ts::store::SourceStatus::Complete) << rep.error;
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
    EXPECT_EQ(sources.value()[0].status, ts::store::SourceStatus::Complete);
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
    EXPECT_EQ(rep.status, ts::store::SourceStatus::Cancelled);
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
                  ts::store::SourceStatus::Complete);
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
    // mindspore_python.log, mindspore_train_stdout.log and traceback.txt
    EXPECT_EQ(d["count"].GetInt(), 3);
    const fs::path empty = ts::test::tempDir("emptylogs");
    auto none = ts::test::runCli({"logs", empty.string(), "--json"});
    EXPECT_EQ(none.exitCode, 1);
}

// Files our own logger writes (GLOG_log_dir) read back record for record.
TEST(LogImporter, OurOwnGlogFilesImportBack) {
    const fs::path dir = ts::test::tempDir("logroundtrip");
    auto sink = ts::log::GlogFileSink::create(dir.string(), "trainscope", ts::log::Level::Info,
                                              int64_t{1} << 20);
    ASSERT_TRUE(sink) << sink.error();
    std::vector<ts::log::LogRecord> written;
    const ts::log::Level levels[] = {ts::log::Level::Info, ts::log::Level::Warning,
                                     ts::log::Level::Error, ts::log::Level::Critical};
    for (int i = 0; i < 8; ++i) {
        ts::log::LogRecord r;
        r.level = levels[i % 4];
        r.module = i % 2 ? "ENGINE" : "DATASET";
        r.file = "core/engine/train/trainer.cpp";
        r.line = 100 + i;
        r.function = "run";
        r.pid = 4242;
        r.tid = 0x3e0f + i;
        r.program = "trainscope";
        r.tsNs = int64_t{1700000000} * 1000000000 + int64_t{i} * 1234567000;
        r.message = "record " + std::to_string(i) + " loss 2.30";
        sink.value()->write(r, ts::log::formatRecord(r));
        written.push_back(r);
    }
    sink.value()->flush();
    ASSERT_FALSE(sink.value()->files().empty());
    const std::string infoFile = sink.value()->files().front();  // holds every record >= INFO
    ASSERT_NE(infoFile.find(".log.INFO."), std::string::npos) << infoFile;
    auto parsed = logs::readLogFile(infoFile);
    ASSERT_TRUE(parsed) << parsed.error();
    expectEveryLineKept(infoFile, parsed->records);
    EXPECT_EQ(parsed->stats.formats["glog"], 8);
    std::vector<ts::log::LogRecord> back;
    for (const auto& r : parsed->records)
        if (!r.module.empty()) back.push_back(r);
    ASSERT_EQ(back.size(), written.size());
    for (size_t i = 0; i < back.size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(back[i].level, written[i].level);
        EXPECT_EQ(back[i].module, written[i].module);
        EXPECT_EQ(back[i].file, written[i].file);
        EXPECT_EQ(back[i].line, written[i].line);
        EXPECT_EQ(back[i].function, written[i].function);
        EXPECT_EQ(back[i].pid, written[i].pid);
        EXPECT_EQ(back[i].tid, written[i].tid);
        EXPECT_EQ(back[i].message, written[i].message);
        EXPECT_EQ(back[i].tsNs, written[i].tsNs);  // microsecond precision in the line
    }
}

// Broken input: an empty file, a truncated gzip and binary data never crash; what can be
// read is kept, what cannot is a clear error.
TEST(LogImporter, EmptyTruncatedAndBinaryFiles) {
    const fs::path dir = ts::test::tempDir("logbroken");
    std::ofstream(dir / "empty.log").close();
    auto empty = logs::readLogFile((dir / "empty.log").string());
    ASSERT_TRUE(empty) << empty.error();
    EXPECT_TRUE(empty->records.empty());

    std::ofstream(dir / "bin.log", std::ios::binary) << std::string(
        "\x00\x01\xff\xfe\n\x80"
        "abc",
        8);
    auto bin = logs::readLogFile((dir / "bin.log").string());
    if (bin) {
        for (const auto& r : bin->records) EXPECT_FALSE(r.message.empty());
    }

    // The first half of a gzip'd log: the lines before the cut are kept or an error says why.
    const std::string plain = (dir / "big.log").string();
    {
        std::ofstream out(plain);
        for (int i = 0; i < 2000; ++i)
            out << "[INFO] ME(1,a,python):2021-01-01-12:00:00.000.000 [a.cc:1] F] line " << i
                << "\n";
    }
    ASSERT_EQ(std::system(("gzip -kf " + plain).c_str()), 0);
    const fs::path gz = plain + ".gz";
    const auto size = fs::file_size(gz);
    fs::resize_file(gz, size / 2);
    auto cut = logs::readLogFile(gz.string());
    if (cut) {
        EXPECT_LT(cut->records.size(), 2000u);
    } else {
        EXPECT_FALSE(cut.error().empty());
    }
}
