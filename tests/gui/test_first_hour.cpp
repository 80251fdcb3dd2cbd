// Issue 26 ("the first hour in the studio"), the main window's items offscreen: the demo is
// never overwritten and work in it stays, Save Session As and the close question (1); where
// sessions are made, listed and cleaned (2); the window fits a small screen (4); a short
// toolbar and the command palette (7); the shortcut sheet and Find (17); the dark theme
// for widgets, the timeline and plots (19); where Export ONNX looks for checkpoints (20).
#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <QToolBar>
#include <cstdio>
#include <functional>

#include "app/gui/command_palette.h"
#include "app/gui/main_window.h"
#include "app/gui/onnx_export_action.h"
#include "app/gui/session_document.h"
#include "app/gui/sessions_dialog.h"
#include "app/gui/shortcut_sheet.h"
#include "app/gui/theme.h"
#include "app/gui/view_list.h"
#include "core/store/trace_store.h"
#include "tests/common/test_support.h"
#include "tests/timeline/timeline_fixture.h"
#include "views/common/job_tracker.h"
#include "views/common/plot_theme.h"
#include "views/common/session_context.h"
#include "views/common/session_places.h"
#include "views/timeline/timeline_canvas.h"
#include "views/timeline/timeline_view.h"

using ts::store::TraceStore;

namespace {

/// The application, with settings and data folders of the test's own (never the user's).
void ensureApp() {
    static int argc = 1;
    static char name[] = "test_gui";
    static char* argv[] = {name, nullptr};
    static const std::string home = ts::test::tempDir("fh_home").string();
    qputenv("XDG_DATA_HOME", QByteArray::fromStdString(home + "/data"));
    qputenv("XDG_CONFIG_HOME", QByteArray::fromStdString(home + "/config"));
    if (!QApplication::instance()) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        auto* a = new QApplication(argc, argv);
        a->setProperty("trainscope_headless", true);
        QCoreApplication::setOrganizationName("TrainScopeTest");
    }
}

bool waitFor(const std::function<bool()>& done, int ms = 20000) {
    return QTest::qWaitFor(done, ms);
}

int64_t count(const QString& session, const char* sql) {
    auto s = TraceStore::open(session.toStdString(), TraceStore::Mode::ReadOnly);
    return s ? s.value()->db().queryInt(sql).value() : -1;
}

void addRun(const QString& session) {
    auto s = TraceStore::open(session.toStdString(), TraceStore::Mode::ReadWrite).value();
    const int64_t id = s->beginRun("my run", "{}", "command").value();
    ASSERT_TRUE(s->finishRun(id, ts::store::RunStatus::Completed, "", "{}").ok());
}

std::string writeTrace(const std::filesystem::path& dir) {
    const std::string path = (dir / "worker0.pt.trace.json").string();
    FILE* f = std::fopen(path.c_str(), "w");
    std::fputs("[{\"ph\":\"X\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5}]", f);
    std::fclose(f);
    return path;
}

}  // namespace

