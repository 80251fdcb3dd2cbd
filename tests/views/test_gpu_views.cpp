// The Kernel view and the GPU overview offscreen, on the real PyTorch 2.11 trace from an H200:
// kernels grouped by name and by launch configuration with occupancy, Tensor Cores and the
// launching op; CSV export; a row that opens its longest call; the GPU summary, the step split
// of four steps (not eight) and HTA's figures beside the studio's.
#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <fstream>

#include "importers/batch_import.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/gpu_overview/gpu_overview_view.h"
#include "views/gpu_overview/gpu_overview_view_info.h"
#include "views/kernels/kernel_table_model.h"
#include "views/kernels/kernel_view.h"
#include "views/kernels/kernel_view_info.h"

namespace {

std::filesystem::path torchSession() {
    static const std::filesystem::path path = [] {
        const auto p = ts::test::tempDir("gpu_views") / "t.tscope";
        auto s = ts::store::TraceStore::open(p.string(), ts::store::TraceStore::Mode::Create);
        EXPECT_TRUE(s.ok());
        ts::JobControl jc;
        const auto batch = ts::importers::importFiles(
            {std::string(TRAINSCOPE_SOURCE_DIR) +
             "/tests/data/torch211_h200/transformer_bf16_h200.pt.trace.json.gz"},
            *s.value(), jc);
        EXPECT_FALSE(batch.anyFailed());
        return p;
    }();
    return path;
}

int findRow(QAbstractItemModel* m, int column, const QString& prefix) {
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, column).data().toString().startsWith(prefix)) return r;
    return -1;
}

}  // namespace

TEST(KernelView, KernelsOfATorchH200Trace) {
    ts::test::ensureQtApp();
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(torchSession().string()));
    auto info = kernelViewInfo();
    EXPECT_EQ(info.name, "kernels");
    std::unique_ptr<QWidget> w(info.create(&ctx, nullptr));
    auto* view = qobject_cast<KernelView*>(w.get());
    ASSERT_NE(view, nullptr);
    QTRY_VERIFY_WITH_TIMEOUT(view->model()->rowCount() > 0, 20000);
    QTRY_VERIFY(ctx.jobs()->idle());
    const auto& t = view->model()->table();
    EXPECT_EQ(t.calls, 252 + 16 + 28);
    EXPECT_TRUE(view->summaryLabel()->text().contains("NVIDIA H200"));
    EXPECT_TRUE(view->summaryLabel()->text().contains("Tensor Cores"));
    // CUDA's columns shown, Ascend's hidden.
    EXPECT_FALSE(view->table()->isColumnHidden(KernelTableModel::Occupancy));
    EXPECT_TRUE(view->table()->isColumnHidden(KernelTableModel::CoreType));
    // cuBLASLt's nvjet GEMM: Tensor Cores, launched by aten::mm with its input shapes.
    QAbstractItemModel* m = view->proxy();
    const int nvjet = findRow(m, KernelTableModel::Name, "nvjet_sm90_tst_64x128_64x8_2x1_v_bz_NTN");
    ASSERT_GE(nvjet, 0);
    EXPECT_EQ(m->index(nvjet, KernelTableModel::TensorCores).data().toString(), "yes");
    EXPECT_EQ(m->index(nvjet, KernelTableModel::Op).data().toString(), "aten::mm");
    EXPECT_TRUE(m->index(nvjet, KernelTableModel::InputShapes).data().toString().startsWith("[["));
    EXPECT_EQ(m->index(nvjet, KernelTableModel::Grid).data().toString(), "[2,64,1]");
    // Its occupancy: Kineto's 0 (opted-in shared memory) against the theoretical 18.8%.
    EXPECT_EQ(m->index(nvjet, KernelTableModel::Occupancy).data().toString(), "0.0%");
    EXPECT_EQ(m->index(nvjet, KernelTableModel::Theoretical).data().toString(), "18.8%");
    const int fill =
        findRow(m, KernelTableModel::Name,
                "void at::native::vectorized_elementwise_kernel<8, at::native::FillFunctor");
    ASSERT_GE(fill, 0);
    EXPECT_EQ(m->index(fill, KernelTableModel::TensorCores).data().toString(), "");
    // Sorted by total time, largest first; filter by op name.
    EXPECT_GE(m->index(0, KernelTableModel::Total).data(KernelTableModel::SortRole).toDouble(),
              m->index(1, KernelTableModel::Total).data(KernelTableModel::SortRole).toDouble());
    view->filterEdit()->setText("aten::mm");
    EXPECT_GT(view->proxy()->rowCount(), 0);
    EXPECT_LT(view->proxy()->rowCount(), view->model()->rowCount());
    view->filterEdit()->clear();
    // By launch configuration: at least as many rows.
    const int byName = view->model()->rowCount();
    view->groupBox()->setCurrentIndex(1);
    EXPECT_GE(view->model()->rowCount(), byName);
    EXPECT_FALSE(view->model()->table().rows.front().grid.empty());
    // A row opens its longest call in the timeline.
    QSignalSpy selected(&ctx, &SessionContext::sliceSelected);
    QSignalSpy views(&ctx, &SessionContext::viewRequested);
    emit view->table()->doubleClicked(view->proxy()->index(0, 0));
    ASSERT_EQ(selected.count(), 1);
    EXPECT_EQ(selected.at(0).at(0).toLongLong(),
              view->model()->table().rows.front().sliceIds.front());
    ASSERT_EQ(views.count(), 1);
    EXPECT_EQ(views.at(0).at(0).toString(), "timeline");
    // CSV export on a job: a header and one line per row.
    const auto csv = ts::test::tempDir("gpu_views_csv") / "k.csv";
    bool done = false;
    QString error = "pending";
    view->exportCsv(QString::fromStdString(csv.string()), [&](const QString& e) {
        error = e;
        done = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
    EXPECT_TRUE(error.isEmpty());
    std::ifstream in(csv);
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) ++lines;
    EXPECT_EQ(lines, view->model()->rowCount() + 1);
}

