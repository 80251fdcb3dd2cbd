// The log views offscreen: table model, level panel (changes reach the logger at once and a
// running engine, saved defaults come back), live view (in-process records, filters, time
// jump, files).
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>

#include "core/log/logger.h"
#include "core/log/memory_sinks.h"
#include "core/run/training_job.h"
#include "core/store/trace_store.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "views/common/session_context.h"
#include "views/logs/log_level_panel.h"
#include "views/logs/log_table_model.h"
#include "views/logs/log_view.h"
#include "views/logs/logs_view_info.h"

using ts::log::Level;
using ts::log::Logger;
using ts::log::SubModule;

namespace {

ts::log::LogRecord rec(Level level, std::string module, std::string msg, int64_t ts = 0) {
    ts::log::LogRecord r;
    r.level = level;
    r.module = std::move(module);
    r.message = std::move(msg);
    if (ts) r.tsNs = ts;
    return r;
}

std::string sample(const char* name) {
    return (std::filesystem::path(TRAINSCOPE_SOURCE_DIR) / "tests/data/logs" / name).string();
}

class LogsViewTest : public ::testing::Test {
protected:
    void SetUp() override {
        ts::test::ensureQtApp();
        Logger::instance().configure(ts::log::LogConfig{});
    }
    void TearDown() override { Logger::instance().configure(ts::log::LogConfig{}); }
};

}  // namespace

TEST_F(LogsViewTest, TableModelFiltersAndPassesModelTester) {
    LogTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append({rec(Level::Info, "ENGINE", "step 1", 1000),
                  rec(Level::Error, "OPS", "nan in\nMatMul", 2000),
                  rec(Level::Warning, "DATASET", "slow reader")});
    EXPECT_EQ(model.rowCount(), 3);
    EXPECT_EQ(model.data(model.index(1, LogTableModel::LevelCol)).toString(), "ERROR");
    EXPECT_EQ(model.data(model.index(1, LogTableModel::MessageCol)).toString(),
              QString("nan in  …"));
    EXPECT_EQ(model.data(model.index(0, 0), LogTableModel::TimeNsRole).toLongLong(), 1000);
    EXPECT_FALSE(model.data(model.index(2, 0), LogTableModel::TimeNsRole).isValid());
    EXPECT_TRUE(model.data(model.index(1, 0), Qt::ForegroundRole).isValid());

    ts::log::LogFilter f;
    f.minLevel = Level::Warning;
    EXPECT_TRUE(model.setFilter(f).isEmpty());
    EXPECT_EQ(model.rowCount(), 2);
    f.modules = {"ops"};
    model.setFilter(f);
    EXPECT_EQ(model.rowCount(), 1);
    ts::log::LogFilter re;
    re.text = "step \\d";
    re.regex = true;
    model.setFilter(re);
    EXPECT_EQ(model.rowCount(), 1);
    re.text = "[";
    EXPECT_FALSE(model.setFilter(re).isEmpty());
    EXPECT_EQ(model.rowCount(), 1);  // the old filter stays
    ts::log::LogFilter time;
    time.fromNs = 1500;
    model.setFilter(time);
    EXPECT_EQ(model.rowCount(), 1);
    model.setFilter({});
    model.append({rec(Level::Debug, "UI", "more")});
    EXPECT_EQ(model.rowCount(), 4);
    EXPECT_EQ(model.modules(), (QStringList{"DATASET", "ENGINE", "OPS", "UI"}));
}

