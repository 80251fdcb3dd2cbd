#include "views/kernels/kernel_view.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/analysis/gpu/gpu_trace.h"
#include "core/store/trace_store.h"
#include "core/timeline/time_axis.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/kernels/kernel_table_model.h"

namespace gpu = ts::analysis::gpu;

KernelViewData loadKernelViewData(const std::string& path, int64_t sourceId, ts::JobControl& job) {
    KernelViewData d;
    auto store = ts::store::TraceStore::open(path, ts::store::TraceStore::Mode::ReadOnly);
    if (!store) {
        d.error = store.error();
        return d;
    }
    auto ids = gpu::listDeviceSources(*store.value());
    if (!ids) {
        d.error = ids.error();
        return d;
    }
    auto sources = store.value()->sources();
    for (int64_t id : ids.value()) {
        std::string label = "source " + std::to_string(id);
        if (sources)
            for (const auto& s : sources.value())
                if (s.id == id)
                    label = "#" + std::to_string(id) + " " +
                            (s.label.empty() ? std::filesystem::path(s.path).filename().string()
                                             : s.label);
        d.sources.emplace_back(id, label);
    }
    if (d.sources.empty()) {
        d.error =
            "No device kernels in this session: import a GPU trace (a PyTorch profiler "
            "trace with CUDA activity, an Nsight Systems export, a CUPTI file) or an "
            "Ascend profiler folder.";
        return d;
    }
    d.sourceId = d.sources.front().first;
    for (const auto& [id, label] : d.sources)
        if (id == sourceId) d.sourceId = id;
    auto g = gpu::loadGpuTrace(*store.value(), d.sourceId, &job);
    if (!g) {
        d.error = g.error();
        return d;
    }
    d.vendor = gpu::vendorKey(g.value().vendor);
    d.devices = g.value().devices;
    gpu::KernelTableOptions o;
    d.byName = gpu::buildKernelTable(g.value(), o);
    o.grouping = gpu::KernelGrouping::NameAndConfig;
    d.byConfig = gpu::buildKernelTable(g.value(), o);
    return d;
}

