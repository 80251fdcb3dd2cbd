// The Diff view offscreen: A and B picked from the open session, the op table (model checked
// with QAbstractItemModelTester, sorting, filter, class tints), the paired split bars, both
// timelines zoomed to an op on one time scale with the aligned pairs linked, and errors.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>

#include "core/timeline/timeline_model.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "tests/diff/diff_fixture.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/diff/diff_link_strip.h"
#include "views/diff/diff_side_picker.h"
#include "views/diff/diff_split_plot.h"
#include "views/diff/diff_table_model.h"
#include "views/diff/diff_timelines.h"
#include "views/diff/diff_view.h"
#include "views/diff/diff_view_info.h"
#include "views/diff/session_registry.h"
#include "views/diff/source_timeline.h"
#include "views/timeline/timeline_canvas.h"

using ts::analysis::OpChange;
using ts::test::DiffProfileSpec;

namespace {

std::filesystem::path pairSession(const std::string& tag) {
    const auto path = ts::test::tempDir(tag) / "s.tscope";
    DiffProfileSpec a;
    a.label = "a";
    a.ops = {{"Conv2D", 400}, {"BiasAdd", 50}, {"ReLU", 60}, {"MatMul", 300}, {"Softmax", 40}};
    a.kernels = true;
    DiffProfileSpec b = a;
    b.label = "b";
    b.ops[3].dur = 900;
    b.ops.insert(b.ops.begin() + 2, {"Dropout", 100});
    ts::test::writeDiffProfile(path, a);
    ts::test::writeDiffProfile(path, b);
    return path;
}

int rowNamed(const DiffTableModel* m, const std::string& name) {
    for (size_t i = 0; i < m->rows().size(); ++i)
        if (m->rows()[i].name == name) return static_cast<int>(i);
    return -1;
}

}  // namespace

