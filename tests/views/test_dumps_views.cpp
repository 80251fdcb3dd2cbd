// The HDF5 views offscreen on the corpus: the inspector's lazy tree, statistics, heatmap and
// value table; clear errors for files that are not HDF5 or are truncated; the Overflow view
// on a dump and on a run's findings; the Compare view naming the first divergent pair.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QTreeView>
#include <fstream>

#include "core/debug/dump_config.h"
#include "core/run/training_job.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/dumps/common/dataset_panel.h"
#include "views/dumps/common/h5_file_registry.h"
#include "views/dumps/common/heatmap_widget.h"
#include "views/dumps/common/slice_spec.h"
#include "views/dumps/common/stats_widget.h"
#include "views/dumps/common/values_table_model.h"
#include "views/dumps/compare/compare_table_model.h"
#include "views/dumps/compare/compare_view.h"
#include "views/dumps/dumps_view_info.h"
#include "views/dumps/inspector/h5_tree_model.h"
#include "views/dumps/inspector/hdf5_inspector_view.h"
#include "views/dumps/overflow/overflow_view.h"
#include "views/training/dump_settings_widget.h"

namespace fs = std::filesystem;

namespace {

QString corpus(const std::string& rel) {
    return QString::fromStdString(ts::test::corpusFile(rel).string());
}

// Processes events until `done` holds and no job runs (or the timeout passes).
template <class F>
bool waitDumps(SessionContext& ctx, F done, int ms = 20000) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (ctx.jobs()->idle() && done()) return true;
        QTest::qWait(10);
    }
    return false;
}

TEST(SliceSpec, BlocksAndTransposedOffsets) {
    SliceSpec s = SliceSpec::defaultFor({4, 8, 16, 16});
    EXPECT_EQ(s.rowDim, 2);
    EXPECT_EQ(s.colDim, 3);
    EXPECT_EQ(s.describe(), "[0, 0, :, :]");
    s.fixed = {3, 7, 0, 0};
    s.rowDim = 3;  // transposed: rows along the last dimension
    s.colDim = 1;
    std::vector<uint64_t> start, count, stride;
    s.block(2, 5, 1, 3, start, count, stride);
    EXPECT_EQ(start, (std::vector<uint64_t>{3, 1, 0, 2}));
    EXPECT_EQ(count, (std::vector<uint64_t>{1, 3, 1, 5}));
    EXPECT_EQ(s.offset(4, 2, 5, 3), 2u * 5 + 4);  // C order reads the column dim first
    EXPECT_EQ(s.describe(), "[3, :, 0, :]");
    SliceSpec bad = s;
    bad.colDim = 3;
    bad.fixed = {9, 9, 99, 99};
    bad.normalize();
    EXPECT_NE(bad.rowDim, bad.colDim);
    EXPECT_EQ(bad.fixed[0], 3u);
    SliceSpec one = SliceSpec::defaultFor({10});
    EXPECT_EQ(one.rows(), 10u);
    EXPECT_EQ(one.cols(), 1u);
    EXPECT_EQ(SliceSpec::defaultFor({}).rows(), 1u);
}