KernelView::KernelView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_sources(new QComboBox(this)),
      m_group(new QComboBox(this)),
      m_filter(new QLineEdit(this)),
      m_export(new QPushButton(tr("Export CSV…"), this)),
      m_summary(new QLabel(this)),
      m_table(new QTableView(this)),
      m_model(new KernelTableModel(this)),
      m_proxy(new QSortFilterProxyModel(this)) {
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Trace:"), this));
    m_sources->setMinimumContentsLength(28);
    m_sources->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    bar->addWidget(m_sources);
    bar->addWidget(new QLabel(tr("Group by:"), this));
    m_group->addItem(tr("Kernel name"));
    m_group->addItem(tr("Name + grid, block, registers, shared memory"));
    m_group->setToolTip(tr("One row per kernel name, or one per launch configuration of it."));
    bar->addWidget(m_group);
    m_filter->setPlaceholderText(tr("Filter by kernel or op name"));
    m_filter->setClearButtonEnabled(true);
    bar->addWidget(m_filter, 1);
    m_export->setToolTip(tr("Write every row of the table, as grouped, to a CSV file."));
    bar->addWidget(m_export);
    layout->addLayout(bar);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(KernelTableModel::SortRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(-1);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(KernelTableModel::Total, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    layout->addWidget(m_table, 1);

    connect(m_filter, &QLineEdit::textChanged, this,
            [this](const QString& t) { m_proxy->setFilterFixedString(t); });
    connect(m_group, &QComboBox::currentIndexChanged, this, [this] { applyGrouping(); });
    connect(m_sources, &QComboBox::activated, this,
            [this](int i) { reload(m_sources->itemData(i).toLongLong()); });
    connect(m_table, &QTableView::doubleClicked, this,
            [this](const QModelIndex& i) { activateRow(i); });
    connect(m_export, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export kernels"), QStringLiteral("kernels.csv"), tr("CSV files (*.csv)"));
        if (path.isEmpty()) return;
        exportCsv(path, [this](const QString& error) {
            if (!error.isEmpty()) m_summary->setText(error);
        });
    });
    connect(m_ctx, &SessionContext::sessionChanged, this, [this] { reload(-1); });
    connect(m_ctx, &SessionContext::dataChanged, this,
            [this] { reload(m_data ? m_data->sourceId : -1); });
    reload(-1);
}

void KernelView::reload(qint64 sourceId) {
    const QString path = m_ctx->sessionPath();
    if (path.isEmpty()) {
        m_data.reset();
        m_model->setTable({});
        m_summary->setText(tr("No session open."));
        return;
    }
    m_ctx->jobs()->run<KernelViewData>(
        this, QStringLiteral("kernel-view"), tr("Reading kernels"),
        [p = path.toStdString(), sourceId](ts::JobControl& jc) {
            return loadKernelViewData(p, sourceId, jc);
        },
        [this](KernelViewData d) { show(std::move(d)); });
}

void KernelView::show(KernelViewData d) {
    m_sources->clear();
    for (const auto& [id, label] : d.sources) {
        m_sources->addItem(QString::fromStdString(label), QVariant::fromValue<qint64>(id));
        if (id == d.sourceId) m_sources->setCurrentIndex(m_sources->count() - 1);
    }
    m_data = std::move(d);
    applyGrouping();
}

void KernelView::applyGrouping() {
    if (!m_data) return;
    if (!m_data->error.empty()) {
        m_model->setTable({});
        m_summary->setText(QString::fromStdString(m_data->error));
        return;
    }
    const bool config = m_group->currentIndex() == 1;
    m_model->setTable(config ? m_data->byConfig : m_data->byName);
    const gpu::KernelTable& t = m_model->table();
    int64_t tc = 0, kernels = 0;
    for (const auto& r : t.rows) {
        if (r.kind == "memcpy" || r.kind == "memset") continue;
        kernels += r.totalNs;
        if (r.tensorCore) tc += r.totalNs;
    }
    QString devices;
    for (const auto& dev : m_data->devices)
        devices += (devices.isEmpty() ? QString() : QStringLiteral(", ")) +
                   QStringLiteral("%1 (%2 SMs, compute %3)")
                       .arg(QString::fromStdString(dev.name))
                       .arg(dev.numSms)
                       .arg(QString::fromStdString(dev.computeCapability()));
    QString text = tr("%1 rows, %2 calls, %3 of device time (%4).")
                       .arg(t.rows.size())
                       .arg(t.calls)
                       .arg(QString::fromStdString(
                           ts::timeline::formatDuration(static_cast<double>(t.totalNs))))
                       .arg(QString::fromStdString(m_data->vendor));
    if (kernels > 0 && m_data->vendor != "ascend")
        text +=
            tr(" Tensor Cores: %1 of kernel time.")
                .arg(QString::number(100.0 * static_cast<double>(tc) / static_cast<double>(kernels),
                                     'f', 1) +
                     QLatin1Char('%'));
    if (!devices.isEmpty()) text += tr(" Device: %1.").arg(devices);
    text +=
        tr(" Hover a column header for its definition; double-click a row to see its "
           "longest call in the timeline.");
    m_summary->setText(text);
    // Each vendor's own columns: CUDA's launch configuration and occupancy mean nothing on an
    // Ascend kernel, its core type and block dim nothing on a CUDA one.
    const bool ascend = m_data->vendor == "ascend";
    for (int c = KernelTableModel::Occupancy; c <= KernelTableModel::SharedMemory; ++c)
        m_table->setColumnHidden(c, ascend);
    for (int c = KernelTableModel::CoreType; c <= KernelTableModel::Bound; ++c)
        m_table->setColumnHidden(c, !ascend);
    // A kernels-only file (Ascend's kernel_details.csv, an Nsight export) names no op.
    const bool anyOp =
        std::any_of(t.rows.begin(), t.rows.end(), [](const auto& r) { return !r.op.empty(); });
    m_table->setColumnHidden(KernelTableModel::Op, !anyOp);
    m_table->resizeColumnsToContents();
    m_table->setColumnWidth(KernelTableModel::Name,
                            std::min(m_table->columnWidth(KernelTableModel::Name), 420));
    m_table->setColumnWidth(KernelTableModel::InputShapes,
                            std::min(m_table->columnWidth(KernelTableModel::InputShapes), 260));
}

void KernelView::activateRow(const QModelIndex& index) {
    const auto ids = m_proxy->data(index, KernelTableModel::SlicesRole).value<QList<qint64>>();
    if (ids.isEmpty()) return;
    m_ctx->requestView(QStringLiteral("timeline"));
    m_ctx->selectSlice(ids.front());
}

void KernelView::exportCsv(const QString& path, std::function<void(const QString&)> done) {
    const std::string csv = ts::analysis::gpu::kernelTableCsv(m_model->table());
    m_ctx->jobs()->run<QString>(
        this, QStringLiteral("kernel-export"), tr("Writing %1").arg(path),
        [csv, p = path.toStdString()](ts::JobControl&) -> QString {
            std::ofstream out(p, std::ios::binary);
            if (out) out << csv;
            if (!out.good()) return QObject::tr("Cannot write %1").arg(QString::fromStdString(p));
            return QString();
        },
        [done](QString error) {
            if (done) done(error);
        });
}
