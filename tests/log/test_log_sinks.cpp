// Sinks: glog files (names, levels, rotation), the RDR ring buffer, the UI queue, the store.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "core/log/memory_sinks.h"
#include "core/log/output_sinks.h"
#include "core/log_store/log_store.h"
#include "core/log_store/store_sink.h"
#include "tests/common/test_support.h"

using namespace ts::log;
namespace fs = std::filesystem;

namespace {

LogRecord rec(Level level, std::string msg, std::string module = "ENGINE") {
    LogRecord r;
    r.level = level;
    r.module = std::move(module);
    r.message = std::move(msg);
    r.tsNs = 1000;
    r.pid = 7;
    r.tid = 8;
    return r;
}

std::string readAll(const fs::path& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<fs::path> filesIn(const fs::path& dir) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST(GlogFileSink, OneFilePerLevelEachHoldingHigherLevels) {
    const fs::path dir = ts::test::tempDir("glogfiles") / "rank_0" / "logs";
    auto sink = GlogFileSink::create(dir.string(), "trainscope", Level::Info, 1 << 20);
    ASSERT_TRUE(sink) << sink.error();
    for (auto [level, msg] : std::vector<std::pair<Level, std::string>>{
             {Level::Info, "i"}, {Level::Warning, "w"}, {Level::Error, "e"}}) {
        const LogRecord r = rec(level, msg);
        sink.value()->write(r, formatRecord(r));
    }
    sink.value()->flush();
    const auto files = filesIn(dir);
    ASSERT_EQ(files.size(), 3u);
    const std::regex name(
        R"(trainscope\.[^.]+\.[^.]+\.log\.(INFO|WARNING|ERROR)\.\d{8}-\d{6}\.\d+)");
    for (const auto& f : files) EXPECT_TRUE(std::regex_match(f.filename().string(), name)) << f;
    for (const auto& f : files) {
        const std::string text = readAll(f);
        EXPECT_EQ(text.rfind("Log file created at: ", 0), 0u);
        const std::string level = f.filename().string().find(".INFO.") != std::string::npos ? "INFO"
                                  : f.filename().string().find(".WARNING.") != std::string::npos
                                      ? "WARNING"
                                      : "ERROR";
        const bool hasI = text.find("] i") != std::string::npos;
        const bool hasW = text.find("] w") != std::string::npos;
        const bool hasE = text.find("] e") != std::string::npos;
        EXPECT_EQ(hasI, level == "INFO") << level;
        EXPECT_EQ(hasW, level != "ERROR") << level;
        EXPECT_TRUE(hasE) << level;
    }
}

TEST(GlogFileSink, StartsANewFileAtMaxSize) {
    const fs::path dir = ts::test::tempDir("glogrotate");
    auto sink = GlogFileSink::create(dir.string(), "trainscope", Level::Warning, 4096);
    ASSERT_TRUE(sink);
    const LogRecord r = rec(Level::Warning, std::string(200, 'x'));
    const std::string line = formatRecord(r);
    for (int i = 0; i < 100; ++i) sink.value()->write(r, line);  // ~25 KB
    sink.value()->flush();
    const auto files = filesIn(dir);
    EXPECT_GE(files.size(), 5u);
    EXPECT_EQ(files.size(), sink.value()->files().size());
    int64_t lines = 0;
    for (const auto& f : files) {
        EXPECT_LT(fs::file_size(f), 4096u + line.size() + 1);
        const std::string t = readAll(f);
        lines += std::count(t.begin(), t.end(), 'x') / 200;
    }
    EXPECT_EQ(lines, 100);
}

TEST(GlogFileSink, LoggerWritesFilesUnderRankDirFromEnv) {
    const fs::path root = ts::test::tempDir("glogenv");
    const auto parsed = parseLogEnv({{"GLOG_logtostderr", "0"},
                                     {"GLOG_log_dir", root.string()},
                                     {"RANK_ID", "3"},
                                     {"GLOG_stderrthreshold", "4"},
                                     {"GLOG_v", "1"}});
    ASSERT_TRUE(parsed.warnings.empty());
    Logger::instance().setProgramName("tsunit");
    ASSERT_TRUE(Logger::instance().configure(parsed.config).empty());
    TS_LOG(CHECKPOINT, INFO) << "saved checkpoint";
    Logger::instance().flush();
    Logger::instance().configure(LogConfig{});  // closes the files
    const fs::path dir = root / "rank_3" / "logs";
    ASSERT_TRUE(fs::is_directory(dir));
    const auto files = filesIn(dir);
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].filename().string().rfind("tsunit.", 0), 0u);
    EXPECT_NE(files[0].filename().string().find(".log.INFO."), std::string::npos);
    EXPECT_NE(readAll(files[0]).find("CHECKPOINT("), std::string::npos);
}

TEST(GlogFileSink, UnwritableDirFallsBackToStderrWithError) {
    LogConfig c;
    c.toStderr = false;
    c.logDir = "/proc/no_such_dir_for_logs";
    const auto errors = Logger::instance().configure(c);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("GLOG_log_dir"), std::string::npos);
    Logger::instance().configure(LogConfig{});
}