TEST_F(LogsViewTest, LevelPanelChangesApplyAtOnceAndSaveAsDefault) {
    LogLevelPanel panel;
    ASSERT_EQ(panel.moduleRows(), ts::log::kSubModuleCount);
    panel.globalCombo()->setCurrentIndex(static_cast<int>(Level::Error));
    EXPECT_EQ(Logger::instance().globalLevel(), Level::Error);
    const int engineRow = static_cast<int>(SubModule::Engine);
    panel.moduleCombo(engineRow)->setCurrentIndex(1 + static_cast<int>(Level::Debug));
    EXPECT_EQ(Logger::instance().level(SubModule::Engine), Level::Debug);
    EXPECT_TRUE(ts::log::enabled(SubModule::Engine, Level::Debug));
    EXPECT_FALSE(ts::log::enabled(SubModule::Ops, Level::Warning));

    const auto ini = ts::test::tempDir("logsettings") / "levels.ini";
    {
        QSettings settings(QString::fromStdString(ini.string()), QSettings::IniFormat);
        panel.saveAsDefault(settings);
    }
    Logger::instance().configure(ts::log::LogConfig{});
    EXPECT_EQ(Logger::instance().level(SubModule::Engine), Level::Warning);
    {
        QSettings settings(QString::fromStdString(ini.string()), QSettings::IniFormat);
        applySavedLogLevels(settings, false);
    }
    EXPECT_EQ(Logger::instance().globalLevel(), Level::Error);
    EXPECT_EQ(Logger::instance().level(SubModule::Engine), Level::Debug);
    EXPECT_FALSE(Logger::instance().moduleOverride(SubModule::Ops));
    panel.refresh();
    EXPECT_EQ(panel.moduleCombo(engineRow)->currentIndex(), 1);
    EXPECT_EQ(panel.moduleCombo(static_cast<int>(SubModule::Ops))->currentIndex(), 0);
}

TEST_F(LogsViewTest, LiveRecordsFiltersAndTimeJump) {
    SessionContext ctx;
    LogView view(&ctx);
    TS_LOG(UI, ERROR) << "live record";
    TS_LOG(ENGINE, WARNING) << "engine warning";
    view.poll();
    ASSERT_EQ(view.model()->rowCount(), 2);
    EXPECT_EQ(view.model()->record(0).message, "live record");

    view.textEdit()->setText("engine");
    EXPECT_EQ(view.model()->rowCount(), 1);
    view.textEdit()->clear();
    view.levelCombo()->setCurrentIndex(static_cast<int>(Level::Error));
    EXPECT_EQ(view.model()->rowCount(), 1);
    view.levelCombo()->setCurrentIndex(0);
    view.regexCheck()->setChecked(true);
    view.textEdit()->setText("(");
    EXPECT_TRUE(view.statusLabel()->text().contains("invalid regular expression"));
    view.textEdit()->clear();
    EXPECT_EQ(view.model()->rowCount(), 2);
    const int ui = view.moduleCombo()->findText("UI");
    ASSERT_GT(ui, 0);
    view.moduleCombo()->setCurrentIndex(ui);
    EXPECT_EQ(view.model()->rowCount(), 1);
    view.moduleCombo()->setCurrentIndex(0);

    QSignalSpy spy(&ctx, &SessionContext::timeRangeRequested);
    const int64_t ts = *view.model()->record(0).tsNs;
    view.jumpToRow(0);
    ASSERT_EQ(spy.count(), 1);
    EXPECT_TRUE(view.detail()->toPlainText().contains("] live record"));
    EXPECT_LE(spy[0][0].toLongLong(), ts);
    EXPECT_GE(spy[0][1].toLongLong(), ts);
    // Our own jump does not narrow the time filter; a range from elsewhere does.
    view.timeCombo()->setCurrentIndex(1);
    EXPECT_EQ(view.model()->rowCount(), 2);
    ctx.requestTimeRange(0, 10);
    EXPECT_EQ(view.model()->rowCount(), 0);
}

TEST_F(LogsViewTest, TypedTimeRange) {
    SessionContext ctx;
    LogView view(&ctx);
    view.openFile(QString::fromStdString(sample("glog_cpp.log")));
    QTRY_COMPARE_WITH_TIMEOUT(view.model()->totalRecords(), 5, 10000);
    view.timeCombo()->setCurrentIndex(2);
    EXPECT_TRUE(view.fromEdit()->isVisibleTo(&view));
    view.fromEdit()->setText("2021-01-01-12:00:01");
    view.toEdit()->setText("2021-01-01-12:00:03");  // through 12:00:03.999
    view.applyFilter();
    EXPECT_EQ(view.model()->rowCount(), 3);
    view.toEdit()->setText("2021-01-01-12:00");  // the whole minute
    view.applyFilter();
    EXPECT_EQ(view.model()->rowCount(), 4);
    view.fromEdit()->setText("yesterday");
    view.applyFilter();
    EXPECT_TRUE(view.statusLabel()->text().contains("times look like"));
    view.timeCombo()->setCurrentIndex(0);
    EXPECT_EQ(view.model()->rowCount(), 5);
}

