// The op statistics view offscreen: item model checked by QAbstractItemModelTester, sorting,
// filtering, grouping, scopes (step, selected range) and CSV export.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>

#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "tests/timeline/sample_fixture.h"
#include "tests/timeline/timeline_fixture.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/stats/op_stats_filter.h"
#include "views/stats/op_stats_table_model.h"
#include "views/stats/sample_stats_table_model.h"
#include "views/stats/stats_view.h"
#include "views/stats/stats_view_info.h"

namespace {

QString cell(QAbstractItemModel* m, int row, int col) {
    return m->index(row, col).data().toString();
}

TEST(StatsView, TableSortFilterScopesAndCsv) {
    ts::test::ensureQtApp();
    const auto path = ts::test::tempDir("tl_statsview") / "s.tscope";
    const auto ids = ts::test::writeTimelineFixture(path);
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(path.string()));
    auto info = statsViewInfo();
    EXPECT_EQ(info.name, "stats");
    EXPECT_TRUE(info.openByDefault);
    std::unique_ptr<QWidget> w(info.create(&ctx, nullptr));
    auto* view = qobject_cast<StatsView*>(w.get());
    ASSERT_NE(view, nullptr);
    // Computed once shown (a hidden tab leaves the CPU to the view being looked at).
    QTest::qWait(300);
    EXPECT_EQ(view->tableModel()->rowCount(), 0);
    w->show();
    QAbstractItemModelTester tester(view->tableModel(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester proxyTester(view->proxy(),
                                         QAbstractItemModelTester::FailureReportingMode::Fatal);
    QTRY_COMPARE_WITH_TIMEOUT(view->tableModel()->rowCount(), 6, 10000);
    QTRY_VERIFY(ctx.jobs()->idle());
    QAbstractItemModel* proxy = view->proxy();
    // Default order: self time descending.
    EXPECT_EQ(cell(proxy, 0, OpStatsTableModel::Name), "ProfilerStep#1");
    EXPECT_EQ(cell(proxy, 0, OpStatsTableModel::Self), "50 ns");
    // Self % of the self time of every row (50 of 165 ns), Total % of the range (100 of 250).
    EXPECT_EQ(cell(proxy, 0, OpStatsTableModel::SelfPercent), "30.30 %");
    EXPECT_EQ(cell(proxy, 0, OpStatsTableModel::TotalPercent), "40.00 %");

    view->table()->sortByColumn(OpStatsTableModel::Calls, Qt::DescendingOrder);
    EXPECT_EQ(cell(proxy, 0, OpStatsTableModel::Name), "gemm");
    {
        // Double-click: the longest call of that op is selected, the timeline asked for.
        QSignalSpy selected(&ctx, &SessionContext::sliceSelected);
        QSignalSpy views(&ctx, &SessionContext::viewRequested);
        emit view->table()->doubleClicked(proxy->index(0, OpStatsTableModel::Name));
        ASSERT_EQ(selected.count(), 1);
        EXPECT_EQ(selected.at(0).at(0).toLongLong(), ids.gemm1);
        ASSERT_EQ(views.count(), 1);
        EXPECT_EQ(views.at(0).at(0).toString(), "timeline");
    }
    view->filterBox()->setText("ATEN");
    EXPECT_EQ(proxy->rowCount(), 3);
    view->filterBox()->setText("kernel");  // matches the category column
    EXPECT_EQ(proxy->rowCount(), 1);
    view->filterBox()->clear();
    // One category at a time: "All categories" + each category of the rows.
    ASSERT_GE(view->categoryBox()->count(), 3);
    const int kernel = view->categoryBox()->findText("kernel");
    ASSERT_GT(kernel, 0);
    view->categoryBox()->setCurrentIndex(kernel);
    EXPECT_EQ(proxy->rowCount(), 1);
    EXPECT_EQ(cell(proxy, 0, OpStatsTableModel::Category), "kernel");
    view->categoryBox()->setCurrentIndex(0);
    EXPECT_EQ(proxy->rowCount(), 6);

    view->groupBox()->setCurrentIndex(1);
    QTRY_COMPARE(view->tableModel()->rowCount(), 3);
    view->groupBox()->setCurrentIndex(0);
    view->shapesBox()->setChecked(true);
    QTRY_COMPARE(view->tableModel()->rowCount(), 7);  // aten::linear split in two
    view->shapesBox()->setChecked(false);
    QTRY_COMPARE(view->tableModel()->rowCount(), 6);

    // Steps appear in the scope list; picking one restricts the table.
    QTRY_COMPARE(view->scopeBox()->count(), 4);
    view->scopeBox()->setCurrentIndex(3);  // ProfilerStep#2
    QTRY_COMPARE(view->tableModel()->rowCount(), 2);
    view->scopeBox()->setCurrentIndex(1);  // selected range, none yet
    QTRY_COMPARE(view->tableModel()->rowCount(), 0);
    EXPECT_TRUE(view->summaryLabel()->text().contains("No time range"));
    ctx.requestTimeRange(200, 250);
    QTRY_COMPARE(view->tableModel()->rowCount(), 2);
    QTRY_VERIFY(ctx.jobs()->idle());

    const QString csv = QString::fromStdString((ts::test::tempDir("tl_csv") / "ops.csv").string());
    ASSERT_TRUE(view->exportCsv(csv));
    QFile f(csv);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    EXPECT_TRUE(text.startsWith("name,category,input_shapes,calls,self_ns"));
    EXPECT_EQ(text.count('\n'), 3);
    QString error;
    EXPECT_FALSE(view->exportCsv("/nonexistent-dir/x.csv", &error));
    EXPECT_FALSE(error.isEmpty());
}

// The second mode: the bottom-up table of stack samples, filtered, by module, as CSV.
TEST(StatsView, StackSamplesMode) {
    ts::test::ensureQtApp();
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(ts::test::writeSampleSession("tl_statsview_s")));
    std::unique_ptr<QWidget> w(statsViewInfo().create(&ctx, nullptr));
    auto* view = qobject_cast<StatsView*>(w.get());
    ASSERT_NE(view, nullptr);
    w->show();
    QAbstractItemModelTester tester(view->samplesModel(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    QTRY_VERIFY(ctx.jobs()->idle());
    view->modeBox()->setCurrentIndex(1);
    QTRY_COMPARE_WITH_TIMEOUT(view->samplesModel()->rowCount(), 4, 10000);
    QTRY_VERIFY(ctx.jobs()->idle());
    EXPECT_EQ(view->table()->model(), view->samplesProxy());
    EXPECT_FALSE(view->groupBox()->isEnabled());
    QAbstractItemModel* proxy = view->samplesProxy();
    EXPECT_EQ(cell(proxy, 0, SampleStatsTableModel::Name), "leaf");
    EXPECT_EQ(cell(proxy, 0, SampleStatsTableModel::Self), "3");
    EXPECT_TRUE(view->summaryLabel()->text().contains("7 samples"))
        << view->summaryLabel()->text().toStdString();
    view->table()->sortByColumn(SampleStatsTableModel::Total, Qt::DescendingOrder);
    EXPECT_EQ(cell(proxy, 3, SampleStatsTableModel::Name), "recurse");
    const int libm = view->categoryBox()->findText("libm");
    ASSERT_GT(libm, 0);
    view->categoryBox()->setCurrentIndex(libm);
    EXPECT_EQ(proxy->rowCount(), 1);
    view->categoryBox()->setCurrentIndex(0);
    view->filterBox()->setText("rec");
    EXPECT_EQ(proxy->rowCount(), 1);
    view->filterBox()->clear();
    const QString csv =
        QString::fromStdString((ts::test::tempDir("tl_csv_s") / "samples.csv").string());
    ASSERT_TRUE(view->exportCsv(csv));
    QFile f(csv);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    EXPECT_TRUE(f.readAll().startsWith("name,category,self,self_percent,total,total_percent"));
    // back to ops
    view->modeBox()->setCurrentIndex(0);
    QTRY_COMPARE_WITH_TIMEOUT(view->tableModel()->rowCount(), 1, 10000);  // "step"
    EXPECT_EQ(view->table()->model(), view->proxy());
}

}  // namespace