// Item 1: the demo opens as a working copy made once; work in it survives the next launch;
// a fresh copy is asked for and leaves the old one; Save As puts the session elsewhere; the
// close question says what a scratch session holds.
TEST(FirstHour, DemoWorkIsKeptAndSessionsAreSavedAs) {
    ensureApp();
    const auto dir = ts::test::tempDir("fh_demo");
    ts::test::writeTimelineFixture(dir / "demo.tscope");
    const QString demo = QString::fromStdString((dir / "demo.tscope").string());
    qputenv("TRAINSCOPE_DEMO_SESSION", demo.toUtf8());
    QSettings().remove("demo/copy");
    QString copy;
    {
        MainWindow w;
        ASSERT_TRUE(w.openDemo());
        ASSERT_TRUE(waitFor([&] { return !w.context()->sessionPath().isEmpty(); }));
        copy = w.context()->sessionPath();
        EXPECT_NE(copy, demo);
        EXPECT_TRUE(isScratchSession(copy));
        EXPECT_TRUE(w.closeQuestion().isEmpty());  // nothing of the user's yet
        addRun(copy);
        EXPECT_TRUE(w.closeQuestion().contains("1 run")) << w.closeQuestion().toStdString();
        ASSERT_TRUE(waitFor([&] { return w.context()->jobs()->idle(); }));
    }
    EXPECT_EQ(count(demo, "SELECT count(*) FROM runs"), 0);  // the demo itself: never written
    MainWindow w;
    ASSERT_TRUE(w.openDemo());  // the next launch: the same copy, the run still there
    ASSERT_TRUE(waitFor([&] { return !w.context()->sessionPath().isEmpty(); }));
    EXPECT_EQ(w.context()->sessionPath(), copy);
    EXPECT_EQ(count(copy, "SELECT count(*) FROM runs"), 1);

    const QString target = QString::fromStdString((dir / "mine.tscope").string());
    QSignalSpy saved(w.document(), &SessionDocument::saved);
    w.document()->saveSessionAs(target);
    ASSERT_TRUE(saved.wait(20000));
    EXPECT_EQ(w.context()->sessionPath(), target);
    EXPECT_EQ(count(target, "SELECT count(*) FROM runs"), 1);
    EXPECT_EQ(count(target, "SELECT count(*) FROM sources"),
              count(demo, "SELECT count(*) FROM sources"));
    EXPECT_TRUE(w.closeQuestion().isEmpty());  // the user's own file now
    EXPECT_TRUE(w.sessionPlaceLabel()->text().contains("mine.tscope"));

    ASSERT_TRUE(w.openDemo(true));  // a fresh copy: a new file, the old one left as it is
    ASSERT_TRUE(waitFor([&] { return w.context()->sessionPath() != target; }));
    EXPECT_NE(w.context()->sessionPath(), copy);
    EXPECT_EQ(count(w.context()->sessionPath(), "SELECT count(*) FROM runs"), 0);
    EXPECT_EQ(count(copy, "SELECT count(*) FROM runs"), 1);
    ASSERT_TRUE(waitFor([&] { return w.context()->jobs()->idle(); }));
}

// Item 2: a session made for a trace goes where the user chose and says so; temporary ones
// go when the window closes; Manage Sessions lists sizes and removes old ones.
TEST(FirstHour, SessionPlacesAndManageSessions) {
    ensureApp();
    const auto dir = ts::test::tempDir("fh_places");
    const QString trace = QString::fromStdString(writeTrace(dir));
    setSessionPlace(SessionPlace::BesideTrace);
    {
        MainWindow w;
        QSignalSpy created(w.document(), &SessionDocument::sessionCreated);
        w.openPaths({trace});
        ASSERT_EQ(created.count(), 1);
        EXPECT_EQ(QFileInfo(w.context()->sessionPath()).absolutePath(),
                  QString::fromStdString(dir.string()));
        ASSERT_TRUE(waitFor([&] { return w.context()->jobs()->idle(); }));
        EXPECT_TRUE(w.sessionPlaceLabel()->text().contains("kept in"));
    }
    setSessionPlace(SessionPlace::Temporary);
    QString temporary;
    {
        MainWindow w;
        QSignalSpy created(w.document(), &SessionDocument::sessionCreated);
        w.openPaths({trace});
        ASSERT_EQ(created.count(), 1);
        temporary = w.context()->sessionPath();
        EXPECT_TRUE(isTemporarySession(temporary));
        EXPECT_TRUE(created.at(0).at(1).toString().contains("removed when it is closed"));
        ASSERT_TRUE(waitFor([&] { return w.context()->jobs()->idle(); }));
        EXPECT_TRUE(QFileInfo::exists(temporary));
        EXPECT_TRUE(w.closeQuestion().contains("1 imported source"))
            << w.closeQuestion().toStdString();
        w.close();  // headless: no question; the temporary session goes
    }
    EXPECT_FALSE(QFileInfo::exists(temporary));
    setSessionPlace(SessionPlace::DataFolder);

    // Two old sessions in the data folder, one of them open.
    const QString a = sessionsFolder() + "/old-a.tscope", b = sessionsFolder() + "/old-b.tscope";
    for (const QString& p : {a, b})
        ASSERT_TRUE(TraceStore::open(p.toStdString(), TraceStore::Mode::Create).ok());
    SessionsDialog d(b);
    int rowA = -1, rowB = -1;
    for (int r = 0; r < d.table()->rowCount(); ++r) {
        if (d.table()->item(r, 0)->text() == "old-a.tscope") rowA = r;
        if (d.table()->item(r, 0)->text().startsWith("old-b.tscope")) rowB = r;
    }
    ASSERT_GE(rowA, 0);
    ASSERT_GE(rowB, 0);
    EXPECT_TRUE(d.table()->item(rowB, 0)->text().contains("(open)"));
    EXPECT_TRUE(QRegularExpression("^[0-9.]+ (B|KiB|MiB)$")
                    .match(d.table()->item(rowA, 1)->text())
                    .hasMatch())
        << d.table()->item(rowA, 1)->text().toStdString();
    EXPECT_TRUE(d.totalLabel()->text().contains("in all"));
    EXPECT_EQ(d.removeRows({rowA, rowB}), 1);  // never the open one
    EXPECT_FALSE(QFileInfo::exists(a));
    EXPECT_TRUE(QFileInfo::exists(b));
}