TEST(RingBufferSink, KeepsTheLastNAndDumpsToFd) {
    RingBufferSink ring(3);
    for (int i = 0; i < 5; ++i) {
        const LogRecord r = rec(Level::Error, "m" + std::to_string(i));
        ring.write(r, formatRecord(r));
    }
    const auto snap = ring.snapshot();
    ASSERT_EQ(snap.size(), 3u);
    EXPECT_EQ(snap[0].message, "m2");
    EXPECT_EQ(snap[2].message, "m4");
    EXPECT_EQ(ring.total(), 5u);
    const auto lines = ring.lines();
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_NE(lines[0].find("] m2"), std::string::npos);

    const fs::path out = ts::test::tempDir("ringdump") / "last.log";
    const int fd = ::open(out.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ring.dumpToFd(fd);
    ::close(fd);
    EXPECT_EQ(readAll(out), lines[0] + "\n" + lines[1] + "\n" + lines[2] + "\n");
}

TEST(QueueSink, DrainsAndDropsOldestWhenFull) {
    QueueSink q(2);
    for (int i = 0; i < 3; ++i) q.write(rec(Level::Info, std::to_string(i)), "");
    const auto got = q.drain();
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].message, "1");
    EXPECT_EQ(q.dropped(), 1u);
    EXPECT_TRUE(q.drain().empty());
}

TEST(LogStore, InsertAndQueryWithFilters) {
    const fs::path path = ts::test::tempDir("logstore") / "s.tscope";
    auto store = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.error();
    std::vector<LogRecord> recs = {rec(Level::Info, "alpha"), rec(Level::Error, "beta", "OPS"),
                                   rec(Level::Warning, "gamma 42", "DATASET")};
    recs[1].tsNs = 5000;
    recs[2].tsNs.reset();
    ASSERT_TRUE(insertLogs(*store.value(), recs, std::nullopt, int64_t{1}));

    LogQuery all;
    auto rows = queryLogs(*store.value(), all);
    ASSERT_TRUE(rows);
    ASSERT_EQ(rows->size(), 3u);
    EXPECT_EQ(rows.value()[0].runId, 1);
    EXPECT_FALSE(rows.value()[0].sourceId);
    EXPECT_FALSE(rows.value()[2].record.tsNs);

    LogQuery q;
    q.filter.minLevel = Level::Warning;
    EXPECT_EQ(queryLogs(*store.value(), q)->size(), 2u);
    q.filter.modules = {"ops"};
    EXPECT_EQ(queryLogs(*store.value(), q)->size(), 1u);
    LogQuery text;
    text.filter.text = "GAMMA";
    EXPECT_EQ(queryLogs(*store.value(), text)->size(), 1u);
    text.filter.text = R"(gamma \d+)";
    text.filter.regex = true;
    EXPECT_EQ(queryLogs(*store.value(), text)->size(), 1u);
    text.filter.text = "(";
    EXPECT_FALSE(queryLogs(*store.value(), text));
    LogQuery range;
    range.filter.fromNs = 2000;
    EXPECT_EQ(queryLogs(*store.value(), range)->size(), 1u);
    LogQuery tail;
    tail.afterId = rows.value()[1].id;
    EXPECT_EQ(queryLogs(*store.value(), tail)->size(), 1u);
    auto modules = logModules(*store.value());
    ASSERT_TRUE(modules);
    EXPECT_EQ(modules.value(), (std::vector<std::string>{"DATASET", "ENGINE", "OPS"}));
}

TEST(StoreSink, LoggedRecordsReachTheSession) {
    const fs::path path = ts::test::tempDir("storesink") / "s.tscope";
    {
        auto created =
            ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::Create);
        ASSERT_TRUE(created);
    }
    auto sink = StoreSink::open(path.string(), int64_t{4}, 20);
    ASSERT_TRUE(sink) << sink.error();
    Logger::instance().configure(LogConfig{});
    Logger::instance().addSink(sink.value());
    TS_LOG(OPTIMIZER, WARNING) << "lr too high";
    TS_LOG(OPTIMIZER, INFO) << "not logged at WARNING";
    Logger::instance().removeSink(sink.value().get());
    sink.value()->flush();
    EXPECT_EQ(sink.value()->written(), 1u);
    EXPECT_EQ(sink.value()->lastError(), "");

    auto store = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store);
    auto rows = queryLogs(*store.value(), LogQuery{});
    ASSERT_TRUE(rows);
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ(rows.value()[0].runId, 4);
    EXPECT_EQ(rows.value()[0].record.module, "OPTIMIZER");
    EXPECT_EQ(rows.value()[0].record.message, "lr too high");
    EXPECT_EQ(rows.value()[0].record.level, Level::Warning);
    EXPECT_GT(rows.value()[0].record.line, 0);
}

TEST(StoreSink, MissingSessionIsAnError) {
    EXPECT_FALSE(StoreSink::open("/nonexistent/dir/x.tscope", std::nullopt));
}
