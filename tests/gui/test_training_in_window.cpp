// The main window hosts the training views: the Training, Curves and Checkpoint views are
// registered, and a checkpoint the Training panel asks to open lands in the Checkpoint view.
#include <gtest/gtest.h>

#include <QApplication>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include "app/gui/main_window.h"
#include "core/engine/model/models.h"
#include "core/engine/train/checkpoint.h"
#include "tests/common/test_support.h"
#include "views/checkpoint/checkpoint_table_model.h"
#include "views/checkpoint/checkpoint_view.h"
#include "views/common/session_context.h"
#include "views/curves/curves_view.h"
#include "views/training/training_view.h"

namespace {
QApplication* trainingApp() {
    static int argc = 1;
    static char name[] = "test_gui";
    static char* argv[] = {name, nullptr};
    if (auto* a = qobject_cast<QApplication*>(QCoreApplication::instance())) return a;
    qputenv("QT_QPA_PLATFORM", "offscreen");
    auto* q = new QApplication(argc, argv);
    q->setProperty("trainscope_headless", true);
    QCoreApplication::setOrganizationName("TrainScopeTest");
    return q;
}
}  // namespace

TEST(MainWindowTraining, TrainingCurvesAndCheckpointViewsAreRegistered) {
    trainingApp();
    MainWindow w;
    EXPECT_NE(qobject_cast<TrainingView*>(w.showView("training")), nullptr);
    EXPECT_NE(qobject_cast<CurvesView*>(w.showView("curves")), nullptr);
    EXPECT_NE(qobject_cast<CheckpointView*>(w.showView("checkpoint")), nullptr);
}

TEST(MainWindowTraining, RequestedCheckpointOpensInTheCheckpointView) {
    trainingApp();
    const auto dir = ts::test::tempDir("gui_ckpt");
    const std::string path = (dir / "lenet.ckpt").string();
    auto net = ts::engine::makeLeNet5(1);
    ts::engine::TrainState st;
    st.step = 10;
    ASSERT_TRUE(
        ts::engine::writeCheckpoint(path, ts::engine::makeCheckpoint(*net, nullptr, st)).ok());
    MainWindow w;
    w.context()->requestOpen(QString::fromStdString(path));
    auto* view = qobject_cast<CheckpointView*>(w.tabs()->currentWidget());
    ASSERT_NE(view, nullptr);
    QSignalSpy loaded(view, &CheckpointView::loaded);
    ASSERT_TRUE(loaded.wait(10000) || loaded.count() == 1);
    EXPECT_TRUE(loaded.at(0).at(0).toBool()) << view->summary().toStdString();
    // 8 parameters (conv1, conv2 weights; fc1-3 weights and biases) + epoch_num, step_num,
    // global_step.
    EXPECT_EQ(view->model()->rowCount(), 11);
    EXPECT_TRUE(view->summary().contains("61,684 trainable") ||
                view->summary().contains("61684 trainable"))
        << view->summary().toStdString();
}
