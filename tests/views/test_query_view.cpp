// The SQL view offscreen: rows of a query (model checked by QAbstractItemModelTester), a
// refused statement's reason, and Cancel stopping a query that would run for ever.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include "core/store/store_writer.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/query/query_result_model.h"
#include "views/query/query_view.h"
#include "views/query/query_view_info.h"

namespace {

std::string makeSession() {
    const std::string path = (ts::test::tempDir("queryview") / "s.tscope").string();
    auto s = ts::store::TraceStore::open(path, ts::store::TraceStore::Mode::Create).value();
    const int64_t src = s->beginSource("t.json", "chrome_json").value();
    {
        ts::store::StoreWriter w(*s, src);
        const int64_t p = w.addProcess("1", "python");
        const int64_t t = w.addTrack("thread", p, w.addThread(p, "1"), "main");
        w.addSlice({t, 1000, 500, 0, w.intern("aten::mm"), 0, 0, 0});
        w.addSlice({t, 2000, 700, 0, w.intern("aten::relu"), 0, 0, 0});
    }
    return path;
}

TEST(QueryView, RowsRefusalsAndCancel) {
    ts::test::ensureQtApp();
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(makeSession()));
    auto info = queryViewInfo();
    EXPECT_EQ(info.name, "query");
    std::unique_ptr<QWidget> w(info.create(&ctx, nullptr));
    auto* view = qobject_cast<QueryView*>(w.get());
    ASSERT_NE(view, nullptr);
    w->show();
    QAbstractItemModelTester tester(view->resultModel(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    EXPECT_FALSE(view->cancelButton()->isEnabled());

    view->sqlEdit()->setPlainText(
        "SELECT n.str AS name, s.dur, NULL AS none FROM slices s JOIN strings n ON "
        "n.id = s.name_id ORDER BY s.ts");
    QSignalSpy done(view, &QueryView::finished);
    view->runButton()->click();
    ASSERT_TRUE(done.wait(10000));
    ASSERT_EQ(view->resultModel()->rowCount(), 2) << view->statusLabel()->text().toStdString();
    EXPECT_EQ(view->resultModel()->headerData(0, Qt::Horizontal).toString(), "name");
    EXPECT_EQ(view->resultModel()->index(1, 0).data().toString(), "aten::relu");
    EXPECT_EQ(view->resultModel()->index(1, 1).data().toLongLong(), 700);
    EXPECT_EQ(view->resultModel()->index(0, 2).data().toString(), "NULL");
    EXPECT_TRUE(view->statusLabel()->text().contains("2 row"))
        << view->statusLabel()->text().toStdString();

    // refused: the reason is shown, the session is unchanged
    view->sqlEdit()->setPlainText("ATTACH '/tmp/x.db' AS x");
    view->runButton()->click();
    ASSERT_TRUE(done.wait(10000));
    EXPECT_TRUE(view->statusLabel()->text().contains("ATTACH"))
        << view->statusLabel()->text().toStdString();
    EXPECT_EQ(view->resultModel()->rowCount(), 0);
    // a PRAGMA that changes things, called as a table (issue 25, case 18): refused the same way
    view->sqlEdit()->setPlainText("SELECT * FROM pragma_optimize(0x10002)");
    view->runButton()->click();
    ASSERT_TRUE(done.wait(10000));
    EXPECT_TRUE(view->statusLabel()->text().contains("PRAGMA optimize"))
        << view->statusLabel()->text().toStdString();

    // a query that never ends stops at Cancel
    view->sqlEdit()->setPlainText(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n");
    view->runButton()->click();
    EXPECT_TRUE(view->running());
    EXPECT_TRUE(view->cancelButton()->isEnabled());
    QTest::qWait(300);
    view->cancelButton()->click();
    ASSERT_TRUE(done.wait(10000));
    EXPECT_EQ(view->statusLabel()->text(), "Query cancelled.");
    EXPECT_FALSE(view->running());
    EXPECT_FALSE(view->cancelButton()->isEnabled());
    QTRY_VERIFY(ctx.jobs()->idle());
}

}  // namespace
