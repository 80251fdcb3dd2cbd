// The Training panel offscreen: its form round-trips JobOptions and names bad fields, a run
// started from it trains on its QThread while the event loop stays responsive and the curves
// update live, Pause/Stop act between steps, the run and its results are in the session and
// a fresh panel on the same session shows them again.
#include <gtest/gtest.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <algorithm>

#include "core/engine/device/device.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "views/common/session_context.h"
#include "views/curves/curves_chart.h"
#include "views/curves/curves_loader.h"
#include "views/curves/curves_view.h"
#include "views/training/training_form.h"
#include "views/training/training_progress_widget.h"
#include "views/training/training_results_widget.h"
#include "views/training/training_run_controller.h"
#include "views/training/training_runs_model.h"
#include "views/training/training_sections.h"
#include "views/training/training_view.h"
#include "views/training/training_view_info.h"

namespace {

/// Small, quick settings on the synthetic dataset.
ts::run::JobOptions quick(int64_t limitSteps, const std::string& model = "mlp") {
    ts::run::JobOptions o = TrainingView::defaultOptions();
    o.train.model = model;
    o.train.dataset = "synthetic";
    o.train.syntheticSamples = 512;
    o.train.batchSize = 32;
    o.train.epochs = 1000;
    o.train.limitSteps = limitSteps;
    o.train.lr = 0.01;
    o.train.evalLimit = 64;
    return o;
}

bool waitFinished(TrainingView& v, int ms = 60000) {
    QSignalSpy spy(&v, &TrainingView::runFinished);
    return spy.wait(ms) || spy.count() > 0;
}

}  // namespace

TEST(TrainingView, RegisteredAsAView) {
    ts::test::ensureQtApp();
    const ViewInfo info = trainingViewInfo();
    EXPECT_EQ(info.name, "training");
    SessionContext ctx;
    std::unique_ptr<QWidget> w(info.create(&ctx, nullptr));
    EXPECT_NE(qobject_cast<TrainingView*>(w.get()), nullptr);
}

TEST(TrainingView, FormRoundTripsEverySetting) {
    ts::test::ensureQtApp();
    TrainingForm form;
    ts::run::JobOptions o = TrainingView::defaultOptions();
    auto& c = o.train;
    c.model = "lenet5";
    c.dataset = "csv";
    c.csvPath = "/data/train.csv";
    c.csvTestPath = "/data/test.csv";
    c.csvLabel = "y";
    c.epochs = 7;
    c.batchSize = 128;
    c.dropRemainder = false;
    c.seed = 42;
    c.numShards = 4;
    c.shardId = 3;
    c.evalEachEpoch = true;
    c.evalLimit = 1000;
    c.limitSteps = 5000;
    c.resumeFrom = "/ck/a.ckpt";
    c.optimizer = "sgd";
    c.lr = 0.003;
    c.momentum = 0.8;
    c.nesterov = true;
    c.weightDecay = 0.0005;
    c.lrSchedule = "step";
    c.lrStepEpochs = 3;
    c.lrGamma = 0.5;
    c.clipNorm = 5;
    c.amp = "O2";
    c.lossScale = "dynamic:1024";
    c.memReuse = false;
    c.threads = 2;
    o.checkpointDir = "/ck";
    o.saveSteps = 100;
    o.saveEpochs = 2;
    o.keepCheckpoints = 3;
    o.saveOnStop = false;
    o.saveBestMetric = "f1";
    o.earlyStop = true;
    o.earlyStopMonitor = "accuracy";
    o.earlyStopPatience = 4;
    o.earlyStopMinDelta = 0.01;
    o.earlyStopLossThreshold = 0.05;
    o.stopAfterSeconds = 90;
    o.tensorboardDir = "/tb";
    form.setOptions(o);
    ts::run::JobOptions back;
    QString error;
    ASSERT_TRUE(form.options(&back, &error)) << error.toStdString();
    EXPECT_EQ(back.train.toJson(), c.toJson());
    EXPECT_EQ(back.checkpointDir, o.checkpointDir);
    EXPECT_EQ(back.saveSteps, 100);
    EXPECT_EQ(back.saveEpochs, 2);
    EXPECT_EQ(back.keepCheckpoints, 3);
    EXPECT_FALSE(back.saveOnStop);
    EXPECT_EQ(back.saveBestMetric, "f1");
    EXPECT_TRUE(back.earlyStop);
    EXPECT_EQ(back.earlyStopMonitor, "accuracy");
    EXPECT_EQ(back.earlyStopPatience, 4);
    EXPECT_DOUBLE_EQ(back.earlyStopMinDelta, 0.01);
    EXPECT_DOUBLE_EQ(back.earlyStopLossThreshold, 0.05);
    EXPECT_DOUBLE_EQ(back.stopAfterSeconds, 90);
    EXPECT_EQ(back.tensorboardDir, "/tb");
    EXPECT_EQ(form.sectionCount(), 4 + static_cast<int>(instrumentationSections().size()));
}