TEST(DiffView, TableSplitAndAlignedTimelines) {
    ts::test::ensureQtApp();
    const auto path = pairSession("diff_view");
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(path.string()));
    const ViewInfo info = diffViewInfo();
    EXPECT_EQ(info.name, "diff");
    std::unique_ptr<QWidget> w(info.create(&ctx, nullptr));
    auto* view = qobject_cast<DiffView*>(w.get());
    ASSERT_NE(view, nullptr);
    w->resize(1400, 900);
    w->show();
    QSignalSpy shown(view->timelines(), &DiffTimelines::shown);
    QTRY_VERIFY_WITH_TIMEOUT(view->diff() != nullptr, 15000);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1, 15000);
    QTRY_VERIFY(ctx.jobs()->idle());
    // Defaults: the open session's two profiles, the older as A. (Sessions other tests of
    // this binary opened stay listed too: the registry is the window's, one per process.)
    const QString open = QFileInfo(QString::fromStdString(path.string())).absoluteFilePath();
    size_t ofOpen = 0;
    for (const auto& e : view->picker()->entries()) ofOpen += e.path == open;
    ASSERT_EQ(ofOpen, 2u);
    EXPECT_EQ(view->diff()->a.label, "a");
    EXPECT_EQ(view->diff()->b.label, "b");
    EXPECT_TRUE(view->summary()->text().contains("MatMul"));

    // The op table: every model rule holds; the biggest change first, tinted by class.
    QAbstractItemModelTester tester(view->model(),
                                    QAbstractItemModelTester::FailureReportingMode::Warning);
    const auto* m = view->model();
    ASSERT_GE(m->rowCount(), 10);
    EXPECT_EQ(m->data(m->index(0, DiffTableModel::Op)).toString(), "MatMul");
    EXPECT_EQ(m->data(m->index(0, DiffTableModel::Class)).toString(), "slower");
    EXPECT_EQ(m->data(m->index(0, DiffTableModel::Ratio)).toString(), QStringLiteral("×3.00"));
    EXPECT_EQ(m->data(m->index(0, DiffTableModel::Delta)).toString(), "+600 ns");
    EXPECT_TRUE(m->data(m->index(0, DiffTableModel::Class), Qt::BackgroundRole).isValid());
    const int unchanged = rowNamed(m, "Conv2D");
    ASSERT_GE(unchanged, 0);
    EXPECT_FALSE(m->data(m->index(unchanged, 0), Qt::BackgroundRole).isValid());
    // Sorted by |change| (the view's default), then by name on request; the filter.
    auto* proxy = view->proxy();
    EXPECT_EQ(proxy->data(proxy->index(0, DiffTableModel::Op)).toString(), "MatMul");
    view->table()->sortByColumn(DiffTableModel::Op, Qt::AscendingOrder);
    EXPECT_EQ(proxy->data(proxy->index(0, DiffTableModel::Op)).toString(), "BiasAdd");
    proxy->setFilterFixedString(QStringLiteral("added"));
    EXPECT_EQ(proxy->rowCount(), 2);  // Dropout and its kernel
    proxy->setFilterFixedString(QString());

    // The split as paired bars, one pair per part.
    EXPECT_EQ(view->splitPlot()->barsA()->data()->size(),
              static_cast<int>(view->diff()->split.size()));

    // Timelines: the largest change shown at once, one time scale, pairs linked.
    auto* tl = view->timelines();
    ASSERT_NE(tl->canvasA()->model(), nullptr);
    ASSERT_NE(tl->canvasB()->model(), nullptr);
    EXPECT_EQ(tl->focusPair(), view->diff()->aligned.firstPairNamed("MatMul"));
    EXPECT_TRUE(tl->canvasA()->selectedSlice().valid());
    EXPECT_TRUE(tl->canvasB()->selectedSlice().valid());
    EXPECT_EQ(tl->canvasA()->model()->name(tl->canvasA()->selectedSlice()), "MatMul");
    EXPECT_NEAR(tl->canvasA()->axis().nsPerPixel(), tl->canvasB()->axis().nsPerPixel(), 1e-9);
    // Each side shows only its own source's tracks (both live in one session).
    EXPECT_EQ(tl->canvasA()->model()->tracks.size(), 2u);
    QApplication::processEvents();
    tl->links()->repaint();
    ASSERT_FALSE(tl->links()->links().empty());
    bool focus = false;
    for (const auto& l : tl->links()->links()) focus |= l.focus;
    EXPECT_TRUE(focus);
    // Zoom A: B follows on the same scale, kept on the aligned op.
    const auto& al = view->diff()->aligned;
    const auto& pair = al.pairs[static_cast<size_t>(tl->focusPair())];
    const double opA =
        static_cast<double>(al.ops[0][pair.first].ts - tl->canvasA()->model()->originNs);
    const double opB =
        static_cast<double>(al.ops[1][pair.second].ts - tl->canvasB()->model()->originNs);
    tl->canvasA()->zoomTo(opA - 500, opA + 1500);
    EXPECT_NEAR(tl->canvasA()->axis().nsPerPixel(), tl->canvasB()->axis().nsPerPixel(), 1e-6);
    EXPECT_NEAR(tl->canvasB()->axis().start() - tl->canvasA()->axis().start(), opB - opA, 1e-3);

    // An op only B has: B shows it, A shows where it would run.
    view->showRow(rowNamed(m, "Dropout"));
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 2, 15000);
    EXPECT_TRUE(tl->status()->text().contains("only in B")) << tl->status()->text().toStdString();
    EXPECT_EQ(tl->canvasB()->model()->name(tl->canvasB()->selectedSlice()), "Dropout");
    EXPECT_FALSE(tl->canvasA()->selectedSlice().valid());

    // Two steps of one profile: picked in the bar, compared again.
    QSignalSpy compared(view, &DiffView::compared);
    view->picker()->select(1, 1, 1, 2);
    QTRY_VERIFY_WITH_TIMEOUT(compared.count() >= 1, 15000);
    ASSERT_NE(view->diff(), nullptr);
    EXPECT_EQ(view->diff()->a.alignedStep, 1);
    EXPECT_EQ(view->diff()->b.alignedStep, 2);
    EXPECT_TRUE(view->summary()->text().contains("within the noise band"));
    QTRY_VERIFY(ctx.jobs()->idle());
}