TEST_F(LogsViewTest, OpenFileWithoutSessionShowsIt) {
    SessionContext ctx;
    LogView view(&ctx);
    view.openFile(QString::fromStdString(sample("plog.log")));
    QTRY_COMPARE_WITH_TIMEOUT(view.model()->totalRecords(), 6, 10000);
    EXPECT_NE(view.moduleCombo()->findText("RUNTIME"), -1);
}

TEST_F(LogsViewTest, OpenFileImportsIntoSessionAndTailShowsIt) {
    const auto dir = ts::test::tempDir("logsview");
    const std::string session = (dir / "s.tscope").string();
    {
        auto s = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::Create);
        ASSERT_TRUE(s) << s.error();
    }
    SessionContext ctx;
    LogView view(&ctx);
    ctx.setSessionPath(QString::fromStdString(session));
    view.openFile(QString::fromStdString(sample("mindspore_python.log")));
    QTRY_COMPARE_WITH_TIMEOUT(view.model()->totalRecords(), 4, 10000);
    auto store = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store);
    EXPECT_EQ(store.value()->sources()->size(), 1u);
}

TEST_F(LogsViewTest, ViewInfoAcceptsLogFiles) {
    const ViewInfo info = logsViewInfo();
    EXPECT_EQ(info.name, "logs");
    EXPECT_TRUE(info.accepts(QString::fromStdString(sample("glog_cpp.log"))));
    EXPECT_TRUE(info.accepts(QString::fromStdString(sample("traceback.txt"))));
    EXPECT_FALSE(info.accepts(QString::fromStdString(sample("missing.log"))));
    EXPECT_FALSE(info.accepts(QStringLiteral(TRAINSCOPE_SOURCE_DIR "/CMakeLists.txt.json")));
    SessionContext ctx;
    std::unique_ptr<QWidget> w(info.create(&ctx, nullptr));
    EXPECT_NE(dynamic_cast<FileViewer*>(w.get()), nullptr);
}

// The level panel drives a running engine: ENGINE set to DEBUG in the panel while a
// training job runs on another thread makes the engine log its per-step DEBUG records from
// then on; "(global)" again stops them.
TEST_F(LogsViewTest, LevelPanelChangeReachesTheRunningEngine) {
    LogLevelPanel panel;
    auto queue = std::make_shared<ts::log::QueueSink>(1000000);
    Logger::instance().addSink(queue);
    ts::run::JobOptions o;
    o.train.model = "mlp";
    o.train.dataset = "synthetic";
    o.train.syntheticSamples = 512;
    o.train.batchSize = 16;
    o.train.epochs = 1000;
    o.train.evalAtEnd = false;
    o.sessionPath = (ts::test::tempDir("panel_midrun") / "s.tscope").string();
    o.rdrUseEnvironment = false;
    ts::run::TrainingJob job(o);
    ASSERT_TRUE(job.prepare());
    std::thread worker([&] { job.run(); });
    auto waitStep = [&](int64_t s) {
        while (job.trainer().progress().step < s)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    };
    waitStep(3);
    const int engineRow = static_cast<int>(SubModule::Engine);
    const int64_t before = job.trainer().progress().step;
    panel.moduleCombo(engineRow)->setCurrentIndex(1 + static_cast<int>(Level::Debug));
    waitStep(before + 5);
    panel.moduleCombo(engineRow)->setCurrentIndex(0);  // follow the global level (WARNING)
    const int64_t after = job.trainer().progress().step;
    waitStep(after + 5);
    job.trainer().requestStop("test done");
    worker.join();
    Logger::instance().removeSink(queue.get());

    const std::regex re(R"(^epoch \d+ step (\d+) loss )");
    int debugSteps = 0;
    for (const auto& r : queue->drain()) {
        std::smatch m;
        if (r.module != "ENGINE" || r.level != Level::Debug || !std::regex_search(r.message, m, re))
            continue;
        const int64_t step = std::stoll(m[1]);
        EXPECT_GT(step, before);
        EXPECT_LE(step, after + 1);
        ++debugSteps;
    }
    EXPECT_GE(debugSteps, 4);
}
