// Issue 26 ("the first hour in the studio"), the views' items offscreen: the details panel's
// long values (5), the timeline's name column and hover values (6, 8, 18), problems shown by
// reason and file position (10), unrelated clocks aligned from the timeline (11), empty views
// that say what to do (13), runs renamed and a junk run removed (14), the timeline's keys
// and search marks (17), the Compare view's link, filter and A−B (18), the SQL tab's example
// and table browser (20).
#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <QApplication>
#include <QCheckBox>
#include <QFrame>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTreeWidget>

#include "core/debug/dump_writer.h"
#include "core/store/store_writer.h"
#include "core/store/trace_store.h"
#include "core/timeline/timeline_model.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "tests/timeline/timeline_fixture.h"
#include "views/common/empty_state.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/dumps/compare/compare_table_model.h"
#include "views/dumps/compare/compare_view.h"
#include "views/problems/problems_view.h"
#include "views/query/query_result_model.h"
#include "views/query/query_view.h"
#include "views/session/session_sidebar.h"
#include "views/stats/stats_view.h"
#include "views/steps/steps_view.h"
#include "views/timeline/slice_details_panel.h"
#include "views/timeline/timeline_canvas.h"
#include "views/timeline/timeline_painter.h"
#include "views/timeline/timeline_view.h"
#include "views/training/training_runs_model.h"
#include "views/training/training_view.h"

using namespace ts::timeline;
namespace fs = std::filesystem;

namespace {

std::string emptySession(const std::string& tag) {
    const std::string path = (ts::test::tempDir(tag) / "s.tscope").string();
    EXPECT_TRUE(ts::store::TraceStore::open(path, ts::store::TraceStore::Mode::Create).ok());
    return path;
}

int trackNamed(const TimelineModel& m, const std::string& name) {
    for (size_t i = 0; i < m.tracks.size(); ++i)
        if (m.tracks[i].name == name) return static_cast<int>(i);
    return -1;
}

}  // namespace

// Item 5: a 1,317-character call stack does not squeeze the labels: it shows its start with
// a link that shows it whole, and nothing widens the panel past its width.
TEST(FirstHourViews, DetailsPanelKeepsLabelsAndShowsLongValuesOnDemand) {
    ts::test::ensureQtApp();
    SliceDetailsPanel panel;
    panel.resize(420, 300);
    panel.show();
    std::string stack;
    while (stack.size() < 1300)
        stack +=
            "/home/user/envs/torch/lib/python3.10/site-packages/torch/nn/modules/module.py("
            "1501): _call_impl;";
    stack += "train.py(54): <module>";
    SliceDetails d;
    d.id = 7;
    d.name = "aten::linear";
    d.track = "thread 823 (python3)";
    d.dur = 1500;
    d.argsJson = "{\"Call stack\": \"" + stack + "\", \"Input Dims\": [[8, 3], [3, 4]]}";
    panel.showDetails(d, 0);
    const QString shown = panel.toPlainText();
    EXPECT_TRUE(shown.contains("Call stack"));
    EXPECT_TRUE(shown.contains("Input Dims"));
    EXPECT_TRUE(shown.contains(QStringLiteral("show all %L1 characters").arg(stack.size())))
        << shown.toStdString();
    EXPECT_FALSE(shown.contains("train.py(54)"));          // the end is on demand
    EXPECT_EQ(panel.horizontalScrollBar()->maximum(), 0);  // wraps, never wider than the panel
    EXPECT_TRUE(panel.expandArg("Call stack"));
    const QString whole = panel.toPlainText();
    EXPECT_TRUE(whole.contains("train.py(54)"));
    EXPECT_EQ(panel.horizontalScrollBar()->maximum(), 0);
    EXPECT_FALSE(panel.expandArg("Input Dims"));  // short: shown whole already
}

