// The Memory snapshot view offscreen on PyTorch 2.11's own snapshots: the timeline with the
// allocation under the cursor, the allocator state at the peak, the end and the OOM, the
// allocations alive at the peak by site, the answers naming the planted leak and the
// fragmentation OOM; import into a session; the Memory view's op table and the Diff view's
// memory tab on the same run's Kineto trace.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeWidget>
#include <filesystem>

#include "core/store/trace_store.h"
#include "importers/registry.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/diff/diff_memory_panel.h"
#include "views/memory/memory_view.h"
#include "views/memory/segment_map_widget.h"
#include "views/memory/snapshot_timeline_widget.h"
#include "views/memory/snapshot_view.h"
#include "views/memory/snapshot_view_info.h"

namespace fs = std::filesystem;

namespace {

QString dataFile(const char* name) {
    return QString::fromStdString(
        (fs::path(TRAINSCOPE_SOURCE_DIR) / "tests" / "data" / "torch_memory" / name).string());
}

void openSnapshotAndWait(SnapshotView& v, const QString& path) {
    QSignalSpy loaded(&v, &SnapshotView::loaded);
    v.openFile(path);
    ASSERT_TRUE(loaded.wait(20000));
}

}  // namespace

TEST(SnapshotView, TrainingSnapshotWithItsLeak) {
    ts::test::ensureQtApp();
    SessionContext ctx;
    auto info = memorySnapshotViewInfo();
    EXPECT_EQ(info.name, "memory-snapshot");
    EXPECT_TRUE(info.accepts(dataFile("train_snapshot.pickle")));
    EXPECT_FALSE(info.accepts(dataFile("train_kineto.json.gz")));
    std::unique_ptr<QWidget> w(info.create(&ctx, nullptr));
    auto* view = dynamic_cast<SnapshotView*>(w.get());
    ASSERT_NE(view, nullptr);
    view->resize(1400, 900);
    view->show();
    openSnapshotAndWait(*view, dataFile("train_snapshot.pickle"));
    ASSERT_TRUE(view->data());
    EXPECT_TRUE(view->summaryLabel()->text().contains("1 leak"))
        << view->summaryLabel()->text().toStdString();
    EXPECT_TRUE(view->summaryLabel()->text().contains("keep_for_debug"));
    // Hovering the timeline names an allocation: scan the plot until one is under the cursor.
    auto* tl = view->timeline();
    QApplication::processEvents();
    int64_t found = -1;
    for (int x = 100; x < tl->width() - 20 && found < 0; x += 7)
        for (int y = tl->height() - 40; y > 20 && found < 0; y -= 7)
            found = tl->allocationAt(QPointF(x, y));
    ASSERT_GE(found, 0);
    QSignalSpy hovered(tl, &SnapshotTimelineWidget::hovered);
    // Details: size, address, stream and frames of what is hovered.
    emit tl->hovered(found);
    const QString details = view->details()->toPlainText();
    EXPECT_TRUE(details.contains("allocation")) << details.toStdString();
    EXPECT_TRUE(details.contains("stream 0"));
    EXPECT_TRUE(details.contains("site: "));
    // Allocator state: the peak first (no OOM), then the snapshot itself.
    EXPECT_EQ(view->momentBox()->count(), 2);
    EXPECT_EQ(view->segmentMap()->state().event,
              view->data()->report.devices[0].timeline.peakEvent);
    view->showStateAt(600);  // a moment in between: replayed on a job
    QTRY_COMPARE(view->segmentMap()->state().event, 600);
    EXPECT_LE(view->segmentMap()->state().reserved, 253755392);
    view->showStateAt(1290);
    EXPECT_EQ(view->segmentTable()->rowCount(), 10);
    EXPECT_EQ(view->segmentMap()->state().reserved, 253755392);
    view->tabs()->setCurrentIndex(1);  // the allocator state, laid out when shown
    QApplication::processEvents();
    EXPECT_TRUE(view->segmentMap()->describeAt(QPointF(10, 6)).contains("segment"));
    // At the peak, by site; the leak's site among them.
    ASSERT_GT(view->peakTree()->topLevelItemCount(), 3);
    bool leakSite = false;
    for (int i = 0; i < view->peakTree()->topLevelItemCount(); ++i)
        leakSite =
            leakSite || view->peakTree()->topLevelItem(i)->text(0).contains("keep_for_debug");
    EXPECT_TRUE(leakSite);
    const QString answers = view->answers()->toPlainText();
    EXPECT_TRUE(answers.contains("keep_for_debug: 10 allocations never freed"))
        << answers.toStdString();
    EXPECT_TRUE(answers.contains("No oom event"));
    QTRY_VERIFY(ctx.jobs()->idle());
}

