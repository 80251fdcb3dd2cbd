#include "views/memory/memory_view.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cstdlib>

#include "core/store/trace_store.h"
#include "core/timeline/time_axis.h"
#include "views/common/bytes_item.h"
#include "views/common/job_tracker.h"
#include "views/common/profile_source_box.h"
#include "views/common/session_context.h"

using namespace ts::analysis;

namespace {

QString bytesText(double b) {
    return QLocale().formattedDataSize(static_cast<qint64>(b), 2,
                                       QLocale::DataSizeTraditionalFormat);
}

/// Unit for the x axis (time since the first sample): ns, µs, ms or s.
std::pair<double, QString> timeUnit(double spanNs) {
    if (spanNs >= 1e9) return {1e9, QStringLiteral("s")};
    if (spanNs >= 1e6) return {1e6, QStringLiteral("ms")};
    if (spanNs >= 1e3) return {1e3, QStringLiteral("µs")};
    return {1, QStringLiteral("ns")};
}

/// Byte ticks in KiB / MiB / GiB at round binary steps.
class BytesTicker : public QCPAxisTicker {
protected:
    double getTickStep(const QCPRange& range) override {
        const double raw = range.size() / 5.0;
        double unit = 1;
        while (unit * 1024 <= raw) unit *= 1024;
        return cleanMantissa(raw / unit) * unit;
    }
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        return bytesText(tick);
    }
};

}  // namespace

MemoryView::MemoryView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_sources(new ProfileSourceBox(this)),
      m_summary(new QLabel(this)),
      m_plot(new QCustomPlot(this)),
      m_table(new QTableWidget(0, ColumnCount, this)),
      m_opTable(new QTableWidget(0, OpColumnCount, this)),
      m_byShape(new QCheckBox(tr("By input shape"), this)) {
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(m_sources->makeBar(this));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    auto* split = new QSplitter(Qt::Vertical, this);
    m_plot->setMinimumHeight(220);
    m_plot->legend->setVisible(true);
    // The legend in a row of its own above the plot: no corner of the curve is reliably free.
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, m_plot->legend);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->yAxis->setLabel(tr("Bytes"));
    split->addWidget(m_plot);
    m_table->setHorizontalHeaderLabels(
        {tr("Op"), tr("Shape"), tr("Bytes"), tr("Tensor"), tr("Allocated at")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    for (int c : {Op, Shape, Bytes, AllocatedAt})
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(Tensor, QHeaderView::Stretch);
    // Memory by op: allocated, freed and net per op (or op and input shape).
    auto* opPage = new QWidget(this);
    auto* opLayout = new QVBoxLayout(opPage);
    opLayout->setContentsMargins(0, 0, 0, 0);
    opLayout->addWidget(m_byShape);
    m_opTable->setHorizontalHeaderLabels(
        {tr("Op"), tr("Input shapes"), tr("Allocations"), tr("Allocated"), tr("Freed"), tr("Net")});
    m_opTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_opTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_opTable->verticalHeader()->hide();
    m_opTable->setSortingEnabled(true);
    m_opTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_opTable->horizontalHeader()->setSectionResizeMode(OpShapes, QHeaderView::Stretch);
    m_opTable->setToolTip(
        tr("allocated: bytes of the op's allocations; freed: those freed "
           "within the profile; net: what they still held at its end"));
    opLayout->addWidget(m_opTable, 1);
    connect(m_byShape, &QCheckBox::toggled, this, [this] { showOps(); });
    auto* tabs = new QTabWidget(this);
    tabs->addTab(m_table, tr("Live at the peak"));
    tabs->addTab(opPage, tr("Memory by op"));
    split->addWidget(tabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (!m_memory || row < 0 || row >= static_cast<int>(m_memory->topAtPeak.size())) return;
        const auto& a = m_memory->topAtPeak[static_cast<size_t>(row)];
        m_ctx->requestView(QStringLiteral("timeline"));
        m_ctx->requestTimeRange(a.ts, std::max(a.ts + 1, m_memory->peakTs));
    });
    m_sources->follow(m_ctx, this, [this](qint64 id) { reload(id); });
}