// Items 6, 8 and 18: the name column is dragged wider (no pan), names keep their end,
// counter tracks say their value under the mouse, the ruler tells absolute time.
TEST(FirstHourViews, TimelineNameColumnHoverValuesAndRuler) {
    ts::test::ensureQtApp();
    QSettings().remove("timeline/gutterWidth");
    const auto path = ts::test::tempDir("fh_canvas") / "s.tscope";
    ts::test::writeTimelineFixture(path);
    auto m = loadTimelineModel(path.string());
    ASSERT_TRUE(m.ok());
    TimelineCanvas canvas;
    canvas.resize(900, 400);
    canvas.show();
    canvas.setModel(m.value());
    const double start = canvas.axis().start();
    const int edge = canvas.gutterWidth();
    QTest::mousePress(&canvas, Qt::LeftButton, {}, QPoint(edge, 120));
    QMouseEvent move(QEvent::MouseMove, QPointF(edge + 120, 120), QPointF(edge + 120, 120),
                     Qt::LeftButton, Qt::LeftButton, {});
    QApplication::sendEvent(&canvas, &move);
    QTest::mouseRelease(&canvas, Qt::LeftButton, {}, QPoint(edge + 120, 120));
    EXPECT_EQ(canvas.gutterWidth(), edge + 120);
    EXPECT_DOUBLE_EQ(canvas.axis().start(), start);  // resized, not panned
    EXPECT_EQ(QSettings().value("timeline/gutterWidth").toInt(), edge + 120);
    TimelineCanvas again;  // the width is kept
    EXPECT_EQ(again.gutterWidth(), edge + 120);
    QSettings().remove("timeline/gutterWidth");

    const QFontMetrics fm(canvas.font());
    const QString elided = TimelinePainter::elideName(
        fm, QStringLiteral("rank0.1623143089861.pt.trace: python3 (25738) \u00b7 GPU 0"), 160);
    EXPECT_TRUE(elided.endsWith("GPU 0")) << elided.toStdString();

    // The counter "mem": 1 from 0 ns, 3 from 50 ns; hover at ~80 ns.
    const int counter = trackNamed(*m.value(), "mem");
    ASSERT_GE(counter, 0);
    const int y = TimelineFrame{}.rulerHeight + canvas.layout().levelY(counter, 0) + 5;
    const int x = canvas.gutterWidth() + static_cast<int>(canvas.axis().xOf(80));
    const QString hover = canvas.hoverText(QPoint(x, y));
    EXPECT_TRUE(hover.startsWith("mem: 3")) << hover.toStdString();
    EXPECT_FALSE(hover.contains("e+")) << hover.toStdString();

    TimelineFrame f;
    auto unixModel = std::make_shared<TimelineModel>(*m.value());
    unixModel->originNs = 1'790'857'026'000'000'000;  // 2026-10-02 in Unix time
    TimeAxis axis;
    axis.reset(0, 1000, 600);
    f.model = unixModel.get();
    f.axis = &axis;
    EXPECT_TRUE(TimelinePainter::absoluteTimeText(f).startsWith("from 2026-"))
        << TimelinePainter::absoluteTimeText(f).toStdString();
}

// Item 10: real problems loudly (a list by reason and file position), expected skips quietly.
TEST(FirstHourViews, ImportProblemsByReasonAndFilePosition) {
    ts::test::ensureQtApp();
    const std::string path = emptySession("fh_problems");
    {
        auto s = ts::store::TraceStore::open(path, ts::store::TraceStore::Mode::ReadWrite).value();
        const int64_t src = s->beginSource("/data/worker0.pt.trace.json", "chrome_json").value();
        {
            ts::store::StoreWriter w(*s, src);
            for (int i = 0; i < 40; ++i)
                w.logProblem("json_flow_without_start", -1, "f", "flow end without start");
            w.logProblem("json_unmatched_end", 4242, "E", "'E' with no 'B' open");
            w.logProblem("json_unmatched_end", 1717, "E", "'E' with no 'B' open");
            ASSERT_TRUE(w.flush().ok());
        }
        ts::store::SourceSummary sum;
        sum.status = ts::store::SourceStatus::Complete;
        ASSERT_TRUE(s->finishSource(src, sum).ok());
    }
    SessionContext ctx;
    SessionSidebar sidebar(&ctx);
    QSignalSpy loaded(&sidebar, &SessionSidebar::overviewLoaded);
    ctx.setSessionPath(QString::fromStdString(path));
    ASSERT_TRUE(loaded.wait(10000));
    QTreeWidgetItem *problems = nullptr, *expected = nullptr;
    for (int i = 0; i < sidebar.topLevelItemCount(); ++i) {
        QTreeWidgetItem* t = sidebar.topLevelItem(i);
        if (t->text(0).contains("import problem")) problems = t;
        if (t->text(0).contains("expected skip")) expected = t;
    }
    ASSERT_NE(problems, nullptr);
    ASSERT_NE(expected, nullptr);
    EXPECT_TRUE(problems->text(0).startsWith("2 import problem"))
        << problems->text(0).toStdString();
    EXPECT_TRUE(problems->font(0).bold());
    EXPECT_TRUE(expected->text(0).startsWith("40 expected skip"));
    EXPECT_FALSE(expected->font(0).bold());
    QSignalSpy views(&ctx, &SessionContext::viewRequested);
    emit sidebar.itemClicked(problems, 0);  // a single click opens the list
    ASSERT_EQ(views.count(), 1);
    EXPECT_EQ(views.at(0).at(0).toString(), "problems");

    ProblemsView view(&ctx);
    QSignalSpy records(&view, &ProblemsView::recordsLoaded);
    ASSERT_TRUE(records.wait(10000));
    ASSERT_EQ(view.groups()->topLevelItemCount(), 1);  // the expected skips are not listed
    EXPECT_EQ(view.groups()->topLevelItem(0)->text(1), "json_unmatched_end");
    EXPECT_FALSE(view.groups()->topLevelItem(0)->text(3).isEmpty());  // what it means
    ASSERT_EQ(view.records()->rowCount(), 2);
    EXPECT_EQ(view.records()->item(0, 0)->text(),
              QStringLiteral("byte %L1").arg(1717));  // in file order
    EXPECT_EQ(view.records()->item(1, 0)->text(), QStringLiteral("byte %L1").arg(4242));
    view.expectedBox()->setChecked(true);
    EXPECT_EQ(view.groups()->topLevelItemCount(), 2);
}

