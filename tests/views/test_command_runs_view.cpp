// The Training panel's Command kind offscreen: the form round-trips a LaunchSpec, names bad
// fields, fills presets and previews the environment; a command started from the panel runs
// live (curves, progress), ends with its status in the history and results, and its
// settings load back into the form; the framework log levels widget maps to the variables.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/common/cuda_paths.h"
#include "core/store/trace_store.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "views/common/session_context.h"
#include "views/curves/curves_chart.h"
#include "views/curves/curves_view.h"
#include "views/training/command_form.h"
#include "views/training/command_log_levels.h"
#include "views/training/command_run_controller.h"
#include "views/training/training_form.h"
#include "views/training/training_progress_widget.h"
#include "views/training/training_results_widget.h"
#include "views/training/training_runs_model.h"
#include "views/training/training_view.h"
#include "views/training/training_widgets.h"

using ts::run::LaunchSpec;

TEST(CommandForm, RoundTripsEverySetting) {
    ts::test::ensureQtApp();
    CommandForm form;
    LaunchSpec s;
    s.name = "my run";
    s.program = "/usr/bin/python3";
    s.args = {"train.py", "--note", "two words", "--q=\"x\""};
    s.cwd = "/tmp";
    s.env = {{"A", "1"}, {"B", "x y"}};
    s.watchDirs = {"out", "/abs/tb"};
    s.lossRegex = "loss=(?P<loss>[0-9.]+)";
    s.pythonHooks = true;
    s.recordLoss = false;
    s.profile = true;
    s.profileSchedule = {0, 2, 1, 5, 0};
    s.dumpConfig = "/tmp/dump.json";
    s.overflowCheck = true;
    s.stopOnOverflow = true;
    s.rdrConfigJson = R"({"rdr":{"enable":true,"mode":2}})";
    s.nproc = 3;
    s.ranks = ts::run::RankScheme::MindSpore;
    s.logLevels = {ts::run::parseLogLevelSetting("GLOBAL=INFO").value(),
                   ts::run::parseLogLevelSetting("KERNEL=DEBUG").value(),
                   ts::run::parseLogLevelSetting("TORCH=ERROR").value(),
                   ts::run::parseLogLevelSetting("EVENT=on").value()};
    form.setSpec(s);
    LaunchSpec back;
    QString error;
    ASSERT_TRUE(form.spec(&back, &error)) << error.toStdString();
    EXPECT_EQ(back.name, s.name);
    EXPECT_EQ(back.program, s.program);
    EXPECT_EQ(back.args, s.args);
    EXPECT_EQ(back.cwd, s.cwd);
    EXPECT_EQ(back.env, s.env);
    EXPECT_EQ(back.watchDirs, s.watchDirs);
    EXPECT_EQ(back.lossRegex, s.lossRegex);
    EXPECT_FALSE(back.recordLoss);
    EXPECT_TRUE(back.profile);
    EXPECT_EQ(back.profileSchedule.wait, 2);
    EXPECT_EQ(back.profileSchedule.active, 5);
    EXPECT_EQ(back.profileSchedule.repeat, 0);
    EXPECT_EQ(back.dumpConfig, s.dumpConfig);
    EXPECT_TRUE(back.overflowCheck && back.stopOnOverflow);
    EXPECT_NE(back.rdrConfigJson.find("\"mode\":2"), std::string::npos);
    EXPECT_EQ(back.nproc, 3);
    EXPECT_EQ(back.ranks, ts::run::RankScheme::MindSpore);
    ASSERT_EQ(back.logLevels.size(), 4u);
    std::set<std::string> levels;
    for (const auto& l : back.logLevels) levels.insert(ts::run::formatLogLevelSetting(l));
    EXPECT_EQ(levels,
              (std::set<std::string>{"GLOBAL=INFO", "KERNEL=DEBUG", "TORCH=ERROR", "EVENT=on"}));
}

