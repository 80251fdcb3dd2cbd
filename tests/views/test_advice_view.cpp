// The Advice view offscreen: findings listed largest cost first, details with figures,
// evidence that selects its slice in the timeline; nothing on a balanced profile.
#include <gtest/gtest.h>

#include <QApplication>
#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QTest>
#include <QTextBrowser>
#include <algorithm>

#include "tests/analysis/profile_fixture.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "views/advice/advice_view.h"
#include "views/advice/advice_view_info.h"
#include "views/common/job_tracker.h"
#include "views/common/profile_source_box.h"
#include "views/common/session_context.h"

TEST(AdviceView, FindingsDetailsAndEvidence) {
    ts::test::ensureQtApp();
    const auto path = ts::test::tempDir("pv_adviceview") / "s.tscope";
    const auto balanced = ts::test::writeProfileFixture(path, false);
    const auto fx = ts::test::writeProfileFixture(path, true);
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(path.string()));
    auto info = adviceViewInfo();
    EXPECT_EQ(info.name, "advice");
    EXPECT_FALSE(info.openByDefault);
    std::unique_ptr<QWidget> w(info.create(&ctx, nullptr));
    auto* view = qobject_cast<AdviceView*>(w.get());
    ASSERT_NE(view, nullptr);
    QTRY_COMPARE_WITH_TIMEOUT(view->findingList()->count(), 5, 10000);  // overview + 4 rules
    QTRY_VERIFY(ctx.jobs()->idle());
    auto title = [&](int row) { return view->findingList()->item(row)->text().toStdString(); };
    EXPECT_TRUE(view->findingList()->item(0)->text().startsWith("Biggest cost: MatMul"))
        << title(0);
    EXPECT_TRUE(view->findingList()->item(1)->text().startsWith("First-step warm-up")) << title(1);
    EXPECT_TRUE(view->findingList()->item(2)->text().contains("MatMul")) << title(2);
    EXPECT_EQ(view->findingList()->currentRow(), 1);  // the largest finding
    EXPECT_EQ(view->evidenceList()->count(), 1);
    EXPECT_TRUE(view->details()->toPlainText().contains("median of the rest"));
    // Where the time goes, whatever the thresholds: the steady split and the biggest op.
    EXPECT_TRUE(view->summaryLabel()->text().contains("Steady steps"));
    EXPECT_TRUE(view->summaryLabel()->text().contains("Biggest op cost:</b> MatMul"));

    view->findingList()->setCurrentRow(2);  // op bottleneck
    EXPECT_EQ(view->evidenceList()->count(), 5);
    EXPECT_TRUE(view->evidenceList()->item(0)->text().contains("MatMul (86 ns)"));
    EXPECT_TRUE(view->details()->toPlainText().contains("算子瓶颈"));
    QSignalSpy selected(&ctx, &SessionContext::sliceSelected);
    QSignalSpy ranges(&ctx, &SessionContext::timeRangeRequested);
    QSignalSpy views(&ctx, &SessionContext::viewRequested);
    emit view->evidenceList()->itemClicked(view->evidenceList()->item(0));
    ASSERT_EQ(selected.count(), 1);
    EXPECT_EQ(selected.at(0).at(0).toLongLong(), view->findings()[2].evidence[0]);
    EXPECT_EQ(selected.at(0).at(0).toLongLong(), fx.matmulIds[0]);
    ASSERT_EQ(ranges.count(), 1);
    EXPECT_EQ(ranges.at(0).at(0).toLongLong(), fx.stepTs[0]);
    ASSERT_EQ(views.count(), 1);
    EXPECT_EQ(views.at(0).at(0).toString(), "timeline");
    // Each evidence row zooms to its own slice's step.
    for (int row = 0; row < view->evidenceList()->count(); ++row) {
        emit view->evidenceList()->itemClicked(view->evidenceList()->item(row));
        const int64_t id = view->findings()[2].evidence[static_cast<size_t>(row)];
        const auto it = std::find(fx.matmulIds.begin(), fx.matmulIds.end(), id);
        ASSERT_NE(it, fx.matmulIds.end());
        const size_t step = static_cast<size_t>(it - fx.matmulIds.begin());
        EXPECT_EQ(ranges.last().at(0).toLongLong(), fx.stepTs[step]) << row;
        EXPECT_EQ(ranges.last().at(1).toLongLong(), fx.stepTs[step] + fx.stepDur[step]) << row;
    }

    const int other = view->sourceBox()->findData(QVariant::fromValue<qint64>(balanced.sourceId));
    ASSERT_GE(other, 0);
    emit view->sourceBox()->activated(other);
    // No rule fires on the balanced profile; the overview still names the biggest cost and
    // lists its longest calls.
    QTRY_COMPARE_WITH_TIMEOUT(view->findingList()->count(), 1, 10000);
    QTRY_VERIFY(view->summaryLabel()->text().contains("no bottleneck"));
    EXPECT_EQ(view->findings()[0].kind, ts::analysis::AdviceKind::BiggestCost);
    EXPECT_EQ(view->findingList()->currentRow(), 0);
    EXPECT_GT(view->evidenceList()->count(), 0);
    EXPECT_TRUE(view->details()->toPlainText().contains("op #1"));
}
