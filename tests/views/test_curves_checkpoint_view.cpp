// The checkpoint view offscreen: opening a *.ckpt lists its tensors (model tester,
// sorting, filter), totals; a bad file shows the error; ViewInfo accepts *.ckpt only.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

#include "tests/checkpoint_info/ckpt_writer.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "views/checkpoint/checkpoint_table_model.h"
#include "views/checkpoint/checkpoint_view.h"
#include "views/checkpoint/checkpoint_view_info.h"
#include "views/common/session_context.h"

TEST(CheckpointView, ListsTensorsOfAFile) {
    ts::test::ensureQtApp();
    const auto dir = ts::test::tempDir("ckpt_view");
    const std::string path = (dir / "lenet.ckpt").string();
    ts::test::writeFile(path, ts::test::protobufCheckpoint(ts::test::lenetTensors()));

    SessionContext ctx;
    CheckpointView view(&ctx);
    QAbstractItemModelTester tester(view.model(),
                                    QAbstractItemModelTester::FailureReportingMode::Warning);
    QSignalSpy spy(&view, &CheckpointView::loaded);
    view.openFile(QString::fromStdString(path));
    ASSERT_TRUE(spy.wait(10000) || spy.count() == 1);
    EXPECT_TRUE(spy.at(0).at(0).toBool());
    CheckpointTableModel* m = view.model();
    ASSERT_EQ(m->rowCount(), 12);
    EXPECT_EQ(m->data(m->index(2, CheckpointTableModel::NameCol)).toString(), "fc1.weight");
    EXPECT_EQ(m->data(m->index(2, CheckpointTableModel::ShapeCol)).toString(), "[120, 400]");
    EXPECT_EQ(m->data(m->index(2, CheckpointTableModel::DtypeCol)).toString(), "Float32");
    EXPECT_EQ(m->data(m->index(2, CheckpointTableModel::CountCol), CheckpointTableModel::SortRole)
                  .toLongLong(),
              48000);
    EXPECT_EQ(m->data(m->index(8, CheckpointTableModel::TrainableCol)).toString(), "no");
    EXPECT_TRUE(view.summary().contains("12 tensors")) << view.summary().toStdString();

    // Largest first when sorted by count; the filter keeps matching names only.
    view.proxy()->sort(CheckpointTableModel::CountCol, Qt::DescendingOrder);
    EXPECT_EQ(view.proxy()->index(0, 0).data().toString(), "fc1.weight");
    view.proxy()->setFilterFixedString("bias");
    EXPECT_EQ(view.proxy()->rowCount(), 3);

    const std::string junk = (dir / "junk.ckpt").string();
    ts::test::writeFile(junk, "plain text");
    view.openFile(QString::fromStdString(junk));
    ASSERT_TRUE(spy.wait(10000) || spy.count() == 2);
    EXPECT_FALSE(spy.at(1).at(0).toBool());
    EXPECT_EQ(m->rowCount(), 0);
    EXPECT_TRUE(view.summary().contains("not a checkpoint")) << view.summary().toStdString();
}

TEST(CheckpointView, ViewInfoAcceptsCheckpointFiles) {
    ts::test::ensureQtApp();
    const ViewInfo info = checkpointViewInfo();
    EXPECT_EQ(info.name, "checkpoint");
    EXPECT_FALSE(info.openByDefault);
    const auto dir = ts::test::tempDir("ckpt_accepts");
    const std::string ckpt = (dir / "a.CKPT").string();
    const std::string other = (dir / "a.json").string();
    ts::test::writeFile(ckpt, "x");
    ts::test::writeFile(other, "x");
    EXPECT_TRUE(info.accepts(QString::fromStdString(ckpt)));
    EXPECT_FALSE(info.accepts(QString::fromStdString(other)));
    EXPECT_FALSE(info.accepts(QString::fromStdString(dir.string())));
    SessionContext ctx;
    std::unique_ptr<QWidget> w(info.create(&ctx, nullptr));
    EXPECT_NE(dynamic_cast<FileViewer*>(w.get()), nullptr);
}
