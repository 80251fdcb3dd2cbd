// Importing from the GUI: a job with progress, and Cancel leaves the session exactly as it
// was (the files of the same import that had finished go too); a finished import labels
// processes by source and opens the timeline and op statistics.
#include <gtest/gtest.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QThread>
#include <cstdio>
#include <functional>

#include "app/gui/main_window.h"
#include "app/gui/session_document.h"
#include "app/gui/view_list.h"
#include "core/store/trace_store.h"
#include "tests/common/test_support.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"

using ts::store::TraceStore;

namespace {

void ensureImportApp() {
    static int argc = 1;
    static char name[] = "test_gui";
    static char* argv[] = {name, nullptr};
    if (!QApplication::instance()) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        auto* a = new QApplication(argc, argv);
        a->setProperty("trainscope_headless", true);
        QCoreApplication::setOrganizationName("TrainScopeTest");
    }
}

/// A Chrome trace of `events` X events on 4 threads (about 100 bytes each).
std::string writeImportTrace(const std::string& name, int events) {
    const std::string path = (ts::test::tempDir("gui_import") / name).string();
    FILE* f = std::fopen(path.c_str(), "w");
    std::fputs("[", f);
    for (int i = 0; i < events; ++i)
        std::fprintf(f,
                     "%s{\"ph\":\"X\",\"name\":\"op%d\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":1}",
                     i ? ",\n" : "", i % 50, i % 4, i);
    std::fputs("]", f);
    std::fclose(f);
    return path;
}

/// Processes events until `done()` or `ms` pass; false on timeout. (QTRY_* macros return
/// from the test body on a timeout, which GoogleTest would report as a pass.)
bool waitUntil(const std::function<bool()>& done, int ms) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > ms) return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(5);
    }
    return true;
}

struct Snapshot {
    int64_t sources, slices, processes, strings, args;
    bool operator==(const Snapshot&) const = default;
};

Snapshot snapshot(const std::string& session) {
    auto s = TraceStore::open(session, TraceStore::Mode::ReadOnly).value();
    auto q = [&](const char* sql) { return s->db().queryInt(sql).value(); };
    return {q("SELECT count(*) FROM sources"), q("SELECT count(*) FROM slices"),
            q("SELECT count(*) FROM processes"), q("SELECT count(*) FROM strings"),
            q("SELECT count(*) FROM args")};
}

TEST(ImportJob, CancelLeavesTheSessionAsItWas) {
    ensureImportApp();
    const std::string small = writeImportTrace("small.json", 1000);
    const std::string big = writeImportTrace("big.json", 400000);  // ~30 MB: many progress steps
    const std::string session = (ts::test::tempDir("gui_import_s") / "s.tscope").string();
    {
        auto s = TraceStore::open(session, TraceStore::Mode::Create);
        ASSERT_TRUE(s.ok());
    }
    ts::JobControl first;
    auto seed = SessionDocument::importAll(session, {small}, first);
    ASSERT_EQ(seed.reports.at(0).status, ts::store::SourceStatus::Complete);
    const Snapshot before = snapshot(session);

    MainWindow w;
    w.context()->setSessionPath(QString::fromStdString(session));
    QSignalSpy imported(w.document(), &SessionDocument::imported);
    QSignalSpy cancelled(w.document(), &SessionDocument::importCancelled);
    w.document()->importFiles({QString::fromStdString(small), QString::fromStdString(big)});
    JobTracker* jobs = w.context()->jobs();
    std::shared_ptr<ts::JobControl> control;
    for (const auto& [id, job] : jobs->active())
        if (job.title.startsWith("Importing")) control = job.control;
    ASSERT_TRUE(control);
    // Wait until the second file is being read (progress reported), then press Cancel.
    ASSERT_TRUE(
        waitUntil([&] { return control->total() > 1000000 && control->done() > 0; }, 60000));
    EXPECT_FALSE(control->done() >= control->total());  // really midway
    jobs->cancelAll();
    ASSERT_TRUE(waitUntil([&] { return jobs->idle(); }, 60000));
    QTest::qWait(50);
    EXPECT_EQ(imported.count(), 0);
    EXPECT_EQ(snapshot(session), before);
    // Issue 26, item 3: the cancel says what it undid and what the session keeps.
    ASSERT_EQ(cancelled.count(), 1);
    const QString said = cancelled.at(0).at(0).toString();
    EXPECT_TRUE(said.startsWith("Cancelled the import of 2 files")) << said.toStdString();
    EXPECT_TRUE(said.contains("what it had read (1 file(s)) was removed again"))
        << said.toStdString();
    EXPECT_TRUE(said.contains("1 source(s) kept")) << said.toStdString();
}

TEST(ImportJob, FinishedImportShowsTimelineAndStatsAndLabelsSources) {
    ensureImportApp();
    const std::string a = writeImportTrace("rank0.json", 200);
    const std::string b = writeImportTrace("rank1.json", 300);
    MainWindow w;
    w.show();
    QSignalSpy imported(w.document(), &SessionDocument::imported);
    w.openPaths({QString::fromStdString(a), QString::fromStdString(b)});
    ASSERT_TRUE(waitUntil([&] { return imported.count() == 1; }, 60000));
    QStringList tabs;
    for (int i = 0; i < w.tabs()->count(); ++i) tabs << w.tabs()->tabText(i);
    EXPECT_TRUE(tabs.contains(QObject::tr("Timeline"))) << tabs.join(",").toStdString();
    EXPECT_TRUE(tabs.contains(QObject::tr("Op statistics"))) << tabs.join(",").toStdString();
    EXPECT_EQ(w.tabs()->currentWidget()->property("viewName").toString(), "timeline");
    auto s = TraceStore::open(w.context()->sessionPath().toStdString(), TraceStore::Mode::ReadOnly)
                 .value();
    EXPECT_EQ(s->db()
                  .queryInt("SELECT count(*) FROM processes WHERE name LIKE 'rank0: %' OR "
                            "name LIKE 'rank1: %'")
                  .value(),
              2);
    ASSERT_TRUE(waitUntil([&] { return w.context()->jobs()->idle(); }, 60000));
}

}  // namespace