TEST(TrainingView, FormNamesTheFieldThatIsWrong) {
    ts::test::ensureQtApp();
    TrainingForm form;
    ts::run::JobOptions o = TrainingView::defaultOptions();
    o.train.dataset = "csv";
    form.setOptions(o);
    ts::run::JobOptions out;
    QString error;
    EXPECT_FALSE(form.options(&out, &error));
    EXPECT_TRUE(error.startsWith("Training CSV")) << error.toStdString();

    o = TrainingView::defaultOptions();
    o.saveBestMetric = "accuracy";  // no checkpoint folder
    form.setOptions(o);
    EXPECT_FALSE(form.options(&out, &error));
    EXPECT_TRUE(error.startsWith("Save best by")) << error.toStdString();

    o = TrainingView::defaultOptions();
    o.train.numShards = 2;
    o.train.shardId = 1;
    form.setOptions(o);
    EXPECT_TRUE(form.options(&out, &error)) << error.toStdString();
}

TEST(TrainingView, DeviceBoxRoundTripsAndSaysWhyThereIsNoCuda) {
    ts::test::ensureQtApp();
    TrainingForm form;
    ts::run::JobOptions o = TrainingView::defaultOptions();
    o.train.device = "cuda";
    form.setOptions(o);
    ts::run::JobOptions out;
    QString error;
    if (auto b = ts::engine::cudaBackend(); !b) {  // this machine: the reason, named by field
        EXPECT_FALSE(form.options(&out, &error));
        EXPECT_TRUE(error.startsWith("Device: no CUDA device: ")) << error.toStdString();
    }
    auto emulated = ts::engine::makeEmulatedBackend();
    ts::engine::setCudaBackendForTesting(emulated.get());
    EXPECT_TRUE(form.options(&out, &error)) << error.toStdString();
    EXPECT_EQ(out.train.device, "cuda");
    o.processes = 2;
    form.setOptions(o);
    EXPECT_FALSE(form.options(&out, &error));
    EXPECT_TRUE(error.startsWith("Device: data-parallel")) << error.toStdString();
    ts::engine::setCudaBackendForTesting(nullptr);
}

TEST(TrainingView, RunTrainsRecordsAndShowsResults) {
    ts::test::ensureQtApp();
    const auto dir = ts::test::tempDir("training_view_run");
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString((dir / "s.tscope").string()));
    TrainingView view(&ctx);
    view.form()->setOptions(quick(40));
    QSignalSpy started(view.controller(), &TrainingRunController::started);
    ASSERT_TRUE(view.startTraining()) << view.message().toStdString();
    EXPECT_FALSE(view.startButton()->isEnabled());
    EXPECT_FALSE(view.startTraining());  // one run at a time
    ASSERT_TRUE(waitFinished(view)) << view.message().toStdString();
    ASSERT_EQ(started.count(), 1);
    EXPECT_TRUE(view.startButton()->isEnabled());
    EXPECT_FALSE(view.stopButton()->isEnabled());
    EXPECT_TRUE(view.progress()->stepText().contains("step 40/40"))
        << view.progress()->stepText().toStdString();

    // History and results arrive from the session.
    (void)QTest::qWaitFor(
        [&] { return view.runs()->rowCount() == 1 && view.runs()->at(0).hasSummary; }, 10000);
    ASSERT_EQ(view.runs()->rowCount(), 1);
    const auto& run = view.runs()->at(0);
    EXPECT_EQ(run.status, ts::store::RunStatus::Completed);
    EXPECT_EQ(run.steps, 40);
    EXPECT_EQ(run.config.model, "mlp");
    EXPECT_TRUE(view.results()->headline().contains("completed"));
    EXPECT_EQ(view.results()->confusionTable()->rowCount(), 10);
    EXPECT_EQ(view.results()->perClassTable()->rowCount(), 10);
    // The end state was saved (the default "save the end state").
    ASSERT_EQ(run.checkpoints.size(), 1u);
    EXPECT_EQ(view.results()->checkpointList()->count(), 1);

    // The embedded curves list the run and drew its loss.
    // The chart may have drawn the run while it was live: wait for the last reload's points.
    (void)QTest::qWaitFor(
        [&] {
            QCPGraph* g = view.curves()->chart()->rawGraph(run.id, "train/loss");
            return g != nullptr && g->dataCount() == 40;
        },
        10000);
    QCPGraph* loss = view.curves()->chart()->rawGraph(run.id, "train/loss");
    ASSERT_NE(loss, nullptr);
    EXPECT_EQ(loss->dataCount(), 40);

    // A fresh panel on the same session shows the run, and can load its settings.
    TrainingView again(&ctx);
    QSignalSpy reloaded(&again, &TrainingView::runsReloaded);
    ASSERT_TRUE(reloaded.wait(10000) || again.runs()->rowCount() == 1);
    ASSERT_EQ(again.runs()->rowCount(), 1);
    EXPECT_TRUE(again.loadRunSettings(run.id));
    ts::run::JobOptions loaded;
    QString error;
    ASSERT_TRUE(again.form()->options(&loaded, &error));
    EXPECT_EQ(loaded.train.limitSteps, 40);
    EXPECT_EQ(loaded.train.dataset, "synthetic");
}

