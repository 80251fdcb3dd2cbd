// The GUI shell, offscreen: opening a session lists its sources in the sidebar; the
// screenshot helper saves a PNG once background jobs are done.
#include <gtest/gtest.h>

#include <QApplication>
#include <QImage>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <fstream>

#include "app/gui/main_window.h"
#include "app/gui/screenshot.h"
#include "app/gui/session_document.h"
#include "core/store/store_writer.h"
#include "tests/common/test_support.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/session/session_sidebar.h"

using namespace ts::store;

namespace {

QApplication* app() {
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

std::string makeSession(const std::vector<std::string>& sourceNames) {
    const std::string path = (ts::test::tempDir("gui") / "s.tscope").string();
    auto s = TraceStore::open(path, TraceStore::Mode::Create).value();
    for (const auto& name : sourceNames) {
        const int64_t src = s->beginSource(name, "test").value();
        {
            StoreWriter w(*s, src);
            const int64_t p = w.addProcess("1");
            w.addSlice({w.addTrack("thread", p, w.addThread(p, "1"), "t"), 10, 5, 0, w.intern("op"),
                        0, 0, 0});
        }
        SourceSummary sum;
        sum.status = ts::store::SourceStatus::Complete;
        EXPECT_TRUE(s->finishSource(src, sum).ok());
    }
    return path;
}

}  // namespace

TEST(MainWindow, SidebarListsTheSessionsSources) {
    app();
    const std::string path =
        makeSession({"/data/rank0.pt.trace.json", "/data/rank1.pt.trace.json"});
    MainWindow w;
    w.show();
    w.openPaths({QString::fromStdString(path)});
    QTRY_COMPARE_WITH_TIMEOUT(w.sidebar()->sourceLabels().size(), 2, 10000);
    const QStringList labels = w.sidebar()->sourceLabels();
    EXPECT_TRUE(labels[0].contains("rank0.pt.trace.json")) << labels[0].toStdString();
    EXPECT_TRUE(labels[1].contains("rank1.pt.trace.json"));
    EXPECT_EQ(w.context()->sessionPath(), QString::fromStdString(path));
    EXPECT_GE(w.tabs()->count(), 1);
}

TEST(MainWindow, NotASessionShowsAnErrorAndKeepsRunning) {
    app();
    const std::string bad = (ts::test::tempDir("gui") / "broken.tscope").string();
    { std::ofstream(bad) << "definitely not sqlite"; }
    MainWindow w;
    QSignalSpy failed(w.document(), &SessionDocument::failed);
    w.openPaths({QString::fromStdString(bad)});
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
    EXPECT_TRUE(failed[0][0].toString().contains("not an SQLite database"));
    EXPECT_TRUE(w.context()->sessionPath().isEmpty());
}

TEST(MainWindow, ScreenshotWaitsForJobsAndSavesPng) {
    app();
    const std::string path = makeSession({"a.json"});
    const QString out = QString::fromStdString((ts::test::tempDir("gui") / "shot.png").string());
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    w.openPaths({QString::fromStdString(path)});
    ScreenshotTaker taker(&w, out, QString());
    QSignalSpy done(&taker, &ScreenshotTaker::done);
    taker.start(20000);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 25000);
    EXPECT_TRUE(done[0][0].toBool()) << done[0][1].toString().toStdString();
    EXPECT_TRUE(w.context()->jobs()->idle());
    QImage img(out);
    EXPECT_EQ(img.width(), 1200);
    EXPECT_EQ(w.sidebar()->sourceLabels().size(), 1);
}