TEST(CommandForm, NamesTheFieldThatIsWrong) {
    ts::test::ensureQtApp();
    CommandForm form;
    LaunchSpec s;
    QString error;
    form.programEdit()->setPath(QString());
    EXPECT_FALSE(form.spec(&s, &error));
    EXPECT_TRUE(error.startsWith("Program")) << error.toStdString();
    form.programEdit()->setPath("python3");
    form.argumentsEdit()->setText("train.py \"unclosed");
    EXPECT_FALSE(form.spec(&s, &error));
    EXPECT_TRUE(error.startsWith("Arguments: a \" is not closed")) << error.toStdString();
    form.argumentsEdit()->setText("train.py");
    form.environmentTable()->insertRow(0);
    form.environmentTable()->setItem(0, 0, new QTableWidgetItem("A=B"));
    form.environmentTable()->setItem(0, 1, new QTableWidgetItem("1"));
    EXPECT_FALSE(form.spec(&s, &error));
    EXPECT_TRUE(error.startsWith("Environment, row 1")) << error.toStdString();
    form.environmentTable()->removeRow(0);
    form.findChildren<QLineEdit*>();
    EXPECT_TRUE(form.spec(&s, &error)) << error.toStdString();
}

TEST(CommandForm, PresetsAndTheEnvironmentPreview) {
    ts::test::ensureQtApp();
    CommandForm form;
    form.argumentsEdit()->setText("my_train.py --epochs 2");
    form.applyPreset(CommandForm::PyTorchDistributed);
    LaunchSpec s;
    QString error;
    ASSERT_TRUE(form.spec(&s, &error)) << error.toStdString();
    EXPECT_EQ(s.program, "python3");
    EXPECT_EQ(s.args, (std::vector<std::string>{"my_train.py", "--epochs", "2"}));  // kept
    EXPECT_EQ(s.nproc, 2);
    EXPECT_EQ(s.ranks, ts::run::RankScheme::Torch);
    QString env = form.environmentText("/data/exp.tscope");
    EXPECT_TRUE(env.contains("RANK=0")) << env.toStdString();
    EXPECT_TRUE(env.contains("WORLD_SIZE=2"));
    EXPECT_TRUE(env.contains("MASTER_PORT=<a free port>"));
    EXPECT_TRUE(env.contains("PYTHONUNBUFFERED=1"));
    EXPECT_TRUE(env.contains("/data/exp-runs/run-<id>/events.rank0.{pid}.jsonl"));

    form.applyPreset(CommandForm::MindSporeScript);
    ASSERT_TRUE(form.spec(&s, &error));
    EXPECT_EQ(s.nproc, 1);
    EXPECT_EQ(s.ranks, ts::run::RankScheme::MindSpore);
    env = form.environmentText("/data/exp.tscope");
    EXPECT_TRUE(env.contains("RANK_ID=0")) << env.toStdString();
    EXPECT_TRUE(env.contains("GLOG_v=2"));
    EXPECT_TRUE(env.contains("MS_RDR_ENABLE=1"));
    EXPECT_TRUE(env.contains("MS_RDR_PATH=/data/exp-runs/run-<id>/rdr"));
    // The log levels of the form show in the preview as soon as they change.
    form.logLevels()->moduleCombo("KERNEL")->setCurrentIndex(1);  // DEBUG
    form.logLevels()->torchCombo()->setCurrentIndex(4);           // ERROR
    form.logLevels()->eventsCheck()->setChecked(true);
    const QString shown = form.environmentPreview()->toPlainText();
    EXPECT_TRUE(shown.contains("MS_SUBMODULE_LOG_v={KERNEL:0}")) << shown.toStdString();
    EXPECT_TRUE(shown.contains("TORCH_CPP_LOG_LEVEL=ERROR"));
    EXPECT_TRUE(shown.contains("ASCEND_GLOBAL_EVENT_ENABLE=1"));
}

TEST(CommandLogLevels, SettingsAndUnknownModules) {
    ts::test::ensureQtApp();
    CommandLogLevels w;
    EXPECT_TRUE(w.settings().empty());  // everything at the framework's default
    w.setSettings({ts::run::parseLogLevelSetting("ASCEND:SLOG=1").value(),
                   ts::run::parseLogLevelSetting("ASCEND=3").value()});
    auto s = w.settings();
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(ts::run::formatLogLevelSetting(s[0]), "ASCEND=ERROR");
    EXPECT_EQ(ts::run::formatLogLevelSetting(s[1]), "ASCEND:SLOG=INFO");
    EXPECT_NE(w.moduleCombo("ASCEND:SLOG"), nullptr);
    EXPECT_EQ(CommandLogLevels::mindsporeSubModules().size(), 20);
}

