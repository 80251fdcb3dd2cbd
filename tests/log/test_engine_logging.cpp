// The engine logs through the logger: a sub-module's level changed from another thread in
// the middle of a run changes what the running engine logs from then on; a run's records go
// to its session (run id set); the sub-modules the engine, dataset, optimizer and store use
// each log under their own name.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <set>
#include <thread>

#include "core/log/logger.h"
#include "core/log/memory_sinks.h"
#include "core/log_store/log_store.h"
#include "core/run/training_job.h"
#include "tests/common/test_support.h"

using namespace ts;
using namespace ts::log;

namespace {

class EngineLogging : public ::testing::Test {
protected:
    void SetUp() override {
        Logger::instance().configure(LogConfig{});
        m_queue = std::make_shared<QueueSink>(1000000);
        Logger::instance().addSink(m_queue);
    }
    void TearDown() override {
        Logger::instance().removeSink(m_queue.get());
        Logger::instance().configure(LogConfig{});
    }
    static run::JobOptions job(const std::string& tag) {
        run::JobOptions o;
        o.train.model = "mlp";
        o.train.dataset = "synthetic";
        o.train.syntheticSamples = 512;
        o.train.batchSize = 16;
        o.train.epochs = 1000;
        o.train.evalAtEnd = false;
        o.sessionPath = (ts::test::tempDir(tag) / "s.tscope").string();
        o.rdrUseEnvironment = false;
        return o;
    }
    // Steps named by the engine's per-step DEBUG records ("epoch E step S loss L lr X").
    std::vector<int64_t> debugSteps(const std::vector<LogRecord>& records) {
        static const std::regex re(R"(^epoch \d+ step (\d+) loss )");
        std::vector<int64_t> steps;
        for (const auto& r : records) {
            std::smatch m;
            if (r.module == "ENGINE" && r.level == Level::Debug &&
                std::regex_search(r.message, m, re))
                steps.push_back(std::stoll(m[1]));
        }
        return steps;
    }
    static void waitForStep(run::TrainingJob& j, int64_t step) {
        while (j.trainer().progress().step < step)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::shared_ptr<QueueSink> m_queue;
};

}  // namespace

TEST_F(EngineLogging, SubModuleLevelChangedMidRunChangesWhatTheEngineLogs) {
    run::TrainingJob j(job("englog_midrun"));
    ASSERT_TRUE(j.prepare());
    engine::TrainResult result;
    std::thread worker([&] { result = j.run(); });

    waitForStep(j, 3);
    const int64_t before = j.trainer().progress().step;  // steps <= before ended at WARNING
    Logger::instance().setModuleLevel(SubModule::Engine, Level::Debug);
    waitForStep(j, before + 5);
    Logger::instance().setModuleLevel(SubModule::Engine, std::nullopt);  // back to WARNING
    const int64_t after = j.trainer().progress().step;
    waitForStep(j, after + 5);
    j.trainer().requestStop("test done");
    worker.join();
    ASSERT_EQ(result.status, "stopped") << result.reason;

    const std::vector<int64_t> steps = debugSteps(m_queue->drain());
    ASSERT_FALSE(steps.empty());
    for (int64_t s : steps) {
        EXPECT_GT(s, before) << "logged at DEBUG before the level changed";
        EXPECT_LE(s, after + 1) << "still logging at DEBUG after the level went back";
    }
    EXPECT_GE(steps.size(), 4u);  // every step between the two changes logged
}

TEST_F(EngineLogging, RunRecordsReachTheSessionWithTheRunId) {
    Logger::instance().setGlobalLevel(Level::Info);
    run::JobOptions o = job("englog_store");
    o.train.epochs = 1;
    o.train.limitSteps = 5;
    run::TrainingJob j(o);
    const auto r = j.run();
    ASSERT_EQ(r.status, "completed") << r.reason;

    auto store = store::TraceStore::open(o.sessionPath, store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store) << store.error();
    LogQuery q;
    q.runId = j.runId();
    auto rows = queryLogs(*store.value(), q);
    ASSERT_TRUE(rows) << rows.error();
    std::set<std::string> modules;
    bool started = false, completed = false;
    for (const auto& row : rows.value()) {
        modules.insert(row.record.module);
        started = started || row.record.message.rfind("start training mlp", 0) == 0;
        completed = completed || row.record.message.rfind("training completed", 0) == 0;
        EXPECT_EQ(row.runId, j.runId());
    }
    EXPECT_TRUE(started);
    EXPECT_TRUE(completed);
    EXPECT_TRUE(modules.count("ENGINE"));
    EXPECT_TRUE(modules.count("OPTIMIZER"));  // the optimizer logs when it is built
}

TEST_F(EngineLogging, NanStopIsAnErrorRecordOfTheEngine) {
    run::JobOptions o = job("englog_nan");
    o.train.epochs = 1;
    o.train.lr = 1e12;
    run::TrainingJob j(o);
    const auto r = j.run();
    ASSERT_EQ(r.status, "failed");
    bool nanError = false;
    for (const auto& rec : m_queue->drain())
        nanError = nanError || (rec.module == "ENGINE" && rec.level == Level::Error &&
                                (rec.message.find("NaN") != std::string::npos ||
                                 rec.message.find("Inf") != std::string::npos));
    EXPECT_TRUE(nanError);  // logged at ERROR: shown at the default level WARNING
}
