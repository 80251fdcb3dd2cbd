// The RDR view offscreen: opens an export written by the recorder, shows the summary,
// highlights the failing op and finds it in the IR, fills memory chart/table and logs;
// a folder without an export shows a clear error; rdrViewInfo().accepts() rules.
#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <QApplication>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableWidget>

#include "core/debug/rdr/rdr_recorder.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "tests/rdr/rdr_test_run.h"
#include "views/common/session_context.h"
#include "views/rdr/rdr_view.h"
#include "views/rdr/rdr_view_info.h"

namespace fs = std::filesystem;

namespace {

fs::path writeExport(const std::string& tag) {
    const fs::path root = ts::test::tempDir(tag);
    ts::rdr::RunningDataRecorder r;
    ts::rdr::test::recordSampleRun(r, root.string(), 1);
    r.recordAllocFailure("huge", 1 << 30, 5000);
    EXPECT_TRUE(r.exportNow("op_exception: Add failed", "Default/network/fc1/Add-op1"));
    return root;
}

bool openAndWait(RdrView& view, const QString& path, QString* error) {
    QSignalSpy spy(&view, &RdrView::loaded);
    view.openFile(path);
    if (!spy.wait(10000)) return false;
    *error = spy.at(0).at(0).toString();
    return true;
}

TEST(RdrView, ShowsExportAndLinksFailingOpToIr) {
    ts::test::ensureQtApp();
    const fs::path root = writeExport("rdr_view");
    SessionContext ctx;
    RdrView view(&ctx);
    view.resize(1000, 700);
    QString error;
    ASSERT_TRUE(openAndWait(view, QString::fromStdString(root.string()), &error));
    ASSERT_TRUE(error.isEmpty()) << error.toStdString();

    const QString summary = view.findChild<QLabel*>("rdrSummary")->text();
    EXPECT_TRUE(summary.contains("op_exception: Add failed")) << summary.toStdString();
    EXPECT_TRUE(summary.contains("Default/network/fc1/Add-op1"));
    EXPECT_TRUE(summary.contains("step 2"));

    auto* exec = view.findChild<QTableWidget*>("rdrExecOrder");
    ASSERT_EQ(exec->rowCount(), 6);  // previous + current step
    // The failing op is the current row, marked red (not selected, so the red shows).
    EXPECT_EQ(exec->currentRow(), 4);
    EXPECT_TRUE(exec->selectionModel()->selectedRows().isEmpty());
    EXPECT_EQ(exec->item(4, 3)->text(), "Default/network/fc1/Add-op1");
    EXPECT_NE(exec->item(4, 0)->background(), exec->item(3, 0)->background());

    auto* ir = view.findChild<QPlainTextEdit*>("rdrIr");
    EXPECT_EQ(ir->textCursor().selectedText(), "Default/network/fc1/Add-op1");
    // Its IR lines are marked: the op line, then its scope line.
    const auto marks = ir->extraSelections();
    ASSERT_FALSE(marks.isEmpty());
    bool opLine = false;
    for (const auto& m : marks) opLine = opLine || m.cursor.block().text().startsWith("%1(Add)");
    EXPECT_TRUE(opLine);
    exec->selectRow(0);  // MatMul of the previous step
    EXPECT_EQ(ir->textCursor().selectedText(), "Default/network/fc1/MatMul-op0");
    EXPECT_TRUE(view.findInIr("Softmax"));
    EXPECT_FALSE(view.findInIr("NoSuchOp"));

    auto* mem = view.findChild<QTableWidget*>("rdrMemTable");
    EXPECT_EQ(mem->rowCount(), 7);
    auto* plot = view.findChild<QCustomPlot*>("rdrMemPlot");
    ASSERT_EQ(plot->graphCount(), 2);
    EXPECT_GT(plot->graph(0)->dataCount(), 2);
    EXPECT_EQ(plot->graph(1)->dataCount(), 1);
    EXPECT_TRUE(view.findChild<QPlainTextEdit*>("rdrLogs")->toPlainText().contains("step 2 done"));
    EXPECT_TRUE(
        view.findChild<QPlainTextEdit*>("rdrRunState")->toPlainText().contains("loss_scale: 1024"));
}

TEST(RdrView, FolderWithoutExportShowsError) {
    ts::test::ensureQtApp();
    SessionContext ctx;
    RdrView view(&ctx);
    QString error;
    ASSERT_TRUE(openAndWait(
        view, QString::fromStdString(ts::test::tempDir("rdr_view_none").string()), &error));
    EXPECT_TRUE(error.contains("no RDR export")) << error.toStdString();
    EXPECT_TRUE(view.findChild<QLabel*>("rdrSummary")->text().contains("Cannot open"));
    EXPECT_TRUE(view.exportData().reason.empty());
}

TEST(RdrView, ViewInfoAcceptsExportsOnly) {
    ts::test::ensureQtApp();
    const fs::path root = writeExport("rdr_view_info");
    const ViewInfo info = rdrViewInfo();
    EXPECT_EQ(info.name, "rdr");
    ASSERT_TRUE(info.accepts);
    auto acc = [&](const fs::path& p) { return info.accepts(QString::fromStdString(p.string())); };
    EXPECT_TRUE(acc(root));
    EXPECT_TRUE(acc(root / "rank_0"));
    EXPECT_TRUE(acc(root / "rank_0/rdr"));
    EXPECT_TRUE(acc(root / "rank_0/rdr/rdr_index.json"));
    EXPECT_FALSE(acc(root / "rank_0/rdr/log_tail.txt"));
    EXPECT_FALSE(acc(ts::test::tempDir("rdr_view_info_none")));
    SessionContext ctx;
    std::unique_ptr<QWidget> w(info.create(&ctx, nullptr));
    EXPECT_NE(dynamic_cast<FileViewer*>(w.get()), nullptr);
}

}  // namespace