TEST(TrainingViewCommand, RunFromThePanelIsRecordedAndShown) {
    ts::test::ensureQtApp();
    const auto dir = ts::test::tempDir("training_view_command");
    const std::string script = (dir / "train.sh").string();
    std::ofstream(script) << "for i in 1 2 3 4 5 6; do echo \"epoch: 1 step: $i, loss is 0.$((10 - "
                             "i))\"; sleep 0.05; done\n"
                             "echo 'WARNING:trainer:done' >&2\n";
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString((dir / "s.tscope").string()));
    TrainingView view(&ctx);
    view.showKind(1);
    LaunchSpec s;
    s.program = "sh";
    s.args = {script};
    view.commandForm()->setSpec(s);
    QSignalSpy started(view.commandController(), &CommandRunController::started);
    QSignalSpy finished(&view, &TrainingView::runFinished);
    ASSERT_TRUE(view.startTraining()) << view.message().toStdString();  // Start acts on the tab
    EXPECT_FALSE(view.startButton()->isEnabled());
    EXPECT_TRUE(view.stopButton()->isEnabled());
    EXPECT_FALSE(view.startCommand());  // one run at a time
    ASSERT_TRUE(finished.wait(30000) || finished.count() > 0) << view.message().toStdString();
    ASSERT_EQ(started.count(), 1);
    EXPECT_EQ(finished.at(0).at(1).toString(), "completed");
    EXPECT_TRUE(view.message().contains("completed")) << view.message().toStdString();
    EXPECT_TRUE(view.startButton()->isEnabled());
    (void)QTest::qWaitFor(
        [&] { return view.runs()->rowCount() == 1 && view.runs()->at(0).hasSummary; }, 10000);
    ASSERT_EQ(view.runs()->rowCount(), 1);
    const auto& run = view.runs()->at(0);
    EXPECT_TRUE(run.isCommand());
    EXPECT_EQ(run.status, ts::store::RunStatus::Completed);
    EXPECT_EQ(run.exitCode, 0);
    EXPECT_EQ(run.logLines, 7);
    const QModelIndex model = view.runs()->index(0, TrainingRunsModel::ModelCol);
    EXPECT_EQ(view.runs()->data(model).toString(), "command");
    EXPECT_TRUE(view.results()->headline().contains("completed"));
    // The curves show the printed loss.
    (void)QTest::qWaitFor(
        [&] {
            QCPGraph* g = view.curves()->chart()->rawGraph(run.id, "train/loss");
            return g != nullptr && g->dataCount() == 6;
        },
        10000);
    QCPGraph* loss = view.curves()->chart()->rawGraph(run.id, "train/loss");
    ASSERT_NE(loss, nullptr);
    EXPECT_EQ(loss->dataCount(), 6);
    // Its settings come back into the Command tab.
    view.showKind(0);
    view.commandForm()->programEdit()->setPath("other");
    ASSERT_TRUE(view.loadRunSettings(run.id));
    EXPECT_EQ(view.kindTabs()->currentIndex(), 1);
    LaunchSpec loaded;
    QString error;
    ASSERT_TRUE(view.commandForm()->spec(&loaded, &error));
    EXPECT_EQ(loaded.program, "sh");
    EXPECT_EQ(loaded.args, s.args);
}

TEST(TrainingViewCommand, PauseAndStopFromThePanel) {
    ts::test::ensureQtApp();
    const auto dir = ts::test::tempDir("training_view_command_stop");
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString((dir / "s.tscope").string()));
    TrainingView view(&ctx);
    view.showKind(1);
    LaunchSpec s;
    s.program = "sh";
    s.args = {"-c", "i=0; while :; do i=$((i+1)); echo tick $i; sleep 0.02; done"};
    view.commandForm()->setSpec(s);
    QSignalSpy progress(view.commandController(), &CommandRunController::progress);
    QSignalSpy finished(&view, &TrainingView::runFinished);
    ASSERT_TRUE(view.startCommand());
    ASSERT_TRUE(QTest::qWaitFor([&] { return view.commandController()->lastProgress().lines >= 5; },
                                10000));
    EXPECT_TRUE(view.progress()->stepText().contains("lines"))
        << view.progress()->stepText().toStdString();
    view.pauseButton()->click();
    EXPECT_TRUE(view.commandController()->paused());
    EXPECT_EQ(view.pauseButton()->text(), "Resume");
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return view.commandController()->lastProgress().state == ts::run::CommandState::Paused;
        },
        5000));
    view.pauseButton()->click();  // resume
    EXPECT_FALSE(view.commandController()->paused());
    view.stopButton()->click();
    ASSERT_TRUE(finished.wait(20000) || finished.count() > 0);
    EXPECT_EQ(finished.at(0).at(1).toString(), "stopped");
    EXPECT_GT(progress.count(), 0);
}