TEST(GpuOverviewView, SummarySplitAndHtaBesideTheStudio) {
    ts::test::ensureQtApp();
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(torchSession().string()));
    auto info = gpuOverviewViewInfo();
    EXPECT_EQ(info.name, "gpu");
    std::unique_ptr<QWidget> w(info.create(&ctx, nullptr));
    auto* view = qobject_cast<GpuOverviewView*>(w.get());
    ASSERT_NE(view, nullptr);
    QTRY_VERIFY_WITH_TIMEOUT(view->report().has_value(), 20000);
    QTRY_VERIFY(ctx.jobs()->idle());
    EXPECT_TRUE(view->summaryLabel()->text().contains("GPU utilisation"));
    EXPECT_TRUE(view->summaryLabel()->text().contains("est. SM efficiency"));
    EXPECT_TRUE(view->summaryLabel()->text().contains("est. achieved occupancy"));
    ASSERT_EQ(view->bars().size(), 8u);                  // the plugin's eight roles
    EXPECT_EQ(view->bars().front()->data()->size(), 4);  // four steps, not eight
    EXPECT_TRUE(view->splitHelpLabel()->text().contains("DataLoader"));
    // HTA's table and the studio's, named apart.
    EXPECT_TRUE(view->htaTable()->horizontalHeaderItem(0)->text().contains("HTA"));
    EXPECT_TRUE(view->studioTable()->horizontalHeaderItem(0)->text().contains("Studio"));
    bool temporal = false;
    for (int r = 0; r < view->htaTable()->rowCount(); ++r)
        if (auto* i = view->htaTable()->item(r, 0); i && i->text().startsWith("Temporal breakdown"))
            temporal = true;
    EXPECT_TRUE(temporal);
    EXPECT_GT(view->studioTable()->rowCount(), 4);
    // Hovering a bar gives its figures; clicking it zooms the timeline to the step.
    EXPECT_TRUE(view->stepToolTip(0).contains("ProfilerStep#2"));
    QSignalSpy ranges(&ctx, &SessionContext::timeRangeRequested);
    emit view->plot()->plottableClick(view->bars().front(), 1, nullptr);
    ASSERT_EQ(ranges.count(), 1);
    EXPECT_EQ(ranges.at(0).at(0).toLongLong(), view->report()->overview.steps[1].start);
}