TEST(SnapshotView, OomSnapshotOpensAtTheOom) {
    ts::test::ensureQtApp();
    SessionContext ctx;
    SnapshotView view(&ctx);
    openSnapshotAndWait(view, dataFile("oom_snapshot.pickle"));
    ASSERT_TRUE(view.data());
    EXPECT_TRUE(view.summaryLabel()->text().contains("caused by fragmentation"));
    EXPECT_EQ(view.momentBox()->count(), 3);
    EXPECT_EQ(view.segmentMap()->state().event, 110);
    EXPECT_EQ(view.segmentMap()->state().largestFree, 4 << 20);
    EXPECT_TRUE(view.answers()->toPlainText().contains("fragmentation: 100.0MiB was free"));
    // A file that is not a snapshot: a clear message.
    openSnapshotAndWait(view, dataFile("train_facts.json"));
    EXPECT_TRUE(view.summaryLabel()->text().startsWith("Cannot read this snapshot"));
    QTRY_VERIFY(ctx.jobs()->idle());
}

TEST(SnapshotView, ImportIntoSessionAndMemoryByOp) {
    ts::test::ensureQtApp();
    const fs::path session = ts::test::tempDir("snapview-import") / "s.tscope";
    {
        auto st =
            ts::store::TraceStore::open(session.string(), ts::store::TraceStore::Mode::Create);
        ASSERT_TRUE(st.ok());
        ts::JobControl jc;
        auto r = ts::importers::importFile(dataFile("train_kineto.json.gz").toStdString(),
                                           *st.value(), jc);
        ASSERT_EQ(r.status, ts::store::SourceStatus::Complete);
    }
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(session.string()));
    // The Memory view on the Kineto trace: the live blocks named by op, memory by op.
    MemoryView mem(&ctx);
    QTRY_VERIFY_WITH_TIMEOUT(mem.opMemory().has_value(), 20000);
    QTRY_VERIFY(ctx.jobs()->idle());
    ASSERT_GT(mem.table()->rowCount(), 0);
    for (int r = 0; r < mem.table()->rowCount(); ++r)
        EXPECT_NE(mem.table()->item(r, MemoryView::Op)->text(), "(unknown)");
    ASSERT_GT(mem.opTable()->rowCount(), 3);
    const int byOp = mem.opTable()->rowCount();
    mem.byShapeBox()->setChecked(true);
    EXPECT_GT(mem.opTable()->rowCount(), byOp);

    // The snapshot view imports its file into the session: a second memory source.
    SnapshotView view(&ctx);
    openSnapshotAndWait(view, dataFile("train_snapshot.pickle"));
    QSignalSpy changed(&ctx, &SessionContext::dataChanged);
    ASSERT_TRUE(view.importButton()->isEnabled());
    view.importButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(changed.count() >= 1, 20000);
    EXPECT_TRUE(view.summaryLabel()->text().startsWith("Imported into the session"));
    auto st = ts::store::TraceStore::open(session.string(), ts::store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(st.ok());
    EXPECT_EQ(st.value()->sources().value().size(), 2u);
    QTRY_VERIFY(ctx.jobs()->idle());

    // The Diff view's memory tab: the trace against the snapshot of the same run.
    DiffMemoryPanel panel(&ctx);
    QSignalSpy compared(&panel, &DiffMemoryPanel::compared);
    const std::string p = session.string();
    panel.compare({p, 1, std::nullopt, std::nullopt}, {p, 2, std::nullopt, std::nullopt}, false);
    ASSERT_TRUE(compared.wait(20000));
    ASSERT_TRUE(panel.diff().has_value()) << panel.summary()->text().toStdString();
    EXPECT_GT(panel.table()->rowCount(), 0);
    EXPECT_TRUE(panel.summary()->text().contains("Peak memory"));
    QTRY_VERIFY(ctx.jobs()->idle());
}