void MemoryView::reload(qint64 sourceId) {
    if (m_ctx->sessionPath().isEmpty()) {
        showError(tr("No session open."));
        return;
    }
    using OpResult = ts::Result<ts::memory::OpMemory>;
    const std::string session = m_ctx->sessionPath().toStdString();
    loadProfileReport(m_ctx, this, QStringLiteral("memory-view"), sourceId,
                      [this, session](const ProfileReportResult& r) {
                          if (!r) {
                              showError(QString::fromStdString(r.error()));
                              return;
                          }
                          m_sources->setSources(r.value().sources, r.value().sourceId);
                          m_stepStarts.clear();
                          for (const auto& st : r.value().steps.steps)
                              m_stepStarts.emplace_back(st.number, st.ts);
                          show(r.value().memory, QString::fromStdString(r.value().sourceLabel));
                          const int64_t src = r.value().sourceId;
                          m_ctx->jobs()->run<OpResult>(
                              this, QStringLiteral("memory-view-ops"), tr("Memory by op"),
                              [session, src](ts::JobControl& jc) -> OpResult {
                                  auto st = ts::store::TraceStore::open(
                                      session, ts::store::TraceStore::Mode::ReadOnly);
                                  if (!st) return ts::Error{st.error()};
                                  return ts::memory::analyzeOpMemory(*st.value(), src, &jc);
                              },
                              [this](OpResult ops) {
                                  if (ops)
                                      m_opMemory = std::move(ops.value());
                                  else
                                      m_opMemory.reset();
                                  showOps();
                              });
                      });
}

void MemoryView::showOps() {
    m_opTable->setSortingEnabled(false);
    m_opTable->setRowCount(0);
    if (!m_opMemory) return;
    const auto& rows = m_byShape->isChecked() ? m_opMemory->byOpAndShape : m_opMemory->byOp;
    m_opTable->setColumnHidden(OpShapes, !m_byShape->isChecked());
    m_opTable->setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        const auto& row = rows[static_cast<size_t>(r)];
        m_opTable->setItem(r, OpName, new QTableWidgetItem(QString::fromStdString(row.op)));
        m_opTable->setItem(r, OpShapes, new QTableWidgetItem(QString::fromStdString(row.shapes)));
        auto num = [&](int col, qint64 v, bool bytes) {
            QTableWidgetItem* it = bytes ? new BytesItem(v) : new QTableWidgetItem;
            if (!bytes) {
                it->setData(Qt::DisplayRole, v);
                it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            }
            m_opTable->setItem(r, col, it);
        };
        num(OpAllocations, row.allocations, false);
        num(OpAllocated, row.allocated, true);
        num(OpFreed, row.freed, true);
        num(OpNet, row.net(), true);
    }
    m_opTable->setSortingEnabled(true);
    m_opTable->sortItems(OpAllocated, Qt::DescendingOrder);
}

void MemoryView::showError(const QString& message) {
    m_memory.reset();
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_plot->replot();
    m_table->setRowCount(0);
    m_summary->setText(message);
}