TEST(TrainingView, EventLoopStaysResponsiveAndCurvesUpdateLive) {
    ts::test::ensureQtApp();
    const auto dir = ts::test::tempDir("training_view_latency");
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString((dir / "s.tscope").string()));
    TrainingView view(&ctx);
    view.show();
    view.form()->setOptions(quick(0, "lenet5"));
    QSignalSpy started(view.controller(), &TrainingRunController::started);
    ASSERT_TRUE(view.startTraining());
    ASSERT_TRUE(started.wait(30000)) << view.message().toStdString();
    QSignalSpy updates(view.curves()->loader(), &CurvesLoader::scalarsRead);
    // Timer ticks every 10 ms; how late each one fires is the event loop's latency.
    std::vector<qint64> lateMs;
    QElapsedTimer clock;
    clock.start();
    qint64 expected = 10;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        lateMs.push_back(std::max<qint64>(0, clock.elapsed() - expected));
        expected = clock.elapsed() + 10;
    });
    tick.start(10);
    constexpr int kWindowMs = 3000;
    QTest::qWait(kWindowMs);
    tick.stop();
    const bool wasRunning = view.controller()->running();
    view.stopTraining();
    ASSERT_TRUE(waitFinished(view));
    ASSERT_TRUE(wasRunning) << "the run ended before the measurement did";
    // The event loop ran the timer while the run trained, and the curves took new points;
    // how late the ticks were is printed, not asserted: it is the machine's load as much as
    // ours (issue 25, case 19; the latency figure belongs to bench/gui_command_run).
    ASSERT_FALSE(lateMs.empty());
    std::sort(lateMs.begin(), lateMs.end());
    const qint64 p95 = lateMs[lateMs.size() * 95 / 100];
    std::printf(
        "event-loop latency while training: median %lld ms, p95 %lld ms, max %lld ms; "
        "%d curve updates in %d ms\n",
        static_cast<long long>(lateMs[lateMs.size() / 2]), static_cast<long long>(p95),
        static_cast<long long>(lateMs.back()), static_cast<int>(updates.count()), kWindowMs);
    EXPECT_GE(updates.count(), 1);
}

TEST(TrainingView, PauseHoldsTheStepAndStopEndsTheRunWithACheckpoint) {
    ts::test::ensureQtApp();
    const auto dir = ts::test::tempDir("training_view_stop");
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString((dir / "s.tscope").string()));
    TrainingView view(&ctx);
    view.form()->setOptions(quick(0));
    QSignalSpy progress(view.controller(), &TrainingRunController::progress);
    ASSERT_TRUE(view.startTraining());
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return !progress.isEmpty() &&
                   progress.last().at(0).value<ts::engine::TrainProgress>().step > 5;
        },
        30000));
    view.pauseButton()->click();
    EXPECT_EQ(view.pauseButton()->text(), "Resume");
    QTest::qWait(300);  // let the current step end
    progress.clear();
    QTest::qWait(400);
    ASSERT_FALSE(progress.isEmpty());
    const auto first = progress.first().at(0).value<ts::engine::TrainProgress>();
    const auto last = progress.last().at(0).value<ts::engine::TrainProgress>();
    EXPECT_TRUE(last.paused);
    EXPECT_EQ(first.step, last.step);
    view.pauseButton()->click();
    EXPECT_EQ(view.pauseButton()->text(), "Pause");
    view.stopButton()->click();
    ASSERT_TRUE(waitFinished(view));
    (void)QTest::qWaitFor(
        [&] { return view.runs()->rowCount() == 1 && view.runs()->at(0).hasSummary; }, 10000);
    ASSERT_EQ(view.runs()->rowCount(), 1);
    EXPECT_EQ(view.runs()->at(0).status, ts::store::RunStatus::Stopped);
    EXPECT_EQ(view.runs()->at(0).reason, "stopped by the user");
    ASSERT_EQ(view.runs()->at(0).checkpoints.size(), 1u);
}
