// The Step view offscreen: stacked bars per step with the figures of the analysis, flags,
// the source chooser, and a bar click that zooms the timeline to the step.
#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <QApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>

#include "tests/analysis/profile_fixture.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "views/common/job_tracker.h"
#include "views/common/profile_source_box.h"
#include "views/common/session_context.h"
#include "views/steps/steps_view.h"
#include "views/steps/steps_view_info.h"

TEST(StepsView, StackedBarsFlagsAndClick) {
    ts::test::ensureQtApp();
    const auto path = ts::test::tempDir("pv_stepsview") / "s.tscope";
    const auto balanced = ts::test::writeProfileFixture(path, false);
    const auto fx = ts::test::writeProfileFixture(path, true);
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(path.string()));
    auto info = stepsViewInfo();
    EXPECT_EQ(info.name, "steps");
    EXPECT_FALSE(info.openByDefault);
    std::unique_ptr<QWidget> w(info.create(&ctx, nullptr));
    auto* view = qobject_cast<StepsView*>(w.get());
    ASSERT_NE(view, nullptr);
    w->resize(900, 500);
    w->show();
    QTRY_VERIFY_WITH_TIMEOUT(view->steps().has_value(), 10000);
    QTRY_VERIFY(ctx.jobs()->idle());
    ASSERT_EQ(view->steps()->steps.size(), 5u);
    ASSERT_EQ(view->bars().size(), 5u);  // gap, forward, backward, optimizer, tail
    EXPECT_EQ(view->bars()[0]->name(), "Iteration gap");
    EXPECT_TRUE(view->bars()[4]->name().startsWith("Tail"));
    EXPECT_EQ(view->bars()[1]->barBelow(), view->bars()[0]);
    EXPECT_EQ(view->bars()[4]->barBelow(), view->bars()[3]);
    // Values in ns (median step 200 ns): step 1 gap 60, forward 100, tail (no callbacks,
    // 600 other).
    EXPECT_DOUBLE_EQ(view->bars()[0]->data()->at(0)->value, 60);
    EXPECT_DOUBLE_EQ(view->bars()[1]->data()->at(0)->value, 100);
    EXPECT_DOUBLE_EQ(view->bars()[4]->data()->at(0)->value, 600);
    EXPECT_DOUBLE_EQ(view->bars()[4]->data()->at(3)->value, 60);
    // The stack adds up to the step.
    for (int i = 0; i < 5; ++i) {
        double sum = 0;
        for (auto* b : view->bars()) sum += b->data()->at(i)->value;
        EXPECT_DOUBLE_EQ(sum, static_cast<double>(fx.stepDur[static_cast<size_t>(i)]));
    }
    EXPECT_EQ(view->plot()->itemCount(), 2);  // "warm-up" and "slow" labels
    EXPECT_EQ(view->plot()->legend->itemCount(), 5);
    // Hovering a bar names its step and figures; off the bars nothing.
    {
        const int x = static_cast<int>(view->plot()->xAxis->coordToPixel(1));
        const int y = static_cast<int>(view->plot()->yAxis->coordToPixel(30));
        EXPECT_EQ(view->stepAt(QPoint(x, y)), 0);
        EXPECT_TRUE(view->stepToolTip(0).contains("ProfilerStep#1"));
        EXPECT_TRUE(view->stepToolTip(0).contains("warm-up"));
        const int gap = static_cast<int>(view->plot()->xAxis->coordToPixel(1.5));
        EXPECT_EQ(view->stepAt(QPoint(gap, y)), -1);
    }
    EXPECT_TRUE(view->summaryLabel()->text().contains("2 flagged"));
    EXPECT_EQ(view->sourceBox()->count(), 2);
    EXPECT_EQ(view->sourceBox()->currentSource(), fx.sourceId);

    {
        // A click in the middle of step 4's bar: timeline zoomed to that step and shown.
        QSignalSpy ranges(&ctx, &SessionContext::timeRangeRequested);
        QSignalSpy views(&ctx, &SessionContext::viewRequested);
        const int x = static_cast<int>(view->plot()->xAxis->coordToPixel(4));
        const int y = static_cast<int>(view->plot()->yAxis->coordToPixel(30));
        QTest::mouseClick(view->plot(), Qt::LeftButton, {}, QPoint(x, y));
        ASSERT_EQ(ranges.count(), 1);
        EXPECT_EQ(ranges.at(0).at(0).toLongLong(), fx.stepTs[3]);
        EXPECT_EQ(ranges.at(0).at(1).toLongLong(), fx.stepTs[3] + 260);
        ASSERT_EQ(views.count(), 1);
        EXPECT_EQ(views.at(0).at(0).toString(), "timeline");
        view->activateStep(99);  // out of range: ignored
        EXPECT_EQ(ranges.count(), 1);
    }

    // Choosing the other profile in the combo box reloads it.
    const int other = view->sourceBox()->findData(QVariant::fromValue<qint64>(balanced.sourceId));
    ASSERT_GE(other, 0);
    emit view->sourceBox()->activated(other);
    QTRY_VERIFY_WITH_TIMEOUT(view->steps() && view->steps()->sourceId == balanced.sourceId, 10000);
    EXPECT_DOUBLE_EQ(view->bars()[0]->data()->at(0)->value, 5);
    EXPECT_EQ(view->plot()->itemCount(), 0);
    EXPECT_EQ(view->sourceBox()->currentSource(), balanced.sourceId);
}

TEST(StepsView, SessionWithoutProfileShowsTheReason) {
    ts::test::ensureQtApp();
    const auto path = ts::test::tempDir("pv_stepsview_empty") / "s.tscope";
    ASSERT_TRUE(
        ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::Create).ok());
    SessionContext ctx;
    StepsView view(&ctx);
    EXPECT_TRUE(view.summaryLabel()->text().contains("No session"));
    ctx.setSessionPath(QString::fromStdString(path.string()));
    QTRY_VERIFY_WITH_TIMEOUT(view.summaryLabel()->text().contains("no profile"), 10000);
    EXPECT_FALSE(view.steps().has_value());
    EXPECT_TRUE(view.bars().empty());
}
