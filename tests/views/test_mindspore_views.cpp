// The MindSpore dump and RDR views offscreen: a dump tree opens with its iterations and op
// list, a tensor shows in the tensor inspector, a statistics-only dump shows its rows,
// "Find NaN/Inf" marks the first finding; an RDR folder shows every file, the execution
// order with the failing op marked, the IR with the op's lines marked. Both views accept
// their folders from the Open dialog.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <QtTest>

#include "tests/common/mindspore_dump_fixtures.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "views/common/session_context.h"
#include "views/dumps/common/dataset_panel.h"
#include "views/dumps/common/stats_widget.h"
#include "views/msdump/ms_dump_view.h"
#include "views/msdump/ms_dump_view_info.h"
#include "views/rdr/ms_rdr_view.h"
#include "views/rdr/ms_rdr_view_info.h"
#include "views/rdr/rdr_view_info.h"

using namespace ts;

TEST(MsDumpView, OpListTensorAndOverflow) {
    test::ensureQtApp();
    const auto root = test::tempDir("msdump_view");
    test::writeMindSporeDump(root, 0, "LeNet", 0, 1, test::lenetOps(1.0f, true));
    test::writeMindSporeDump(root, 0, "LeNet", 0, 2, test::lenetOps(1.0f, false));
    EXPECT_TRUE(msDumpViewInfo().accepts(QString::fromStdString(root.string())));
    EXPECT_FALSE(
        msDumpViewInfo().accepts(QString::fromStdString(test::tempDir("empty_dir").string())));
    SessionContext ctx;
    MsDumpView view(&ctx);
    view.resize(1200, 800);
    QSignalSpy shown(&view, &MsDumpView::iterationShown);
    QSignalSpy scanned(&view, &MsDumpView::overflowScanned);
    view.openFile(QString::fromStdString(root.string()));
    ASSERT_TRUE(shown.wait(10000));
    EXPECT_EQ(view.iterations()->count(), 2);
    ASSERT_EQ(view.table()->rowCount(), 8);
    EXPECT_EQ(view.table()->item(0, MsDumpView::Op)->text(),
              "Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op0");
    EXPECT_EQ(view.table()->item(0, MsDumpView::Data)->text(), "npy + statistics");
    // A small iteration is scanned at once: the first NaN is ReLU's output, shown.
    ASSERT_TRUE(scanned.count() > 0 || scanned.wait(10000));
    EXPECT_EQ(scanned.at(0).at(0).toInt(), 2);
    ASSERT_EQ(view.firstFindingRow(), 3);
    EXPECT_EQ(view.table()->item(3, MsDumpView::IO)->text(), "output");
    EXPECT_TRUE(view.summary()->text().contains("hold NaN/Inf"));
    QTRY_COMPARE_WITH_TIMEOUT(view.panel()->path(), QStringLiteral("ReLU/0/output/0"), 10000);
    // Any other tensor in the inspector.
    view.table()->selectRow(0);
    QTRY_COMPARE_WITH_TIMEOUT(view.panel()->path(), QStringLiteral("Conv2D/0/input/0"), 10000);
    // The button scans again.
    view.scanOverflow();
    QTRY_COMPARE_WITH_TIMEOUT(scanned.count(), 2, 10000);
    EXPECT_EQ(view.firstFindingRow(), 3);
}

TEST(MsDumpView, StatisticsOnlyDump) {
    test::ensureQtApp();
    const auto root = test::tempDir("msdump_view_stats");
    test::writeMindSporeDump(root, 0, "Net", 0, 0, test::lenetOps(), true, true);
    SessionContext ctx;
    MsDumpView view(&ctx);
    QSignalSpy shown(&view, &MsDumpView::iterationShown);
    QSignalSpy tensor(&view, &MsDumpView::tensorShown);
    view.openFile(QString::fromStdString(root.string()));
    ASSERT_TRUE(shown.wait(10000));
    EXPECT_TRUE(view.summary()->text().contains("statistics only"));
    ASSERT_TRUE(tensor.count() > 0 || tensor.wait(10000));
    EXPECT_TRUE(view.statistics()->toPlainText().contains("statistics only"));
    EXPECT_TRUE(view.statistics()->toPlainText().contains("(2,3)"));
}

TEST(MsRdrView, FilesExecOrderAndFailingOp) {
    test::ensureQtApp();
    const auto root = test::tempDir("msrdr_view");
    test::writeMindSporeRdr(root);
    EXPECT_TRUE(msRdrViewInfo().accepts(QString::fromStdString(root.string())));
    EXPECT_FALSE(rdrViewInfo().accepts(QString::fromStdString(root.string())));
    SessionContext ctx;
    MsRdrView view(&ctx);
    view.resize(1200, 800);
    QSignalSpy loaded(&view, &MsRdrView::loaded);
    view.openFile(QString::fromStdString(root.string()));
    ASSERT_TRUE(loaded.wait(10000));
    EXPECT_TRUE(loaded.at(0).at(0).toString().isEmpty());
    EXPECT_EQ(view.filesTable()->rowCount(), 7);
    EXPECT_TRUE(view.summary()->text().contains("Add-op8")) << view.summary()->text().toStdString();
    ASSERT_EQ(view.execTable()->rowCount(), 3);
    EXPECT_EQ(view.execTable()->currentRow(), 1);
    EXPECT_NE(view.execTable()->item(1, 0)->background(),
              view.execTable()->item(0, 0)->background());
    EXPECT_FALSE(view.irText()->extraSelections().isEmpty());
    view.execTable()->setCurrentCell(0, 1);
    EXPECT_TRUE(view.irText()->textCursor().selectedText().contains("Conv2D-op1"));
    EXPECT_TRUE(view.findInIr("ReLU"));
}
