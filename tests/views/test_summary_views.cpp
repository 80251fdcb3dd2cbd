// The views of summary values offscreen, over a session that imported a MindSpore summary
// folder of three runs (histograms, images, tensors, a landscape, the graph, lineage) and a
// PyTorch-style TensorBoard run: each view lists the runs and tags and shows the values.
#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QtTest>

#include "core/store/trace_store.h"
#include "importers/batch_import.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/summary_fixtures.h"
#include "tests/common/test_support.h"
#include "views/common/session_context.h"
#include "views/curves/curves_chart.h"
#include "views/curves/curves_loader.h"
#include "views/curves/curves_view.h"
#include "views/dumps/common/dataset_panel.h"
#include "views/dumps/common/stats_widget.h"
#include "views/summary/graph_view.h"
#include "views/summary/histograms_view.h"
#include "views/summary/images_view.h"
#include "views/summary/landscape_view.h"
#include "views/summary/lineage_view.h"
#include "views/summary/parallel_coordinates.h"
#include "views/summary/tensors_view.h"

using namespace ts;
namespace fs = std::filesystem;

namespace {

/// A session with summary_dir/run_{1,2,3} (MindSpore) imported; built once.
const std::string& summarySession() {
    static const std::string path = [] {
        const auto root = test::tempDir("summary_views");
        for (int r = 1; r <= 3; ++r) {
            const auto run = root / "summary_dir" / ("run_" + std::to_string(r));
            test::writeMindSporeSummary(run / "events.summary.1700000000.host_MS", 25, 0.5f * r);
            test::writeMindSporeLineage(run / "events.summary.1700000000.host_lineage", 0.01f * r,
                                        32 * r, 0.9f + 0.02f * r, r == 2 ? "Adam" : "Momentum");
        }
        const std::string session = (root / "s.tscope").string();
        auto s = store::TraceStore::open(session, store::TraceStore::Mode::Create);
        EXPECT_TRUE(s.ok());
        JobControl jc;
        importers::importFiles({(root / "summary_dir").string()}, *s.value(), jc);
        return session;
    }();
    return path;
}

template <class V>
void openIn(V& view, SessionContext& ctx) {
    QSignalSpy spy(&view, &SummaryKindView::valuesShown);
    ctx.setSessionPath(QString::fromStdString(summarySession()));
    ASSERT_TRUE(spy.wait(10000));
}

}  // namespace

TEST(SummaryViews, HistogramsDistributionAndOffset) {
    test::ensureQtApp();
    SessionContext ctx;
    HistogramsView view(&ctx);
    view.resize(1100, 700);
    openIn(view, ctx);
    EXPECT_EQ(view.runCombo()->count(), 3);
    ASSERT_EQ(view.tagList()->count(), 1);
    EXPECT_EQ(view.tagList()->item(0)->text(), "conv1.weight/auto");
    EXPECT_EQ(view.stepCount(), 5);
    EXPECT_GE(view.plot()->graphCount(), 9);  // the 9 percentile lines
    EXPECT_TRUE(view.stepText().contains("NaN 2")) << view.stepText().toStdString();
    view.stepSlider()->setValue(0);
    EXPECT_TRUE(view.stepText().contains("step 5")) << view.stepText().toStdString();
    view.setMode(HistogramsView::Mode::Offset);
    EXPECT_EQ(view.plot()->graphCount(), 2 * view.stepCount());  // a ridge and its floor per step
    view.tagFilter()->setText("^nomatch$");
    EXPECT_EQ(view.tagList()->count(), 0);
}

TEST(SummaryViews, ImagesAStripPerTagWithASlider) {
    test::ensureQtApp();
    SessionContext ctx;
    ImagesView view(&ctx);
    view.resize(1000, 700);
    QSignalSpy loaded(&view, &ImagesView::stripsLoaded);
    ctx.setSessionPath(QString::fromStdString(summarySession()));
    ASSERT_TRUE(loaded.wait(10000));
    const auto strips = view.strips();
    ASSERT_EQ(strips.size(), 1);
    EXPECT_EQ(strips[0]->tag(), "input_data/auto");
    EXPECT_EQ(strips[0]->imageCount(), 5);
    EXPECT_EQ(strips[0]->shownStep(), 25);
    strips[0]->slider()->setValue(0);
    EXPECT_EQ(strips[0]->shownStep(), 5);
    ASSERT_FALSE(strips[0]->imageLabel()->pixmap().isNull());
    EXPECT_GE(strips[0]->imageLabel()->pixmap().width(), 16 * 10);  // scaled up, pixels kept
}

TEST(SummaryViews, TensorsInTheTensorInspector) {
    test::ensureQtApp();
    SessionContext ctx;
    TensorsView view(&ctx);
    view.resize(1100, 800);
    QSignalSpy shown(&view, &TensorsView::tensorShown);
    ctx.setSessionPath(QString::fromStdString(summarySession()));
    ASSERT_TRUE(shown.wait(10000));
    EXPECT_TRUE(view.panel()->path().endsWith("/output/0")) << view.panel()->path().toStdString();
    QSignalSpy stats(view.panel()->stats(), &StatsWidget::statsReady);
    ASSERT_TRUE(stats.count() > 0 || stats.wait(10000));
    EXPECT_EQ(view.panel()->stats()->result().stats.count, 24u);
    EXPECT_TRUE(view.stepText().contains("step 25"));
}