TEST(Hdf5Inspector, LazyTreeStatsHeatmapAndValues) {
    TS_REQUIRE_CORPUS();
    ts::test::ensureQtApp();
    SessionContext ctx;
    Hdf5InspectorView view(&ctx);
    view.resize(1400, 900);
    view.show();
    view.openFile(corpus("generated/hdf5/features.h5"));
    ASSERT_TRUE(waitDumps(ctx, [&] { return view.model()->rowCount() > 0; }));
    // Only the root is listed: groups below are not until expanded.
    const QModelIndex curves = view.model()->indexOfPath("curves");
    ASSERT_TRUE(curves.isValid());
    EXPECT_TRUE(view.model()->canFetchMore(curves));
    EXPECT_FALSE(view.model()->indexOfPath("curves/loss").isValid());
    // The model checker fetches everything it can; it must find nothing wrong.
    QAbstractItemModelTester tester(view.model(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);

    view.selectPath("chunked_gzip");
    DatasetPanel* panel = view.panel();
    ASSERT_TRUE(waitDumps(
        ctx, [&] { return panel->path() == "chunked_gzip" && panel->stats()->result().ok; }));
    const auto& st = panel->stats()->result().stats;
    EXPECT_EQ(st.count, 1048576u);
    EXPECT_EQ(st.nan, 3u);
    EXPECT_EQ(st.posinf, 1u);
    EXPECT_EQ(st.neginf, 1u);
    EXPECT_NEAR(st.mean, -0.001266461623280478, 1e-9);
    EXPECT_FALSE(panel->stats()->result().histogram.counts.empty());
    // A 2-D dataset opens on its heatmap; 1024 x 1024 fits without striding.
    EXPECT_EQ(panel->tabs()->currentIndex(), DatasetPanel::HeatmapTab);
    ASSERT_TRUE(waitDumps(ctx, [&] { return panel->heatmap()->cells() == QSize(1024, 1024); }));
    // Values: the planted NaN at flat 0 and +Inf at flat 777 = [0, 777].
    ValuesTableModel* values = panel->values();
    values->data(values->index(0, 777));
    ASSERT_TRUE(waitDumps(ctx, [&] {
        return values->pendingBlocks() == 0 && values->data(values->index(0, 0)).toString() != "…";
    }));
    EXPECT_EQ(values->data(values->index(0, 0)).toString(), "nan");
    values->data(values->index(0, 777));
    ASSERT_TRUE(
        waitDumps(ctx, [&] { return values->data(values->index(0, 777)).toString() != "…"; }));
    EXPECT_EQ(values->data(values->index(0, 777)).toString(), "inf");

    // A nested path is listed on the way; the 1-D curve opens on its line plot.
    view.selectPath("curves/loss");
    ASSERT_TRUE(waitDumps(
        ctx, [&] { return panel->path() == "curves/loss" && panel->stats()->result().ok; }));
    EXPECT_EQ(panel->tabs()->currentIndex(), DatasetPanel::PlotTab);
    EXPECT_EQ(panel->stats()->result().stats.count, 1000u);
    // Compound: described, no statistics, values as text.
    view.selectPath("compound");
    ASSERT_TRUE(
        waitDumps(ctx, [&] { return panel->path() == "compound" && !panel->stats()->running(); }));
    EXPECT_FALSE(panel->stats()->result().ok);
    ASSERT_TRUE(waitDumps(ctx, [&] {
        return panel->values()->rowCount() == 2 &&
               panel->values()->data(panel->values()->index(0, 0)).toString().startsWith("{name");
    }));
}

TEST(Hdf5Inspector, BadFilesGiveClearErrors) {
    TS_REQUIRE_CORPUS();
    ts::test::ensureQtApp();
    SessionContext ctx;
    Hdf5InspectorView view(&ctx);
    QSignalSpy failed(&view, &Hdf5InspectorView::openFailed);
    view.openFile(corpus("real/hdf5/notahdf5file.h5"));
    ASSERT_TRUE(failed.wait(10000));
    EXPECT_TRUE(view.lastError().contains("not an HDF5 file")) << view.lastError().toStdString();
    const fs::path dir = ts::test::tempDir("h5views_bad");
    std::ifstream in(ts::test::corpusFile("generated/hdf5/features.h5"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const fs::path cut = dir / "cut.h5";
    std::ofstream(cut, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 3));
    view.openFile(QString::fromStdString(cut.string()));
    // Either a clear error at open or a tree whose unreadable parts say so: never a crash.
    ASSERT_TRUE(waitDumps(
        ctx, [&] { return !view.lastError().isEmpty() || view.model()->rowCount() > 0; }));
    if (view.lastError().isEmpty()) {
        for (int r = 0; r < view.model()->rowCount(); ++r) {
            view.selectPath(view.model()->index(r, 0).data(H5TreeModel::PathRole).toString());
            waitDumps(ctx, [] { return true; });
        }
    }
    EXPECT_TRUE(looksLikeHdf5(corpus("generated/hdf5/dump_gpu.h5")));
    EXPECT_TRUE(looksLikeHdf5(corpus("real/hdf5/notahdf5file.h5")));  // by its name
    EXPECT_FALSE(looksLikeHdf5(corpus("generated/hdf5/truth.json")));
}

TEST(OverflowView, DumpFindingsInExecutionOrderFirstHighlighted) {
    TS_REQUIRE_CORPUS();
    ts::test::ensureQtApp();
    SessionContext ctx;
    OverflowView view(&ctx);
    view.resize(1400, 900);
    QSignalSpy loaded(&view, &OverflowView::loaded);
    view.openFile(corpus("generated/hdf5/dump_npu.h5"));
    ASSERT_TRUE(
        waitDumps(ctx, [&] { return view.rows().size() == 6 && view.lastError().isEmpty(); }));
    EXPECT_EQ(view.rows()[0].path, "Linear/0/output/0");
    EXPECT_EQ(view.rows()[5].path, "Add/0/output/0");
    EXPECT_TRUE(view.orderText().startsWith("creation")) << view.orderText().toStdString();
    EXPECT_TRUE(view.table()->item(0, 0)->text().contains("first"));
    EXPECT_EQ(view.table()->item(0, 0)->background().color(), QColor(255, 205, 210));
    // The first finding's statistics are shown below it.
    ASSERT_TRUE(waitDumps(ctx, [&] { return view.panel()->stats()->result().ok; }));
    EXPECT_EQ(view.panel()->path(), "Linear/0/output/0");
    EXPECT_EQ(view.panel()->stats()->result().stats.posinf, 1u);
    view.table()->selectRow(2);
    ASSERT_TRUE(waitDumps(ctx, [&] {
        return view.panel()->path() == "Softmax/0/output/0" && view.panel()->stats()->result().ok;
    }));
    EXPECT_EQ(view.panel()->stats()->result().stats.nan, 20u);
}

TEST(OverflowView, RunFindingsFromTheSession) {
    ts::test::ensureQtApp();
    const fs::path dir = ts::test::tempDir("h5views_run");
    ts::run::JobOptions o;
    o.train.model = "mlp";
    o.train.dataset = "synthetic";
    o.train.syntheticSamples = 512;
    o.train.batchSize = 32;
    o.train.limitSteps = 15;
    o.train.lr = 50;
    o.train.evalAtEnd = false;
    o.sessionPath = (dir / "s.tscope").string();
    o.overflowCheck = true;
    ts::run::TrainingJob job(o);
    ASSERT_TRUE(job.prepare().ok());
    job.run();
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(o.sessionPath));
    OverflowView view(&ctx);
    view.showRun(job.runId());
    ASSERT_TRUE(waitDumps(ctx, [&] { return !view.rows().empty(); }));
    EXPECT_GT(view.rows()[0].step, 0);
    EXPECT_FALSE(view.rows()[0].file.isEmpty());
    ASSERT_TRUE(waitDumps(ctx, [&] { return view.panel()->stats()->result().ok; }));
    const auto& s = view.panel()->stats()->result().stats;
    EXPECT_GT(s.nan + s.posinf + s.neginf, 0u);
}

TEST(CompareView, FirstDivergentAndThresholds) {
    TS_REQUIRE_CORPUS();
    ts::test::ensureQtApp();
    SessionContext ctx;
    CompareView view(&ctx);
    view.resize(1400, 900);
    view.compare(corpus("generated/hdf5/dump_npu.h5"), corpus("generated/hdf5/dump_gpu.h5"));
    ASSERT_TRUE(waitDumps(ctx, [&] { return view.model()->rowCount() == 35; }));
    const int first = view.model()->firstDivergentRow();
    ASSERT_GE(first, 0);
    EXPECT_EQ(view.model()->report().pairs[static_cast<size_t>(first)].tensor.path,
              "Conv2d/1/output/0");
    EXPECT_TRUE(view.model()
                    ->data(view.model()->index(first, CompareTableModel::Index))
                    .toString()
                    .contains("first"));
    ts::debug::CompareThresholds strict;
    strict.maxAbs = 1e-4;
    view.setThresholds(strict);
    const int strictFirst = view.model()->firstDivergentRow();
    EXPECT_EQ(view.model()->report().pairs[static_cast<size_t>(strictFirst)].tensor.path,
              "Conv2d/0/input/0");
    const fs::path dir = ts::test::tempDir("h5views_csv");
    const QString csv = QString::fromStdString((dir / "c.csv").string());
    ASSERT_TRUE(view.exportCsv(csv));
    std::ifstream in(csv.toStdString());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("Conv2d/1/output/0"), std::string::npos);
    // A pair opens in the inspector, which may be created after the request.
    H5FileRegistry::instance()->requestInspect(corpus("generated/hdf5/dump_npu.h5"),
                                               "Conv2d/1/output/0");
    Hdf5InspectorView inspector(&ctx);
    ASSERT_TRUE(waitDumps(ctx, [&] {
        return inspector.panel()->path() == "Conv2d/1/output/0" &&
               inspector.panel()->stats()->result().ok;
    }));
    EXPECT_TRUE(inspector.currentFile().endsWith("dump_npu.h5"));
    // A file that is not HDF5 is an error, not a crash.
    view.compare(corpus("real/hdf5/notahdf5file.h5"), corpus("generated/hdf5/dump_gpu.h5"));
    ASSERT_TRUE(waitDumps(ctx, [&] { return !view.lastError().isEmpty(); }));
    EXPECT_EQ(view.model()->rowCount(), 0);
}