// Item 11: two traces on unrelated clocks: the timeline says so and aligns them on request;
// the choice shows on the source's track header.
TEST(FirstHourViews, UnrelatedClocksAreDetectedAndAligned) {
    ts::test::ensureQtApp();
    const std::string path = emptySession("fh_clock");
    {
        auto s = ts::store::TraceStore::open(path, ts::store::TraceStore::Mode::ReadWrite).value();
        for (int64_t base : {int64_t{1'790'857'026'000'000'000}, int64_t{0}}) {
            const int64_t src =
                s->beginSource(base ? "kineto.json" : "legacy.json", "chrome_json").value();
            {
                ts::store::StoreWriter w(*s, src);
                const int64_t p = w.addProcess("1", "python3");
                const int64_t t = w.addTrack("thread", p, w.addThread(p, "1", "main"), "");
                w.addSlice({t, base + 100, 5000, 0, w.intern("step"), 0, 0, 0});
                ASSERT_TRUE(w.flush().ok());
            }
            ts::store::SourceSummary sum;
            sum.status = ts::store::SourceStatus::Complete;
            ASSERT_TRUE(s->finishSource(src, sum).ok());
        }
    }
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(path));
    TimelineView view(&ctx);
    view.resize(1000, 600);
    view.show();
    ASSERT_TRUE(QTest::qWaitFor([&] { return view.canvas()->model() != nullptr; }, 10000));
    EXPECT_TRUE(view.clockBar()->isVisible());
    EXPECT_TRUE(view.clockLabel()->text().contains("unrelated clocks"))
        << view.clockLabel()->text().toStdString();
    EXPECT_GT(view.canvas()->model()->endNs - view.canvas()->model()->startNs,
              int64_t{1'000'000'000'000'000});
    view.alignAllToFirstEvent();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return view.canvas()->model() && !view.canvas()->model()->alignments.empty(); },
        10000));
    const TimelineModel& m = *view.canvas()->model();
    EXPECT_EQ(m.endNs - m.startNs, 5000);  // the two traces side by side
    bool shown = false;
    for (const TrackGroup& g : m.groups)
        shown |= g.alignment.find("first event") != std::string::npos;
    EXPECT_TRUE(shown);
    EXPECT_TRUE(view.clockLabel()->text().contains("aligned"));
}

// Item 13: empty views say what would fill them, with buttons that do it.
TEST(FirstHourViews, EmptyViewsSayWhatToDo) {
    ts::test::ensureQtApp();
    const std::string path = emptySession("fh_empty");
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(path));
    QSignalSpy actions(&ctx, &SessionContext::actionRequested);

    TimelineView timeline(&ctx);
    timeline.show();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return timeline.emptyState()->isVisible() && ctx.jobs()->idle(); }, 10000));
    EXPECT_TRUE(timeline.emptyState()->text().contains("torch.profiler"));
    EXPECT_TRUE(timeline.emptyState()->buttonTexts().contains("Open the demo"));
    ASSERT_TRUE(timeline.emptyState()->click("Launch a script with the profiler on…"));
    ASSERT_EQ(actions.count(), 1);
    EXPECT_EQ(actions.at(0).at(0).toString(), "launch-profiled");

    StepsView steps(&ctx);
    steps.QWidget::show();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return steps.emptyState()->isVisible() && ctx.jobs()->idle(); }, 10000));
    EXPECT_TRUE(steps.emptyState()->title().contains("No profile"));
    EXPECT_FALSE(steps.emptyState()->text().contains("kind"));  // no schema words
    EXPECT_TRUE(steps.emptyState()->click("Open a PyTorch trace…"));
    EXPECT_EQ(actions.last().at(0).toString(), "open");

    StatsView stats(&ctx);
    stats.show();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return stats.emptyState()->isVisible() && ctx.jobs()->idle(); }, 10000));
    EXPECT_TRUE(stats.emptyState()->buttonTexts().contains("Open a trace…"));
}