TEST(CommandForm, ArgumentsSplitLikeAShell) {
    QString error;
    EXPECT_EQ(CommandForm::splitArguments("train.py  --lr 0.1", &error),
              (QStringList{"train.py", "--lr", "0.1"}));
    EXPECT_EQ(CommandForm::splitArguments("a 'b c' \"d \\\"e\\\"\" f\\ g ''", &error),
              (QStringList{"a", "b c", "d \"e\"", "f g", ""}));
    EXPECT_TRUE(error.isEmpty());
    EXPECT_TRUE(CommandForm::splitArguments("a 'b", &error).isEmpty());
    EXPECT_FALSE(error.isEmpty());
    const QStringList hard = {"plain", "two words", "it's", "$HOME", "", "a\"b", "x\\y"};
    EXPECT_EQ(CommandForm::splitArguments(CommandForm::joinArguments(hard), &error), hard);
}

TEST(TrainingViewCommand, EngineRunOfTwoProcessesRecordsBothRanks) {
    ts::test::ensureQtApp();
    const auto dir = ts::test::tempDir("training_view_ranks");
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString((dir / "s.tscope").string()));
    TrainingView view(&ctx);
    ts::run::JobOptions o = TrainingView::defaultOptions();
    o.train.dataset = "synthetic";
    o.train.syntheticSamples = 512;
    o.train.batchSize = 16;
    o.train.epochs = 1;
    o.train.evalLimit = 64;
    o.processes = 2;
    view.form()->setOptions(o);
    QSignalSpy finished(&view, &TrainingView::runFinished);
    ASSERT_TRUE(view.startTraining()) << view.message().toStdString();
    EXPECT_TRUE(view.commandController()->running());
    ASSERT_TRUE(finished.wait(60000) || finished.count() > 0) << view.message().toStdString();
    EXPECT_EQ(finished.at(0).at(1).toString(), "completed") << view.message().toStdString();
    EXPECT_TRUE(view.message().contains("the ranks' sessions")) << view.message().toStdString();
    // The job is a command run of the open session; the ranks recorded their own sessions.
    (void)QTest::qWaitFor(
        [&] { return view.runs()->rowCount() == 1 && view.runs()->at(0).hasSummary; }, 10000);
    ASSERT_EQ(view.runs()->rowCount(), 1);
    EXPECT_TRUE(view.runs()->at(0).isCommand());
    EXPECT_EQ(view.runs()->at(0).processes, 2);
    int ranks = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
        if (e.path().filename().string().rfind("rank_", 0) == 0 &&
            e.path().extension() == ".tscope")
            ++ranks;
    EXPECT_EQ(ranks, 2);
}

TEST(CommandForm, RecordCudaActivityBox) {
    ts::test::ensureQtApp();
    CommandForm form;
    QCheckBox* box = form.recordCudaCheck();
    ASSERT_NE(box, nullptr);
    EXPECT_EQ(box->text(), "Record CUDA activity");
    const bool usable = ts::cuptiForRecording().ok();
    // Without the collector or a driver nothing could be recorded: disabled, saying why.
    EXPECT_EQ(box->isEnabled(), usable) << box->toolTip().toStdString();
    if (!usable) {
        EXPECT_TRUE(box->toolTip().contains("no CUDA driver") ||
                    box->toolTip().contains("was not built"))
            << box->toolTip().toStdString();
        return;
    }
    form.programEdit()->setPath("python3");
    box->setChecked(true);
    LaunchSpec s;
    QString error;
    ASSERT_TRUE(form.spec(&s, &error)) << error.toStdString();
    EXPECT_TRUE(s.recordCuda);
    EXPECT_TRUE(form.environmentText("/data/exp.tscope").contains("CUDA_INJECTION64_PATH="));
}