TEST(DumpSettingsWidget, FormRoundTripsThroughDumpJson) {
    ts::test::ensureQtApp();
    DumpSettingsWidget w;
    EXPECT_TRUE(w.dumpJson().empty());  // off by default
    const std::string json =
        "{\"dump_path\": \"/tmp/d\", \"dump_mode\": \"output\", \"dump_list\": [\"MatMul\", "
        "\"ReLU\"], "
        "\"op_filter\": \"fc1\", \"steps\": \"2-3\", \"file_per\": \"run\", \"check_overflow\": "
        "true}";
    ASSERT_TRUE(w.load(json));
    EXPECT_TRUE(w.validate().isEmpty()) << w.validate().toStdString();
    ts::run::JobOptions o;
    w.applyTo(o);
    EXPECT_TRUE(o.overflowCheck);
    EXPECT_FALSE(o.stopOnOverflow);
    auto c = ts::debug::parseDumpConfig(o.dumpConfigJson);
    ASSERT_TRUE(c.ok()) << o.dumpConfigJson;
    EXPECT_EQ(c->dumpPath, "/tmp/d");
    EXPECT_EQ(c->mode, ts::debug::DumpMode::Output);
    EXPECT_EQ(c->dumpList, (std::vector<std::string>{"MatMul", "ReLU"}));
    EXPECT_EQ(c->opFilter, "fc1");
    EXPECT_EQ(c->steps, (std::set<int64_t>{2, 3}));
    EXPECT_FALSE(c->filePerStep);
    QString err;
    EXPECT_FALSE(w.load("{\"dump_mode\": 3}", &err));
    EXPECT_FALSE(err.isEmpty());
}

}  // namespace
