// The timeline offscreen: layout math, painting, selection -> details, flows as links,
// search with next/previous, area aggregation, zoom requests from the session context.
#include <gtest/gtest.h>

#include <QApplication>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include "core/timeline/timeline_model.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "tests/timeline/timeline_fixture.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/timeline/slice_details_panel.h"
#include "views/timeline/timeline_canvas.h"
#include "views/timeline/timeline_layout.h"
#include "views/timeline/timeline_view.h"
#include "views/timeline/timeline_view_info.h"

using namespace ts::timeline;

namespace {

int trackIndex(const TimelineModel& m, int64_t id) {
    for (size_t i = 0; i < m.tracks.size(); ++i)
        if (m.tracks[i].id == id) return static_cast<int>(i);
    return -1;
}

class TimelineViewTest : public ::testing::Test {
protected:
    void SetUp() override {
        ts::test::ensureQtApp();
        path = ts::test::tempDir("tl_view") / "s.tscope";
        ids = ts::test::writeTimelineFixture(path);
    }
    std::filesystem::path path;
    ts::test::TimelineFixtureIds ids;
};

TEST_F(TimelineViewTest, LayoutRowsHitsAndCollapse) {
    auto m = loadTimelineModel(path.string());
    ASSERT_TRUE(m.ok());
    const TimelineModel& model = *m.value();
    TimelineLayout layout;
    layout.build(model, {});
    ASSERT_EQ(layout.rows().size(), 5u);  // 2 headers + 3 tracks
    EXPECT_TRUE(layout.rows()[0].header);
    const int thread = trackIndex(model, ids.threadTrack);
    const int y = layout.levelY(thread, 2);
    ASSERT_GE(y, 0);
    const auto hit = layout.hitAt(y + 3);
    EXPECT_EQ(hit.track, thread);
    EXPECT_EQ(hit.level, 2);
    EXPECT_FALSE(hit.header);
    EXPECT_TRUE(layout.hitAt(1).header);
    EXPECT_EQ(layout.hitAt(layout.totalHeight() + 50).row, -1);
    const auto between = layout.tracksBetween(0, layout.totalHeight());
    EXPECT_EQ(between.size(), 3u);
    layout.build(model, {1});  // fold "python"
    EXPECT_EQ(layout.rows().size(), 3u);
    EXPECT_EQ(layout.levelY(thread, 0), -1);
}

TEST_F(TimelineViewTest, LoadsPaintsAndSelectsWithDetails) {
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(path.string()));
    auto info = timelineViewInfo();
    EXPECT_EQ(info.name, "timeline");
    EXPECT_TRUE(info.openByDefault);
    std::unique_ptr<QWidget> w(info.create(&ctx, nullptr));
    auto* view = qobject_cast<TimelineView*>(w.get());
    ASSERT_NE(view, nullptr);
    view->resize(1200, 800);
    view->show();
    QTRY_VERIFY_WITH_TIMEOUT(view->canvas()->model() != nullptr, 10000);
    QTRY_VERIFY(ctx.jobs()->idle());
    TimelineCanvas* canvas = view->canvas();
    const TimelineModel& m = *canvas->model();
    EXPECT_EQ(m.sliceCount, 9);

    // Paint offscreen and find ProfilerStep#1 drawn where the layout says.
    QImage img(canvas->size(), QImage::Format_RGB32);
    {
        QPainter p(&img);
        canvas->render(p, img.size());
    }
    const int thread = trackIndex(m, ids.threadTrack);
    const int x = canvas->gutterWidth() + static_cast<int>(canvas->axis().xOf(95));
    const int y = TimelineFrame{}.rulerHeight + canvas->layout().levelY(thread, 0) +
                  TimelineLayout::kLevelHeight / 2;
    ASSERT_TRUE(img.rect().contains(x, y));
    EXPECT_NE(img.pixel(x, y), QColor(0xfa, 0xfa, 0xfa).rgb());
    EXPECT_FALSE(view->grab().isNull());

    // Selecting through the context selects in the canvas and shows the details.
    ctx.selectSlice(ids.linear1);
    QTRY_VERIFY(view->detailsPanel()->toPlainText().contains("aten::linear"));
    QTRY_VERIFY(ctx.jobs()->idle());
    EXPECT_EQ(m.sliceId(canvas->selectedSlice()), ids.linear1);
    EXPECT_TRUE(view->detailsPanel()->toPlainText().contains("Self time"));
    EXPECT_TRUE(view->detailsPanel()->toPlainText().contains("Input Dims"));