void MemoryView::show(const MemoryAnalysis& m, const QString& sourceLabel) {
    m_memory = m;
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_table->setRowCount(0);
    if (!m.hasPeak) {
        m_plot->replot();
        m_summary->setText(tr("%1: no memory data (record with profile_memory, or import a trace "
                              "with memory events).")
                               .arg(sourceLabel));
        return;
    }
    const int64_t t0 = m.inUse.ts.front();
    int64_t t1 = m.inUse.ts.back();
    if (!m.pool.empty()) t1 = std::max(t1, m.pool.ts.back());
    const auto [scale, unit] = timeUnit(static_cast<double>(t1 - t0));
    auto addSeries = [&](const MemorySeries& s, QColor colour) {
        QCPGraph* g = m_plot->addGraph();
        g->setName(QString::fromStdString(s.name));
        g->setPen(QPen(colour, 1.5));
        g->setLineStyle(QCPGraph::lsStepLeft);
        QVector<double> x, y;
        for (size_t i = 0; i < s.ts.size(); ++i) {
            x << static_cast<double>(s.ts[i] - t0) / scale;
            y << s.value[i];
        }
        g->setData(x, y, true);
    };
    addSeries(m.inUse, QColor(0, 114, 178));
    if (!m.pool.empty()) addSeries(m.pool, QColor(160, 160, 160));
    const QColor others[] = {QColor(230, 159, 0), QColor(0, 158, 115), QColor(204, 121, 167)};
    size_t nOther = 0;
    for (const MemorySeries& o : m.others)  // the other devices of a Kineto trace
        if (o.name.rfind("Total Allocated (", 0) == 0 && !o.empty())
            addSeries(o, others[nOther++ % std::size(others)]);
    QCPGraph* peak = m_plot->addGraph();
    peak->setName(tr("Peak"));
    peak->setLineStyle(QCPGraph::lsNone);
    peak->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, Qt::red, Qt::red, 8));
    const double px = static_cast<double>(m.peakTs - t0) / scale;
    peak->setData({px}, {m.peakBytes});
    m_plot->xAxis->setLabel(tr("Time since first sample (%1)").arg(unit));
    m_plot->rescaleAxes();
    const QCPRange xr = m_plot->xAxis->range();
    auto* label = new QCPItemText(m_plot);
    label->position->setCoords(px, m.peakBytes);
    // Toward the middle of the plot, so the label never leaves it.
    const bool right = px > (xr.lower + xr.upper) / 2;
    label->setPositionAlignment((right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignBottom);
    label->setText(right ? tr("peak %1 ").arg(bytesText(m.peakBytes))
                         : tr(" peak %1").arg(bytesText(m.peakBytes)));
    label->setColor(Qt::red);
    // From zero unless a large resident base (the dataset, the weights) would flatten the
    // curve: then from a little below its lowest point, and the axis label says so.
    const double top = std::max(m.peakBytes, m.poolPeakBytes);
    const double low = *std::min_element(m.inUse.value.begin(), m.inUse.value.end());
    const bool fromZero = low < 0.5 * top;
    const double bottom = fromZero ? 0 : low - 0.25 * std::max(top - low, 1.0);
    m_plot->yAxis->setRange(bottom, top + 0.15 * (top - bottom) + 1);
    m_plot->yAxis->setTicker(QSharedPointer<BytesTicker>::create());
    m_plot->yAxis->setLabel(fromZero ? tr("Memory") : tr("Memory (axis not from 0)"));
    // Step starts as light vertical lines, to see the pattern of each step (allocations in
    // forward, frees in backward); tagged "#N" at the top while the tags do not collide.
    const double width = std::max(600, m_plot->axisRect()->width());
    const double minGap = 40.0 * xr.size() / width;
    double lastTag = -1e300;
    for (const auto& [number, ts] : m_stepStarts) {
        const double x = static_cast<double>(ts - t0) / scale;
        auto* line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(x, 0);
        line->point2->setCoords(x, 1);
        line->setPen(QPen(QColor(0, 0, 0, 40), 1, Qt::DashLine));
        if (x - lastTag < minGap) continue;
        lastTag = x;
        auto* tag = new QCPItemText(m_plot);
        tag->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        tag->position->setCoords(x, 0.0);
        tag->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        tag->setText(QStringLiteral("#%1").arg(number));
        tag->setColor(QColor(110, 110, 110));
    }
    m_plot->replot();

    m_table->setRowCount(static_cast<int>(m.topAtPeak.size()));
    for (int r = 0; r < static_cast<int>(m.topAtPeak.size()); ++r) {
        const LiveAllocation& a = m.topAtPeak[static_cast<size_t>(r)];
        auto set = [&](int col, const QString& text) {
            m_table->setItem(r, col, new QTableWidgetItem(text));
        };
        set(Op, a.op.empty() ? tr("(unknown)") : QString::fromStdString(a.op));
        set(Shape, QString::fromStdString(a.shape));
        auto* bytes = new QTableWidgetItem(QString::number(a.bytes));
        bytes->setToolTip(bytesText(static_cast<double>(a.bytes)));
        bytes->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(r, Bytes, bytes);
        set(Tensor, QString::fromStdString(a.tensor));
        set(AllocatedAt, a.ts <= t0 ? tr("before the profile")
                                    : QString::fromStdString(ts::timeline::formatDuration(
                                          static_cast<double>(a.ts - t0))));
    }
    m_summary->setText(tr("%1: peak %2 in use at %3 after the first sample (%4); pool peak %5. "
                          "%6 allocations live at the peak, %7 in all; the largest are listed.")
                           .arg(sourceLabel, bytesText(m.peakBytes),
                                QString::fromStdString(ts::timeline::formatDuration(
                                    static_cast<double>(m.peakTs - t0))),
                                QString::fromStdString(m.origin), bytesText(m.poolPeakBytes))
                           .arg(m.liveAtPeakCount)
                           .arg(bytesText(static_cast<double>(m.liveAtPeakBytes))) +
                       (m.untrackedAtPeakBytes > 0
                            ? tr(" %1 of the peak was allocated before the profile and is not "
                                 "listed.")
                                  .arg(bytesText(static_cast<double>(m.untrackedAtPeakBytes)))
                            : QString()));
}