// Item 4: the studio fits 1280x720 with every view open, and opens within the screen.
TEST(FirstHour, WindowFitsSmallScreens) {
    ensureApp();
    const auto path = ts::test::tempDir("fh_fit") / "s.tscope";
    ts::test::writeTimelineFixture(path);
    QSettings().remove("window/geometry");
    MainWindow w;
    const QRect avail = w.screen()->availableGeometry();
    EXPECT_LE(w.width(), avail.width());
    EXPECT_LE(w.height(), avail.height());
    w.openPaths({QString::fromStdString(path.string())});
    ASSERT_TRUE(waitFor([&] { return !w.context()->sessionPath().isEmpty(); }));
    for (const ViewInfo& v : allViews()) w.showView(v.name);
    w.show();
    ASSERT_TRUE(waitFor([&] { return w.context()->jobs()->idle(); }, 60000));
    QStringList tooWide;
    for (int i = 0; i < w.tabs()->count(); ++i) {
        const QSize min = w.tabs()->widget(i)->minimumSizeHint();
        if (min.width() > 1280 - 260 || min.height() > 720 - 160)
            tooWide << QStringLiteral("%1 %2x%3")
                           .arg(w.tabs()->tabText(i))
                           .arg(min.width())
                           .arg(min.height());
    }
    EXPECT_TRUE(tooWide.isEmpty()) << tooWide.join(", ").toStdString();
    EXPECT_LE(w.minimumSizeHint().width(), 1280);
    EXPECT_LE(w.minimumSizeHint().height(), 720);
    w.resize(1280, 720);
    EXPECT_EQ(w.size(), QSize(1280, 720));
}

// Item 7: a short toolbar; the palette finds views, actions and recent files by name.
TEST(FirstHour, ShortToolbarAndCommandPalette) {
    ensureApp();
    QSettings().setValue("recentFiles", QStringList{"/data/exp/worker0.pt.trace.json"});
    MainWindow w;
    int buttons = 0;
    for (QAction* a : w.mainToolBar()->actions()) buttons += a->isSeparator() ? 0 : 1;
    EXPECT_LE(buttons, 9);
    EXPECT_GE(static_cast<int>(allViews().size()), 15);  // the views are in the View menu
    EXPECT_EQ(CommandPalette::score("op stat", "Op statistics") > 0, true);
    EXPECT_LT(CommandPalette::score("xyz", "Op statistics"), 0);
    CommandPalette* p = w.preparePalette();
    p->setQuery("memory");
    ASSERT_FALSE(p->shownTexts().isEmpty());
    EXPECT_EQ(p->shownTexts().front(), "Memory");
    p->setQuery("save as");
    ASSERT_FALSE(p->shownTexts().isEmpty());
    EXPECT_TRUE(p->shownTexts().front().contains("Save Session As"));
    p->setQuery("worker0");
    ASSERT_EQ(p->shownTexts().size(), 1);
    EXPECT_TRUE(p->shownTexts().front().contains("/data/exp/worker0.pt.trace.json"));
    p->setQuery("timeline");
    ASSERT_TRUE(p->runSelected());
    EXPECT_EQ(w.tabs()->currentWidget()->property("viewName").toString(), "timeline");
    QSettings().remove("recentFiles");
}