    // A click on a slice selects it and is published through the context.
    QSignalSpy selected(&ctx, &SessionContext::sliceSelected);
    canvas->showAll();
    const SliceRef relu = m.find(ids.relu);
    const int rx = canvas->gutterWidth() + static_cast<int>(canvas->axis().xOf(220));
    const int ry =
        TimelineFrame{}.rulerHeight + canvas->layout().levelY(relu.track, relu.level) - 0 + 5;
    QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, QPoint(rx, ry));
    ASSERT_EQ(selected.count(), 1);
    EXPECT_EQ(selected.at(0).at(0).toLongLong(), ids.relu);
    QTRY_VERIFY(view->detailsPanel()->toPlainText().contains("aten::relu"));

    // Flows are links that select the other end.
    ctx.selectSlice(ids.addmm);
    QTRY_VERIFY(view->detailsPanel()->toPlainText().contains("Flows out"));
    QTRY_VERIFY(ctx.jobs()->idle());
    emit view->detailsPanel()->sliceLinkActivated(ids.gemm1);
    QTRY_VERIFY(m.sliceId(canvas->selectedSlice()) == ids.gemm1);
    QTRY_VERIFY(view->detailsPanel()->toPlainText().contains("Flows in"));
}

TEST_F(TimelineViewTest, SearchAreaZoomAndKeys) {
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(path.string()));
    TimelineView view(&ctx);
    view.resize(1000, 700);
    view.show();
    QTRY_VERIFY_WITH_TIMEOUT(view.canvas()->model() != nullptr, 10000);
    TimelineCanvas* canvas = view.canvas();
    const TimelineModel& m = *canvas->model();

    view.searchBox()->setText("aten");
    view.runSearch();
    QTRY_COMPARE(view.matchLabel()->text(), QString("4 matches"));
    view.nextMatch();
    EXPECT_EQ(view.matchLabel()->text(), QString("1 / 4"));
    EXPECT_EQ(m.sliceId(canvas->selectedSlice()), ids.linear1);
    view.nextMatch();
    EXPECT_EQ(m.sliceId(canvas->selectedSlice()), ids.addmm);
    view.previousMatch();
    view.previousMatch();
    EXPECT_EQ(view.matchLabel()->text(), QString("4 / 4"));
    view.searchBox()->setText("(");
    QTest::mouseClick(view.searchBox(), Qt::LeftButton);  // regex off: "(" is plain text
    view.runSearch();
    QTRY_COMPARE(view.matchLabel()->text(), QString("0 matches"));

    // Area selection: aggregate table and a time-range request for the other views.
    QTRY_VERIFY(ctx.jobs()->idle());
    QSignalSpy ranges(&ctx, &SessionContext::timeRangeRequested);
    canvas->showAll();
    const double span = canvas->axis().end() - canvas->axis().start();
    canvas->selectArea({trackIndex(m, ids.threadTrack)}, 0, 60);
    QTRY_COMPARE(view.aggregateTable()->rowCount(), 3);
    ASSERT_EQ(ranges.count(), 1);
    EXPECT_EQ(ranges.at(0).at(1).toLongLong(), 60);
    EXPECT_DOUBLE_EQ(canvas->axis().end() - canvas->axis().start(), span);  // own request ignored
    EXPECT_TRUE(canvas->zoomToArea());
    EXPECT_LT(canvas->axis().end() - canvas->axis().start(), 80);

    // Requests from elsewhere zoom the timeline.
    ctx.requestTimeRange(200, 250);
    EXPECT_LE(canvas->axis().start(), 200);
    EXPECT_GE(canvas->axis().end(), 250);
    EXPECT_LT(canvas->axis().end() - canvas->axis().start(), 80);

    // Keys: W zooms in, S out, A/D pan, 0 shows all, F frames the selection.
    canvas->setFocus();
    const double npp = canvas->axis().nsPerPixel();
    QTest::keyClick(canvas, Qt::Key_S);
    EXPECT_GT(canvas->axis().nsPerPixel(), npp);
    QTest::keyClick(canvas, Qt::Key_W);
    EXPECT_NEAR(canvas->axis().nsPerPixel(), npp, npp * 1e-9);
    const double start = canvas->axis().start();
    QTest::keyClick(canvas, Qt::Key_D);
    EXPECT_GT(canvas->axis().start(), start);
    QTest::keyClick(canvas, Qt::Key_0);
    EXPECT_LE(canvas->axis().start(), 0);
    canvas->selectSlice(m.find(ids.addmm));
    QTest::keyClick(canvas, Qt::Key_F);
    EXPECT_LT(canvas->axis().end() - canvas->axis().start(), 20);

    // A click on a process header folds it.
    const size_t rows = canvas->layout().rows().size();
    QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier,
                      QPoint(50, TimelineFrame{}.rulerHeight + 5));
    EXPECT_LT(canvas->layout().rows().size(), rows);
    QTRY_VERIFY(ctx.jobs()->idle());
}

TEST_F(TimelineViewTest, BadSessionShowsAnError) {
    const auto bad = ts::test::tempDir("tl_view_bad") / "bad.tscope";
    {
        std::FILE* f = std::fopen(bad.string().c_str(), "wb");
        std::fputs("garbage garbage garbage garbage garbage garbage garbage garbage", f);
        std::fclose(f);
    }
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(bad.string()));
    TimelineView view(&ctx);
    QTRY_VERIFY(view.statusLabel()->text().startsWith("Cannot load"));
    EXPECT_EQ(view.canvas()->model(), nullptr);
    EXPECT_FALSE(view.grab().isNull());
}

}  // namespace