// Item 14: a run is renamed; a typo'd program leaves a run that says so and goes with a click.
TEST(FirstHourViews, RunsRenamedAndAJunkRunRemoved) {
    ts::test::ensureQtApp();
    const std::string path = emptySession("fh_runs");
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(path));
    TrainingView view(&ctx);
    QString error;
    QSignalSpy finished(&view, &TrainingView::runFinished);
    ASSERT_TRUE(view.startCommand(
        QStringLiteral("{\"program\":\"pythn3-no-such-program\",\"args\":[\"train.py\"],"
                       "\"python_hooks\":false}"),
        &error))
        << error.toStdString();
    ASSERT_TRUE(finished.wait(30000));
    EXPECT_TRUE(view.message().startsWith("Nothing ran")) << view.message().toStdString();
    EXPECT_FALSE(view.removeJunkButton()->isHidden());
    ASSERT_TRUE(QTest::qWaitFor([&] { return view.runs()->rowCount() == 1; }, 10000));
    EXPECT_EQ(view.runs()->at(0).name, "train.py #1");  // by script and counter
    view.removeJunkButton()->click();
    ASSERT_TRUE(QTest::qWaitFor([&] { return view.runs()->rowCount() == 0; }, 10000));
    EXPECT_TRUE(view.removeJunkButton()->isHidden());

    ASSERT_TRUE(view.startCommand(
        QStringLiteral(
            "{\"program\":\"sh\",\"args\":[\"-c\",\"echo hello\"],\"python_hooks\":false}"),
        &error))
        << error.toStdString();
    ASSERT_TRUE(finished.wait(30000));
    // No trace appeared: where the run looked is said (item 16).
    EXPECT_TRUE(view.message().contains("no trace appeared")) << view.message().toStdString();
    ASSERT_TRUE(QTest::qWaitFor([&] { return view.runs()->rowCount() == 1; }, 10000));
    const qint64 id = view.runs()->at(0).id;
    view.renameRun(id, QStringLiteral("baseline"));
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return view.runs()->rowCount() == 1 && view.runs()->at(0).name == "baseline"; },
        10000));
}

// Item 17: Enter zooms to a match, the matches are marked when zoomed out, Esc clears.
TEST(FirstHourViews, SearchZoomsMarksAndClears) {
    ts::test::ensureQtApp();
    const auto path = ts::test::tempDir("fh_search") / "s.tscope";
    ts::test::writeTimelineFixture(path);
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(path.string()));
    TimelineView view(&ctx);
    view.resize(1000, 600);
    view.show();
    ASSERT_TRUE(QTest::qWaitFor([&] { return view.canvas()->model() != nullptr; }, 10000));
    view.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&view));
    view.focusSearch();
    EXPECT_TRUE(QTest::qWaitFor([&] { return view.searchBox()->hasFocus(); }, 2000));
    view.searchBox()->setText("relu");
    view.runSearch();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return view.searchResults() && !view.searchResults()->matches.empty(); }, 10000));
    // Zoomed out, the match (20 ns of 250) has its mark on the ruler.
    QImage img(view.canvas()->size(), QImage::Format_RGB32);
    {
        QPainter p(&img);
        view.canvas()->render(p, img.size());
    }
    int marks = 0;
    const int rulerBottom = TimelineFrame{}.rulerHeight - 3;
    for (int x = view.canvas()->gutterWidth(); x < img.width(); ++x)
        marks += QColor(img.pixel(x, rulerBottom)) == QColor(230, 150, 0) ? 1 : 0;
    EXPECT_GT(marks, 0);
    QTest::keyClick(view.searchBox(), Qt::Key_Return);  // the next match, zoomed to
    const double span = view.canvas()->axis().end() - view.canvas()->axis().start();
    EXPECT_LT(span, 100.0);  // aten::relu is 20 ns: about three times that is shown
    EXPECT_GT(span, 20.0);
    QTest::keyClick(view.searchBox(), Qt::Key_Escape);
    EXPECT_TRUE(view.searchBox()->text().isEmpty());
    EXPECT_EQ(view.searchResults(), nullptr);
}

