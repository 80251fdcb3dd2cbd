// The logger: levels per sub-module, runtime changes seen by a running thread, zero-cost
// disabled calls, the record format and the brace formatter.
#include <gtest/gtest.h>

#include <atomic>
#include <regex>
#include <thread>

#include "core/log/logger.h"
#include "core/log/memory_sinks.h"

using namespace ts::log;

namespace {

int g_formatted = 0;
struct Counted {};
std::ostream& operator<<(std::ostream& o, const Counted&) {
    ++g_formatted;
    return o << "counted";
}
int sideEffect(int& n) {
    return ++n;
}

// Restores the global logger to defaults and collects records in a queue.
class LoggerTest : public ::testing::Test {
protected:
    void SetUp() override {
        Logger::instance().configure(LogConfig{});
        m_queue = std::make_shared<QueueSink>();
        Logger::instance().addSink(m_queue);
    }
    void TearDown() override {
        Logger::instance().removeSink(m_queue.get());
        Logger::instance().configure(LogConfig{});
    }
    std::vector<std::string> messages() {
        std::vector<std::string> out;
        for (auto& r : m_queue->drain()) out.push_back(r.message);
        return out;
    }
    std::shared_ptr<QueueSink> m_queue;
};

}  // namespace

TEST_F(LoggerTest, DefaultLevelIsWarning) {
    TS_LOG(ENGINE, INFO) << "hidden";
    TS_LOG(ENGINE, WARNING) << "shown " << 1;
    TS_LOG(OPS, ERROR) << "error";
    EXPECT_EQ(messages(), (std::vector<std::string>{"shown 1", "error"}));
}

TEST_F(LoggerTest, DisabledLevelCostsNoFormatting) {
    g_formatted = 0;
    int calls = 0;
    TS_LOG(ENGINE, DEBUG) << Counted{} << sideEffect(calls);
    TS_LOG_INFO(DATASET, "{} {}", Counted{}, sideEffect(calls));
    EXPECT_EQ(g_formatted, 0);
    EXPECT_EQ(calls, 0);
    TS_LOG(ENGINE, ERROR) << Counted{} << sideEffect(calls);
    EXPECT_EQ(g_formatted, 1);
    EXPECT_EQ(calls, 1);
    EXPECT_FALSE(enabled(SubModule::Engine, Level::Info));
    EXPECT_TRUE(enabled(SubModule::Engine, Level::Warning));
}

TEST_F(LoggerTest, ModuleOverridesAndGlobalLevel) {
    Logger& log = Logger::instance();
    log.setModuleLevel(SubModule::Dataset, Level::Debug);
    log.setGlobalLevel(Level::Error);
    EXPECT_EQ(log.level(SubModule::Dataset), Level::Debug);
    EXPECT_EQ(log.level(SubModule::Engine), Level::Error);
    TS_LOG(DATASET, DEBUG) << "d";
    TS_LOG(ENGINE, WARNING) << "e-hidden";
    log.setModuleLevel(SubModule::Dataset, std::nullopt);
    EXPECT_EQ(log.level(SubModule::Dataset), Level::Error);
    EXPECT_FALSE(log.moduleOverride(SubModule::Dataset));
    TS_LOG(DATASET, WARNING) << "d-hidden";
    EXPECT_EQ(messages(), (std::vector<std::string>{"d"}));
}

TEST_F(LoggerTest, ConfigureAppliesEnvLevels) {
    const auto parsed = parseLogEnv({{"GLOG_v", "3"}, {"MS_SUBMODULE_LOG_v", "{ENGINE:1}"}});
    ASSERT_TRUE(parsed.warnings.empty());
    EXPECT_TRUE(Logger::instance().configure(parsed.config).empty());
    EXPECT_EQ(Logger::instance().level(SubModule::Engine), Level::Info);
    EXPECT_EQ(Logger::instance().level(SubModule::Ops), Level::Error);
    TS_LOG(ENGINE, INFO) << "engine info";
    TS_LOG(OPS, WARNING) << "ops warning hidden";
    EXPECT_EQ(messages(), (std::vector<std::string>{"engine info"}));
}