TEST(SummaryViews, LandscapeContourAndPath) {
    test::ensureQtApp();
    SessionContext ctx;
    LandscapeView view(&ctx);
    view.resize(900, 700);
    openIn(view, ctx);
    EXPECT_EQ(view.landscape().xs.size(), 21u);
    EXPECT_EQ(view.landscape().pathZ.size(), 8u);
    EXPECT_GE(view.plot()->plottableCount(), 3);  // colour map, path, convergence point
    EXPECT_GT(view.plot()->itemCount(), 20);      // iso-line segments and path labels
    EXPECT_TRUE(view.infoText().contains("PCA")) << view.infoText().toStdString();
}

TEST(SummaryViews, GraphScopeTreeSearchAndDetails) {
    test::ensureQtApp();
    SessionContext ctx;
    GraphView view(&ctx);
    view.resize(1100, 700);
    openIn(view, ctx);
    ASSERT_EQ(view.graph().nodes.size(), 6u);
    EXPECT_EQ(view.find("MatMul"), 1);
    QSignalSpy links(&view, &GraphView::linksLooked);
    ASSERT_TRUE(links.count() > 0 || links.wait(10000));
    const QString html = view.details()->toPlainText();
    EXPECT_TRUE(html.contains("MatMul")) << html.toStdString();
    EXPECT_TRUE(html.contains("fc1-Dense"));
    EXPECT_TRUE(html.contains("float32 [32, 120]"));
    EXPECT_TRUE(html.contains("data_format"));
    EXPECT_TRUE(html.contains("Profile: no op of this name."));
    // Scope path down to the node.
    QTreeWidgetItem* item = view.tree()->currentItem();
    ASSERT_TRUE(item);
    QStringList path;
    for (QTreeWidgetItem* p = item; p; p = p->parent()) path.prepend(p->text(0));
    EXPECT_EQ(path.join("/").toStdString(),
              "train_graph/Default/network-WithLossCell/_backbone-LeNet5/fc1-Dense/MatMul-op3");
}

TEST(SummaryViews, LineageTableAndParallelCoordinates) {
    test::ensureQtApp();
    SessionContext ctx;
    LineageView view(&ctx);
    view.resize(1200, 700);
    QSignalSpy loaded(&view, &LineageView::loaded);
    ctx.setSessionPath(QString::fromStdString(summarySession()));
    ASSERT_TRUE(loaded.wait(10000));
    ASSERT_EQ(view.proxy()->rowCount(), 3);
    const auto& d = view.data();
    EXPECT_NE(std::find(d.hparamKeys.begin(), d.hparamKeys.end(), "learning_rate"),
              d.hparamKeys.end());
    EXPECT_NE(std::find(d.metricKeys.begin(), d.metricKeys.end(), "accuracy"), d.metricKeys.end());
    EXPECT_GE(view.coordinates()->axisCount(), 5);
    // Sort by accuracy, descending: run_3 first.
    int accCol = -1;
    for (int c = 0; c < view.proxy()->columnCount(); ++c)
        if (view.proxy()->headerData(c, Qt::Horizontal).toString() == "accuracy") accCol = c;
    ASSERT_GE(accCol, 0);
    view.table()->sortByColumn(accCol, Qt::DescendingOrder);
    EXPECT_TRUE(view.proxy()->index(0, 0).data().toString().startsWith("run_3"));
    // Filter: only the Adam run.
    view.filter()->setText("Adam");
    EXPECT_EQ(view.proxy()->rowCount(), 1);
    // The last scalar values as metrics.
    view.filter()->clear();
    QSignalSpy again(&view, &LineageView::loaded);
    view.lastScalars()->setChecked(true);
    ASSERT_TRUE(again.wait(10000));
    EXPECT_NE(
        std::find(view.data().metricKeys.begin(), view.data().metricKeys.end(), "last:loss/auto"),
        view.data().metricKeys.end());
    // Clicking a line selects its run.
    const QPointF at = view.coordinates()->pointOf(1, 0);
    ASSERT_TRUE(std::isfinite(at.y()));
}

TEST(SummaryViews, CurvesComparesTheRunsOfASummaryFolder) {
    test::ensureQtApp();
    SessionContext ctx;
    CurvesView view(&ctx);
    view.resize(1200, 700);
    QSignalSpy listed(view.loader(), &CurvesLoader::runsListed);
    ctx.setSessionPath(QString::fromStdString(summarySession()));
    ASSERT_TRUE(listed.wait(10000));
    ASSERT_EQ(view.runList()->count(), 3);
    QSignalSpy read(view.loader(), &CurvesLoader::scalarsRead);
    ASSERT_TRUE(read.count() > 0 || read.wait(10000));
    QTRY_COMPARE_WITH_TIMEOUT(view.chart()->runIds().size(), size_t(3), 10000);
    view.setRunFilter("run_(1|3)");
    int hidden = 0;
    for (int i = 0; i < view.runList()->count(); ++i) hidden += view.runList()->item(i)->isHidden();
    EXPECT_EQ(hidden, 1);
    EXPECT_EQ(view.chart()->runIds().size(), 2u);
    view.setRunFilter("");
    QTRY_COMPARE_WITH_TIMEOUT(view.chart()->runIds().size(), size_t(3), 10000);
}
