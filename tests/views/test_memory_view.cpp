// The Memory view offscreen: memory in use and pool graphs, the peak marked, and the table
// of allocations live at the peak.
#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <QApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include "tests/analysis/profile_fixture.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/memory/memory_view.h"
#include "views/memory/memory_view_info.h"

TEST(MemoryView, PeakAndTopAllocations) {
    ts::test::ensureQtApp();
    const auto path = ts::test::tempDir("pv_memview") / "s.tscope";
    ts::test::writeProfileFixture(path, true);
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(path.string()));
    auto info = memoryViewInfo();
    EXPECT_EQ(info.name, "memory");
    EXPECT_FALSE(info.openByDefault);
    std::unique_ptr<QWidget> w(info.create(&ctx, nullptr));
    auto* view = qobject_cast<MemoryView*>(w.get());
    ASSERT_NE(view, nullptr);
    QTRY_VERIFY_WITH_TIMEOUT(view->memory().has_value(), 10000);
    QTRY_VERIFY(ctx.jobs()->idle());
    ASSERT_EQ(view->plot()->graphCount(), 3);  // in use, pool, peak marker
    EXPECT_EQ(view->plot()->graph(0)->name(), "Memory In Use (bytes)");
    EXPECT_EQ(view->plot()->graph(0)->data()->size(), 4);
    EXPECT_EQ(view->plot()->graph(1)->data()->size(), 2);
    QCPGraph* peak = view->plot()->graph(2);
    ASSERT_EQ(peak->data()->size(), 1);
    EXPECT_DOUBLE_EQ(peak->data()->at(0)->value, 900);
    EXPECT_DOUBLE_EQ(peak->data()->at(0)->key, 150);  // ns after the first sample
    // The peak label, and a dashed line (with its "#N" tag) at each of the 5 step starts.
    int lines = 0, texts = 0;
    for (int i = 0; i < view->plot()->itemCount(); ++i) {
        lines += qobject_cast<QCPItemStraightLine*>(view->plot()->item(i)) != nullptr;
        texts += qobject_cast<QCPItemText*>(view->plot()->item(i)) != nullptr;
    }
    EXPECT_EQ(lines, 5);
    EXPECT_GE(texts, 2);  // the peak label and at least the first step's tag
    EXPECT_LE(texts, 6);
    QTableWidget* t = view->table();
    ASSERT_EQ(t->rowCount(), 2);
    EXPECT_EQ(t->item(0, MemoryView::Op)->text(), "MatMul");
    EXPECT_EQ(t->item(0, MemoryView::Shape)->text(), "[64,128]");
    EXPECT_EQ(t->item(0, MemoryView::Bytes)->text(), "400 B");
    EXPECT_EQ(t->item(0, MemoryView::Tensor)->text(), "t1");
    EXPECT_EQ(t->item(1, MemoryView::Op)->text(), "Add");
    EXPECT_TRUE(view->summaryLabel()->text().contains("2 allocations live"));

    QSignalSpy ranges(&ctx, &SessionContext::timeRangeRequested);
    emit t->cellDoubleClicked(0, 0);
    ASSERT_EQ(ranges.count(), 1);
    EXPECT_EQ(ranges.at(0).at(0).toLongLong(), 1050);
    EXPECT_EQ(ranges.at(0).at(1).toLongLong(), 1150);
}

TEST(MemoryView, ProfileWithoutMemory) {
    ts::test::ensureQtApp();
    const auto path = ts::test::tempDir("pv_memview_none") / "s.tscope";
    {
        auto st = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::Create);
        ASSERT_TRUE(st.ok());
        const int64_t src = st.value()->beginSource("p", "profiler").value();
        ts::store::SourceSummary sum;
        sum.status = ts::store::SourceStatus::Complete;
        ASSERT_TRUE(st.value()->finishSource(src, sum).ok());
    }
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(path.string()));
    MemoryView view(&ctx);
    QTRY_VERIFY_WITH_TIMEOUT(view.memory().has_value(), 10000);
    EXPECT_FALSE(view.memory()->hasPeak);
    EXPECT_EQ(view.table()->rowCount(), 0);
    EXPECT_TRUE(view.summaryLabel()->text().contains("no memory data"));
}