// A "running engine" thread logs each step at INFO; the main thread lowers the ENGINE
// level to INFO mid-run. The logged steps must be exactly every step from some S > 0 on:
// nothing before the change, everything after it.
TEST_F(LoggerTest, LevelChangeMidRunIsSeenByRunningThread) {
    std::atomic<int> step{0};
    std::atomic<bool> changed{false};
    std::thread engine([&] {
        int afterSteps = 0;
        for (int s = 1;; ++s) {
            const bool seen = changed.load();
            TS_LOG(ENGINE, INFO) << s;
            step.store(s);
            if (seen && ++afterSteps >= 5) break;
            std::this_thread::yield();
        }
    });
    while (step.load() < 20) std::this_thread::yield();
    Logger::instance().setModuleLevel(SubModule::Engine, Level::Info);
    changed = true;
    engine.join();
    const auto msgs = messages();
    ASSERT_GE(msgs.size(), 5u);
    const int first = std::stoi(msgs.front());
    EXPECT_GT(first, 20);
    for (size_t i = 0; i < msgs.size(); ++i) EXPECT_EQ(msgs[i], std::to_string(first + int(i)));
    EXPECT_EQ(msgs.back(), std::to_string(step.load()));
    // And back up again: INFO disappears at once.
    Logger::instance().setModuleLevel(SubModule::Engine, Level::Error);
    TS_LOG(ENGINE, INFO) << "gone";
    EXPECT_TRUE(messages().empty());
}

TEST_F(LoggerTest, RecordFieldsAndLineFormat) {
    TS_LOG(STORE, ERROR) << "disk full";
    auto records = m_queue->drain();
    ASSERT_EQ(records.size(), 1u);
    const LogRecord& r = records[0];
    EXPECT_EQ(r.module, "STORE");
    EXPECT_EQ(r.level, Level::Error);
    EXPECT_EQ(r.file, "tests/log/test_logger.cpp");
    EXPECT_GT(r.line, 0);
    EXPECT_EQ(r.function, "TestBody");
    EXPECT_GT(r.pid, 0);
    EXPECT_GT(r.tid, 0);
    ASSERT_TRUE(r.tsNs);
    const std::string line = formatRecord(r);
    const std::regex re(
        R"(^\[ERROR\] STORE\(\d+,[0-9a-f]+,[^)]+\):\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3} )"
        R"(\[tests/log/test_logger\.cpp:\d+\] TestBody\] disk full$)");
    EXPECT_TRUE(std::regex_match(line, re)) << line;
}

TEST_F(LoggerTest, FormatStyleMacros) {
    Logger::instance().setGlobalLevel(Level::Debug);
    TS_LOG_DEBUG(ENGINE, "step {} loss {}", 3, 0.5);
    TS_LOG_CRITICAL(UI, "plain");
    EXPECT_EQ(messages(), (std::vector<std::string>{"step 3 loss 0.5", "plain"}));
}

TEST(FormatBraces, Placeholders) {
    EXPECT_EQ(formatBraces("a {} b {}", 1, "x"), "a 1 b x");
    EXPECT_EQ(formatBraces("{{}} {}", 2), "{} 2");
    EXPECT_EQ(formatBraces("missing {} {}", 1), "missing 1 {}");
    EXPECT_EQ(formatBraces("extra", 1, 2), "extra");
    EXPECT_EQ(formatBraces("no args"), "no args");
}

namespace {
// A sink that logs from inside write(): the nested record must be dropped, not deadlock.
struct ReentrantSink : LogSink {
    int writes = 0;
    void write(const LogRecord&, std::string_view) override {
        ++writes;
        TS_LOG(DEBUG, CRITICAL) << "nested";
    }
};
}  // namespace

TEST_F(LoggerTest, SinkThatLogsDoesNotDeadlock) {
    auto sink = std::make_shared<ReentrantSink>();
    Logger::instance().addSink(sink);
    TS_LOG(ENGINE, ERROR) << "outer";
    Logger::instance().removeSink(sink.get());
    EXPECT_EQ(sink->writes, 1);
    EXPECT_EQ(messages(), (std::vector<std::string>{"outer"}));
}

namespace {
// A sink whose flush waits for another thread that logs (as StoreSink's writer could).
struct WaitingFlushSink : LogSink {
    void write(const LogRecord&, std::string_view) override {}
    void flush() override {
        std::thread other([] { TS_LOG(STORE, ERROR) << "logged while flushing"; });
        other.join();
    }
};
}  // namespace

TEST_F(LoggerTest, FlushDoesNotHoldTheLoggerLock) {
    auto sink = std::make_shared<WaitingFlushSink>();
    Logger::instance().addSink(sink);
    Logger::instance().flush();
    Logger::instance().removeSink(sink.get());
    EXPECT_EQ(messages(), (std::vector<std::string>{"logged while flushing"}));
}
