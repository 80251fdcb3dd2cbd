// The RDR and Logs views in the studio, offscreen: both are registered, an RDR folder and a
// log file opened by path land in their views, and a run that failed with an RDR export
// opens its crash record by itself (SessionContext::requestOpen, the Training panel's entry
// point views/rdr/rdr_auto_open.h).
#include <gtest/gtest.h>

#include <QApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <filesystem>
#include <fstream>

#include "app/gui/main_window.h"
#include "app/gui/view_list.h"
#include "core/run/training_job.h"
#include "tests/common/test_support.h"
#include "views/common/rdr_auto_open.h"
#include "views/common/session_context.h"
#include "views/logs/log_view.h"
#include "views/rdr/rdr_view.h"

namespace fs = std::filesystem;

namespace {

QApplication* rdrApp() {
    static int argc = 1;
    static char name[] = "test_gui";
    static char* argv[] = {name, nullptr};
    static QApplication* a = [] {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        auto* q = new QApplication(argc, argv);
        q->setProperty("trainscope_headless", true);
        QCoreApplication::setOrganizationName("TrainScopeTest");
        return q;
    }();
    return a;
}

// A NaN run (absurd learning rate) with RDR mode 1 under `dir`; returns the export folder.
QString nanRunExport(const fs::path& dir) {
    ts::run::JobOptions o;
    o.train.model = "mlp";
    o.train.dataset = "synthetic";
    o.train.syntheticSamples = 256;
    o.train.batchSize = 32;
    o.train.lr = 1e12;
    o.train.evalAtEnd = false;
    o.sessionPath = (dir / "s.tscope").string();
    o.rdrUseEnvironment = false;
    o.rdrConfigPath = (dir / "rdr.json").string();
    std::ofstream(o.rdrConfigPath)
        << R"({"rdr": {"enable": true, "mode": 1, "path": ")" << (dir / "rdr").string() << "\"}}";
    ts::run::TrainingJob job(o);
    const auto r = job.run();
    EXPECT_EQ(r.status, "failed");
    const QString exported = QString::fromStdString(job.rdrExportDir());
    EXPECT_TRUE(rdrShouldOpenAfterRun(QString::fromStdString(r.status), exported));
    return exported;
}

template <class View>
View* waitForView(MainWindow& w) {
    for (int i = 0; i < 200; ++i) {
        for (int t = 0; t < w.tabs()->count(); ++t)
            if (auto* v = qobject_cast<View*>(w.tabs()->widget(t))) return v;
        QTest::qWait(20);
    }
    return nullptr;
}

}  // namespace

TEST(RdrLogsGui, ViewsAreRegistered) {
    rdrApp();
    bool rdr = false, logs = false;
    for (const ViewInfo& v : allViews()) {
        rdr = rdr || (v.name == "rdr" && v.accepts);
        logs = logs || (v.name == "logs" && v.accepts);
    }
    EXPECT_TRUE(rdr);
    EXPECT_TRUE(logs);
}

TEST(RdrLogsGui, FailedRunOpensItsCrashRecord) {
    rdrApp();
    const fs::path dir = ts::test::tempDir("gui_rdr_auto");
    const QString exported = nanRunExport(dir);
    ASSERT_FALSE(exported.isEmpty());
    EXPECT_FALSE(rdrShouldOpenAfterRun("completed", exported));
    EXPECT_FALSE(rdrShouldOpenAfterRun("failed", QString()));
    EXPECT_FALSE(rdrShouldOpenAfterRun("failed", QString::fromStdString(dir.string() + "/none")));

    MainWindow w;
    w.resize(1200, 800);
    ASSERT_TRUE(openRdrAfterRun(w.context(), "failed", exported));
    RdrView* view = waitForView<RdrView>(w);
    ASSERT_NE(view, nullptr);
    for (int i = 0; i < 200 && view->exportData().reason.empty(); ++i) QTest::qWait(20);
    EXPECT_EQ(view->exportData().reason, "nan_loss");
    EXPECT_EQ(w.tabs()->currentWidget(), view);
    EXPECT_TRUE(view->findChild<QLabel*>("rdrSummary")->text().contains("nan_loss"));
}

TEST(RdrLogsGui, LogFileOpensInTheLogView) {
    rdrApp();
    MainWindow w;
    const std::string sample =
        (fs::path(TRAINSCOPE_SOURCE_DIR) / "tests/data/logs/plog.log").string();
    w.openPaths({QString::fromStdString(sample)});
    LogView* view = waitForView<LogView>(w);
    ASSERT_NE(view, nullptr);
}