// Item 18: the first divergent pair is a link, failures can be shown alone, A − B is plotted.
TEST(FirstHourViews, CompareLinkFailuresOnlyAndDifference) {
    ts::test::ensureQtApp();
    const auto dir = ts::test::tempDir("fh_compare");
    auto write = [&](const std::string& name, float scale) {
        ts::debug::DumpWriter w;
        EXPECT_TRUE(w.open((dir / name).string()).ok());
        std::vector<float> same(64, 1.0f), diff(64, 1.0f);
        for (size_t i = 0; i < diff.size(); ++i) diff[i] = static_cast<float>(i) * scale;
        ts::debug::DumpTensorAttrs at{"Linear", "model/fc", 1, 1700000000.5, 0};
        EXPECT_TRUE(
            w.writeTensor("fc", 0, "input", 0, ts::debug::DumpDType::F32, {64}, same.data(), at)
                .ok());
        at.globalSeq = 1;
        EXPECT_TRUE(
            w.writeTensor("fc", 0, "output", 0, ts::debug::DumpDType::F32, {64}, diff.data(), at)
                .ok());
        EXPECT_TRUE(w.close().ok());
        return QString::fromStdString((dir / name).string());
    };
    const QString a = write("a.h5", -1.0f), b = write("b.h5", 1.0f);
    SessionContext ctx;
    CompareView view(&ctx);
    view.resize(1200, 800);
    view.show();
    QSignalSpy compared(&view, &CompareView::compared);
    view.compare(a, b);
    ASSERT_TRUE(compared.wait(20000));
    ASSERT_EQ(view.model()->rowCount(), 2);
    EXPECT_TRUE(view.summaryLabel()->text().contains("href='first-divergent'"));
    view.failuresOnlyBox()->setChecked(true);
    EXPECT_TRUE(view.table()->isRowHidden(0));  // the input passes
    EXPECT_FALSE(view.table()->isRowHidden(1));
    QSignalSpy views(&ctx, &SessionContext::viewRequested);
    QSignalSpy shown(&view, &CompareView::differenceShown);
    emit view.summaryLabel()->linkActivated(QStringLiteral("first-divergent"));
    ASSERT_EQ(views.count(), 1);
    EXPECT_EQ(views.at(0).at(0).toString(), "hdf5");
    ASSERT_TRUE(shown.wait(10000) || shown.count() > 0);
    EXPECT_TRUE(view.differenceLabel()->text().contains("max |A − B| 126"))
        << view.differenceLabel()->text().toStdString();
    ASSERT_EQ(view.differencePlot()->graphCount(), 1);
    EXPECT_EQ(view.differencePlot()->graph(0)->dataCount(), 64);
}

// Item 20: Run with the editor empty runs the example it shows; the tables are listed.
TEST(FirstHourViews, SqlExampleRunsAndTablesAreListed) {
    ts::test::ensureQtApp();
    const auto path = ts::test::tempDir("fh_sql") / "s.tscope";
    ts::test::writeTimelineFixture(path);
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(path.string()));
    QueryView view(&ctx);
    QSignalSpy tables(&view, &QueryView::tablesLoaded);
    ASSERT_TRUE(tables.wait(10000) || view.tableBrowser()->topLevelItemCount() > 0);
    QTreeWidgetItem* slices = nullptr;
    for (int i = 0; i < view.tableBrowser()->topLevelItemCount(); ++i)
        if (view.tableBrowser()->topLevelItem(i)->text(0) == "slices")
            slices = view.tableBrowser()->topLevelItem(i);
    ASSERT_NE(slices, nullptr);
    QStringList columns;
    for (int c = 0; c < slices->childCount(); ++c) columns << slices->child(c)->text(0);
    EXPECT_TRUE(columns.contains("dur")) << columns.join(",").toStdString();
    QSignalSpy finished(&view, &QueryView::finished);
    ASSERT_TRUE(view.sqlEdit()->toPlainText().isEmpty());
    view.runButton()->click();
    ASSERT_TRUE(finished.wait(10000));
    EXPECT_FALSE(view.sqlEdit()->toPlainText().isEmpty());  // the example, now in the editor
    EXPECT_GT(view.resultModel()->rowCount(), 0) << view.statusLabel()->text().toStdString();
    emit view.tableBrowser()->itemActivated(slices, 0);  // a table: its first rows
    ASSERT_TRUE(finished.wait(10000));
    EXPECT_TRUE(view.sqlEdit()->toPlainText().startsWith("SELECT * FROM slices"));
}
