// File > Open Folder through the main window, offscreen: a folder of MindSpore runs (summary
// + lineage), a dump tree, an RDR export and a file no importer reads imports into a new
// session; the report lists every file with its fate; the Curves view opens on the runs;
// dropping a MindSpore RDR or dump folder opens its view instead.
#include <gtest/gtest.h>

#include <QApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>

#include <map>

#include "app/gui/folder_report_dialog.h"
#include "app/gui/main_window.h"
#include "app/gui/session_document.h"
#include "tests/common/mindspore_dump_fixtures.h"
#include "tests/common/summary_fixtures.h"
#include "tests/common/test_support.h"
#include "views/common/session_context.h"

namespace fs = std::filesystem;

namespace {
QApplication* guiApp() {
    static int argc = 1;
    static char name[] = "test_gui_folder";
    static char* argv[] = {name, nullptr};
    static QApplication* a = [] {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        auto* q = QApplication::instance() ? qobject_cast<QApplication*>(QApplication::instance())
                                           : new QApplication(argc, argv);
        q->setProperty("trainscope_headless", true);
        QCoreApplication::setOrganizationName("TrainScopeTest");
        return q;
    }();
    return a;
}
}  // namespace

TEST(OpenFolder, ImportsEveryKindAndReportsEveryFile) {
    guiApp();
    qputenv("XDG_DATA_HOME",
            QByteArray::fromStdString(ts::test::tempDir("open_folder_data").string()));
    const auto root = ts::test::tempDir("open_folder");
    for (int r = 1; r <= 2; ++r) {
        const auto run = root / ("run_" + std::to_string(r));
        ts::test::writeMindSporeSummary(run / "events.summary.1700000000.host_MS", 10, 0.5f * r);
        ts::test::writeMindSporeLineage(run / "events.summary.1700000000.host_lineage", 0.01f * r,
                                        32, 0.9f);
    }
    ts::test::writeMindSporeDump(root / "dump", 0, "Net", 0, 1, ts::test::lenetOps());
    ts::test::writeMindSporeRdr(root / "rdr");
    ts::test::writeFile(root / "readme.bin", std::string("\x00\x01\x02", 3));
    MainWindow w;
    QSignalSpy done(w.document(), &SessionDocument::folderImported);
    w.document()->importFiles({QString::fromStdString(root.string())});
    ASSERT_TRUE(done.wait(30000));
    const auto result = done.at(0).at(0).value<ts::importers::BatchImport>();
    EXPECT_FALSE(w.context()->sessionPath().isEmpty());
    std::map<std::string, int64_t> counts;
    for (const auto& [fate, n] : result.fateCounts()) counts[ts::importers::fateName(fate)] = n;
    EXPECT_EQ(counts["failed"], 0);
    EXPECT_GE(counts["imported"], 4);
    EXPECT_GE(counts["skipped"], 1);
    // The Curves view opened on the runs.
    EXPECT_EQ(w.tabs()->currentWidget()->property("viewName").toString(), "curves");
    FolderReportDialog dlg(result);
    EXPECT_EQ(dlg.table()->rowCount(), static_cast<int>(result.files.size()));
    dlg.setFateFilter("skipped");
    int visible = 0;
    for (int r = 0; r < dlg.table()->rowCount(); ++r) visible += !dlg.table()->isRowHidden(r);
    EXPECT_EQ(visible, counts["skipped"]);
    // A dropped MindSpore RDR folder opens its view.
    w.openPaths({QString::fromStdString((root / "rdr").string())});
    EXPECT_EQ(w.tabs()->currentWidget()->property("viewName").toString(), "msrdr");
    w.openPaths({QString::fromStdString((root / "dump").string())});
    EXPECT_EQ(w.tabs()->currentWidget()->property("viewName").toString(), "msdump");
}