TEST(DiffView, SessionWithoutProfileSaysSo) {
    ts::test::ensureQtApp();
    const auto path = ts::test::tempDir("diff_view_empty") / "e.tscope";
    { auto st = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::Create); }
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(path.string()));
    DiffView view(&ctx);
    view.show();
    QTRY_VERIFY_WITH_TIMEOUT(view.summary()->text().contains("No profile to compare"), 15000);
    EXPECT_EQ(view.diff(), nullptr);
    QTRY_VERIFY(ctx.jobs()->idle());
}

TEST(DiffView, SourceTimelineKeepsOneSource) {
    ts::timeline::TimelineModel m;
    for (int k = 0; k < 3; ++k) {
        ts::timeline::TimelineTrack t;
        t.id = k + 1;
        t.sourceId = k < 2 ? 1 : 2;
        ts::timeline::SliceLevel lv;
        lv.ts = {100 * (k + 1)};
        lv.dur = {50};
        lv.name = {0};
        lv.sliceId = {k + 10};
        t.levels.push_back(lv);
        t.sliceCount = 1;
        m.tracks.push_back(t);
    }
    m.groups.push_back({1, 1, "p1", {0, 1}});
    m.groups.push_back({2, 2, "p2", {2}});
    m.flows.push_back({{0, 0, 0}, {1, 0, 0}});
    m.flowLo.push_back(100);
    m.flows.push_back({{1, 0, 0}, {2, 0, 0}});
    m.flowLo.push_back(200);
    const auto one = sourceTimeline(m, 1);
    EXPECT_EQ(one->tracks.size(), 2u);
    ASSERT_EQ(one->groups.size(), 1u);
    EXPECT_EQ(one->flows.size(), 1u);
    EXPECT_EQ(one->startNs, 100);
    EXPECT_EQ(one->endNs, 250);
    const auto two = sourceTimeline(m, 2);
    ASSERT_EQ(two->tracks.size(), 1u);
    EXPECT_EQ(two->groups[0].tracks, std::vector<int>{0});
    EXPECT_EQ(two->find(12).track, 0);
}

TEST(DiffView, SessionsOpenedBeforeAreListedAndCompared) {
    ts::test::ensureQtApp();
    const auto dir = ts::test::tempDir("diff_view_two");
    DiffProfileSpec a;
    a.label = "before";
    a.ops = {{"Conv2D", 400}, {"MatMul", 300}};
    DiffProfileSpec b = a;
    b.label = "after";
    b.ops[1].dur = 600;
    ts::test::writeDiffProfile(dir / "before.tscope", a);
    ts::test::writeDiffProfile(dir / "after.tscope", b);
    // As `trainscope before.tscope after.tscope --view diff`: both registered, the last open.
    SessionRegistry::instance()->add(QString::fromStdString((dir / "before.tscope").string()));
    SessionRegistry::instance()->add(QString::fromStdString((dir / "after.tscope").string()));
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString((dir / "after.tscope").string()));
    DiffView view(&ctx);
    view.resize(1200, 800);
    view.show();
    QTRY_VERIFY_WITH_TIMEOUT(view.diff() != nullptr && view.diff()->b.label == "after", 15000);
    EXPECT_EQ(view.diff()->a.label, "before");
    EXPECT_EQ(view.model()->rows().front().name, "MatMul");
    EXPECT_EQ(view.model()->rows().front().change, OpChange::Slower);
    QTRY_VERIFY(ctx.jobs()->idle());
}