// Item 17: ? shows every key (not in a text box), Find puts the cursor in the search.
TEST(FirstHour, ShortcutSheetAndFind) {
    ensureApp();
    EXPECT_GE(ShortcutSheet::keys().size(), 20u);
    MainWindow w;
    w.show();
    w.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&w));
    auto* timeline = qobject_cast<TimelineView*>(w.showView("timeline"));
    ASSERT_NE(timeline, nullptr);
    timeline->searchBox()->setFocus();
    QTest::keyClick(timeline->searchBox(), '?');  // typing: a question mark, not the sheet
    EXPECT_EQ(timeline->searchBox()->text(), "?");
    auto* sheet = w.findChild<ShortcutSheet*>();
    EXPECT_TRUE(sheet == nullptr || !sheet->isVisible());
    w.tabs()->setFocus();
    QTest::keyClick(w.tabs(), '?');
    sheet = w.findChild<ShortcutSheet*>();
    ASSERT_NE(sheet, nullptr);
    EXPECT_TRUE(sheet->isVisible());
    sheet->close();
    w.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&w));
    w.showView("summary");
    QAction* find = nullptr;
    for (QAction* a : w.menuActions())
        if (a->shortcut() == QKeySequence(QKeySequence::Find)) find = a;
    ASSERT_NE(find, nullptr);
    find->trigger();
    EXPECT_EQ(w.tabs()->currentWidget(), timeline);
    EXPECT_TRUE(waitFor([&] { return timeline->searchBox()->hasFocus(); }, 2000));
}

// Item 19: the dark theme reaches widgets, the timeline canvas and the plots, and back.
TEST(FirstHour, DarkThemeForWidgetsCanvasAndPlots) {
    ensureApp();
    ASSERT_TRUE(applyTheme(Theme::Dark));
    EXPECT_LT(qApp->palette().color(QPalette::Window).lightness(), 128);
    TimelineCanvas canvas;
    canvas.resize(400, 400);
    const auto path = ts::test::tempDir("fh_theme") / "s.tscope";
    ts::test::writeTimelineFixture(path);
    canvas.setModel(ts::timeline::loadTimelineModel(path.string()).value());
    QImage img(canvas.size(), QImage::Format_RGB32);
    {
        QPainter p(&img);
        canvas.render(p, img.size());
    }
    EXPECT_LT(QColor(img.pixel(img.width() - 30, img.height() - 5)).lightness(), 80);
    QCustomPlot plot;
    followPalette(&plot);
    EXPECT_GT(plot.xAxis->tickLabelColor().lightness(), 180);  // light text on dark
    EXPECT_FALSE(applyTheme(Theme::Light));
    QApplication::processEvents();
    EXPECT_LT(plot.xAxis->tickLabelColor().lightness(), 100);  // followed the change
    {
        QPainter p(&img);
        canvas.render(p, img.size());
    }
    EXPECT_GT(QColor(img.pixel(img.width() - 30, img.height() - 5)).lightness(), 200);
}

// Item 20: Export ONNX opens where the session's runs keep their checkpoints.
TEST(FirstHour, OnnxExportLooksWhereCheckpointsAre) {
    ensureApp();
    const auto dir = ts::test::tempDir("fh_onnx");
    const QString session = QString::fromStdString((dir / "exp.tscope").string());
    EXPECT_TRUE(OnnxExportAction::checkpointFolder(session).isEmpty());
    ASSERT_TRUE(QDir().mkpath(QString::fromStdString((dir / "exp-checkpoints/run-2").string())));
    EXPECT_EQ(OnnxExportAction::checkpointFolder(session),
              QString::fromStdString((dir / "exp-checkpoints/run-2").string()));
}
