#include "views/gpu_overview/gpu_overview_view.h"

#include <qcustomplot.h>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>

#include "core/timeline/time_axis.h"
#include "views/common/profile_source_box.h"
#include "views/common/session_context.h"
#include "views/common/units_text.h"

namespace gpu = ts::analysis::gpu;

namespace {

QString durI(int64_t ns) {
    return durationText(static_cast<double>(ns));
}

// The plugin's colours for its overview roles, in role order.
const QColor kRoleColours[gpu::kSplitRoles] = {
    QColor(0, 114, 178), QColor(230, 159, 0),  QColor(240, 228, 66), QColor(204, 121, 167),
    QColor(213, 94, 0),  QColor(86, 180, 233), QColor(0, 158, 115),  QColor(170, 170, 170)};

QTableWidget* makeTable(QWidget* parent, const QStringList& headers) {
    auto* t = new QTableWidget(parent);
    t->setColumnCount(static_cast<int>(headers.size()));
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->setVisible(false);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setWordWrap(false);
    return t;
}

void addRow(QTableWidget* t, const QStringList& cells, const QString& tip = {}) {
    const int r = t->rowCount();
    t->insertRow(r);
    for (int c = 0; c < cells.size(); ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        if (!tip.isEmpty()) item->setToolTip(tip);
        if (c > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        t->setItem(r, c, item);
    }
}

void addSection(QTableWidget* t, const QString& title) {
    const int r = t->rowCount();
    t->insertRow(r);
    auto* item = new QTableWidgetItem(title);
    QFont f = item->font();
    f.setBold(true);
    item->setFont(f);
    t->setItem(r, 0, item);
    t->setSpan(r, 0, 1, t->columnCount());
}

}  // namespace

GpuOverviewView::GpuOverviewView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_sources(new ProfileSourceBox(this)),
      m_summary(new QLabel(this)),
      m_plot(new QCustomPlot(this)),
      m_splitHelp(new QLabel(this)),
      m_hta(makeTable(this, {tr("HTA (HTA's definitions)"), tr("value")})),
      m_studio(makeTable(this, {tr("Studio, per step (every joined step)"), tr("value")})),
      m_comm(makeTable(this, {tr("Collective"), tr("Process group"), tr("dtype"), tr("Size"),
                              tr("Calls"), tr("Time"), tr("algbw"), tr("busbw")})),
      m_ascend(
          makeTable(this, {tr("Ascend (msprof's step trace and communication)"), tr("value")})) {
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(m_sources->makeBar(this));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    auto* split = new QSplitter(Qt::Vertical, this);
    auto* top = new QWidget(split);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    m_plot->setMinimumHeight(180);
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(QFont(font().family(), 8));
    // The legend in a row of its own above the bars: a tall step leaves no corner free.
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, m_plot->legend);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    m_plot->xAxis->setLabel(tr("Step (host ProfilerStep joined with the GPU work it launched)"));
    topLayout->addWidget(m_plot, 1);
    m_splitHelp->setWordWrap(true);
    m_splitHelp->setTextFormat(Qt::RichText);
    topLayout->addWidget(m_splitHelp);
    auto* tables = new QSplitter(Qt::Horizontal, split);
    tables->addWidget(m_hta);
    tables->addWidget(m_studio);
    tables->addWidget(m_comm);
    tables->addWidget(m_ascend);
    m_ascend->setVisible(false);
    split->addWidget(top);
    split->addWidget(tables);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const int index = stepAt(e->pos());
        if (index < 0) {
            QToolTip::hideText();
            return;
        }
        QToolTip::showText(e->globalPosition().toPoint(), stepToolTip(index), m_plot);
    });
    connect(m_plot, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable*, int dataIndex, QMouseEvent*) {
                if (!m_report || dataIndex < 0 ||
                    dataIndex >= static_cast<int>(m_report->overview.steps.size()))
                    return;
                const auto& s = m_report->overview.steps[static_cast<size_t>(dataIndex)];
                m_ctx->requestView(QStringLiteral("timeline"));
                m_ctx->requestTimeRange(s.start, s.end);
            });
    m_sources->follow(m_ctx, this, [this](qint64 id) { reload(id); });
}

void GpuOverviewView::reload(qint64 sourceId) {
    if (m_ctx->sessionPath().isEmpty()) {
        showError(tr("No session open."));
        return;
    }
    loadProfileReport(m_ctx, this, QStringLiteral("gpu-overview"), sourceId,
                      [this](const ProfileReportResult& r) {
                          if (!r)
                              showError(QString::fromStdString(r.error()));
                          else
                              show(r.value());
                      });
}

void GpuOverviewView::showError(const QString& message) {
    m_report.reset();
    m_bars.clear();
    m_plot->clearPlottables();
    m_plot->replot();
    m_hta->setRowCount(0);
    m_studio->setRowCount(0);
    m_comm->setRowCount(0);
    m_splitHelp->clear();
    m_summary->setText(message.toHtmlEscaped());
}

void GpuOverviewView::show(const ts::analysis::ProfileReport& report) {
    m_sources->setSources(report.sources, report.sourceId);
    m_ascend->setVisible(report.ascend.has_value());
    if (report.ascend) fillAscend(*report.ascend);
    if (!report.gpu && report.ascend) {
        m_summary->setText(tr("%1: no device kernels in this source; the session's Ascend tables "
                              "are below.")
                               .arg(QString::fromStdString(report.sourceLabel).toHtmlEscaped()));
        return;
    }
    if (!report.gpu) {
        showError(tr("%1 has no GPU work (no kernels, copies or sets): the Steps, Stats and "
                     "Advice tabs show its host side.")
                      .arg(QString::fromStdString(report.sourceLabel)));
        return;
    }
    m_report = *report.gpu;
    const gpu::GpuReport& g = *m_report;
    const gpu::GpuOverview& o = g.overview;

    // The plugin's GPU summary.
    QString s = tr("<b>%1</b> — %2 kernels, %3 memcpy, %4 memset (%5)")
                    .arg(QString::fromStdString(report.sourceLabel).toHtmlEscaped())
                    .arg(g.kernels)
                    .arg(g.memcpys)
                    .arg(g.memsets)
                    .arg(QString::fromStdString(gpu::vendorKey(g.vendor)));
    for (const auto& d : o.devices) {
        s += tr("<br>Device %1%2: <b>GPU utilisation %3</b>")
                 .arg(d.device)
                 .arg(d.name.empty() ? QString()
                                     : QStringLiteral(" (%1)").arg(QString::fromStdString(d.name)))
                 .arg(shareText(d.utilization));
        if (d.smEfficiency) s += tr(", est. SM efficiency %1").arg(shareText(*d.smEfficiency));
        if (d.occupancy) s += tr(", est. achieved occupancy %1").arg(shareText(*d.occupancy));
    }
    if (o.tensorCores.kernelTime > 0)
        s += tr("<br>Tensor Cores: %1 of kernel time")
                 .arg(shareText(static_cast<double>(o.tensorCores.tensorCoreTime) /
                                static_cast<double>(o.tensorCores.kernelTime)));
    if (o.tensorCores.eligibleOpTime > 0)
        s += tr("; %1 of the kernel time of ops that can use them")
                 .arg(shareText(static_cast<double>(o.tensorCores.eligibleOpTcTime) /
                                static_cast<double>(o.tensorCores.eligibleOpTime)));
    s +=
        tr("<br><i>GPU utilisation: time a kernel runs inside the overview steps / their span. "
           "Est. SM efficiency: the same, each instant weighted by min(1, blocks per SM of the "
           "running kernels). Est. achieved occupancy: Kineto's estimate weighted by kernel "
           "time (the TensorBoard profiler's definitions).</i>");
    m_summary->setText(s);

    // The step split, stacked.
    m_plot->clearPlottables();
    m_bars.clear();
    QCPBars* below = nullptr;
    double maxNs = 0;
    for (const auto& st : o.steps) maxNs = std::max(maxNs, static_cast<double>(st.duration()));
    const double scale = maxNs >= 1e6 ? 1e6 : 1e3;
    const QString unit = maxNs >= 1e6 ? tr("ms") : tr("µs");
    for (size_t role = 0; role < gpu::kSplitRoles; ++role) {
        auto* b = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        b->setName(tr(gpu::splitRoleLabel(static_cast<gpu::SplitRole>(role))));
        b->setBrush(kRoleColours[role]);
        b->setPen(QPen(kRoleColours[role].darker(130)));
        b->setWidth(0.7);
        b->setStackingGap(0);
        QVector<double> keys, values;
        for (size_t i = 0; i < o.steps.size(); ++i) {
            keys << static_cast<double>(i);
            values << static_cast<double>(o.steps[i].split[role]) / scale;
        }
        b->setData(keys, values, true);
        if (below) b->moveAbove(below);
        below = b;
        m_bars.push_back(b);
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (size_t i = 0; i < o.steps.size(); ++i) {
        const auto& st = o.steps[i];
        QString label =
            o.stepsFromProfilerSteps ? QStringLiteral("#%1").arg(st.number) : tr("trace");
        if (!st.inOverview) label += tr("\n(left out)");
        ticker->addTick(static_cast<double>(i), label);
    }
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setRange(-0.6, static_cast<double>(o.steps.size()) - 0.4);
    m_plot->yAxis->setLabel(tr("Time (%1)").arg(unit));
    m_plot->yAxis->setRange(0, maxNs / scale * 1.1 + 1e-9);
    m_plot->replot();

    int64_t total = 0;
    for (int64_t v : o.splitTotal) total += v;
    QString help =
        tr("<b>Step split</b> (the TensorBoard profiler's overview): every instant of "
           "a step goes to the first of these that is active —");
    for (size_t role = 0; role < gpu::kSplitRoles; ++role) {
        const auto r = static_cast<gpu::SplitRole>(role);
        help += QStringLiteral(" <span style='color:%1'>■</span> <b>%2</b> %3: %4;")
                    .arg(kRoleColours[role].name(), tr(gpu::splitRoleLabel(r)),
                         total > 0 ? shareText(static_cast<double>(o.splitTotal[role]) /
                                               static_cast<double>(total))
                                   : QStringLiteral("–"),
                         tr(gpu::splitRoleHelp(r)));
    }
    help +=
        tr(" Steps marked \"left out\" launched fewer kernels than the one before (the "
           "profiler stopped before they ran) and are not in the summary, as in the plugin.");
    m_splitHelp->setText(help);
    fillTables(g);
}

void GpuOverviewView::fillTables(const gpu::GpuReport& g) {
    const gpu::HtaResult& h = g.hta;
    m_hta->setRowCount(0);
    addSection(m_hta, tr("What HTA keeps"));
    addRow(m_hta, {tr("filter"), QString::fromStdString(h.note)},
           tr("HTA keeps only GPU work launched before the last profiler step starts, rounds "
              "timestamps inward to whole microseconds and measures from the first to the last "
              "kernel (docs/DISTRIBUTED.md)."));
    addRow(m_hta, {tr("GPU rows kept / dropped"),
                   QStringLiteral("%1 / %2").arg(h.gpuRowsKept).arg(h.gpuRowsDropped)});
    if (h.gpuRowsKept > 0) {
        addSection(m_hta, tr("Temporal breakdown (first to last kernel)"));
        addRow(m_hta, {tr("kernel time"), durI(h.temporal.kernelTimeNs)});
        addRow(m_hta,
               {tr("idle"),
                QStringLiteral("%1 (%2%)").arg(durI(h.temporal.idleNs)).arg(h.temporal.idlePct)});
        addRow(
            m_hta,
            {tr("compute"),
             QStringLiteral("%1 (%2%)").arg(durI(h.temporal.computeNs)).arg(h.temporal.computePct)},
            tr("HTA: kernels whose name holds neither ncclKernel nor Memcpy/Memset."));
        addRow(m_hta,
               {tr("non-compute"), QStringLiteral("%1 (%2%)")
                                       .arg(durI(h.temporal.nonComputeNs))
                                       .arg(h.temporal.nonComputePct)},
               tr("HTA: communication and memory copies/sets (not hidden by compute)."));
        addRow(m_hta, {tr("comm-comp overlap"),
                       h.commCompOverlapPct ? QStringLiteral("%1%").arg(*h.commCompOverlapPct)
                                            : tr("no communication")});
        addSection(m_hta, tr("Idle time causes (per stream, gap < %1 is kernel wait)")
                              .arg(durI(h.consecutiveKernelDelayNs)));
        for (const auto& s : h.idle)
            addRow(m_hta, {tr("stream %1").arg(s.stream),
                           tr("host wait %1, kernel wait %2, other %3")
                               .arg(shareText(s.hostWaitRatio), shareText(s.kernelWaitRatio),
                                    shareText(s.otherRatio))});
        addSection(m_hta, tr("Kernel launches"));
        addRow(m_hta, {tr("launches"), QString::number(h.launch.launches)});
        addRow(
            m_hta,
            {tr("launch delay (median, HTA's formula)"), durationText(h.launch.launchDelayNs.p50)},
            tr("HTA's launch_delay = GPU start - CPU start + CPU duration, as HTA writes it."));
        addRow(m_hta, {tr("launch latency (median, studio)"), durationText(h.launch.latencyNs.p50)},
               tr("GPU start - end of the launch call."));
        addRow(m_hta, {tr("runtime calls > 50 µs"), QString::number(h.launch.runtimeOutliers)});
        addRow(m_hta,
               {tr("kernels shorter than their launch"), QString::number(h.launch.shortKernels)});
        for (const auto& q : h.queue)
            addRow(m_hta, {tr("queue length, stream %1").arg(q.stream),
                           tr("mean %1, max %2").arg(q.length.mean, 0, 'f', 2).arg(q.length.max)});
        if (!h.memory.empty()) addSection(m_hta, tr("Memory bandwidth (GB/s)"));
        for (const auto& m : h.memory)
            addRow(m_hta,
                   {QString::fromStdString(m.name),
                    tr("median %1, max %2").arg(m.gbps.p50, 0, 'f', 1).arg(m.gbps.max, 0, 'f', 1)});
        if (!h.annotations.empty()) addSection(m_hta, tr("Kernels per GPU user annotation"));
        for (const auto& a : h.annotations)
            addRow(m_hta, {a.name.empty() ? tr("(none)") : QString::fromStdString(a.name),
                           tr("%1 kernels, %2").arg(a.kernels).arg(durI(a.kernelNs))});
    }
    m_hta->resizeColumnsToContents();

    const gpu::GpuOverview& o = g.overview;
    m_studio->setRowCount(0);
    int64_t span = 0;
    for (const auto& s : o.steps) span += s.duration();
    const auto& t = o.deviceTotal;
    addSection(m_studio,
               tr("All %n step(s), the last included", nullptr, static_cast<int>(o.steps.size())));
    auto share = [&](int64_t v) {
        return span > 0
                   ? QStringLiteral("%1 (%2)").arg(
                         durI(v), shareText(static_cast<double>(v) / static_cast<double>(span)))
                   : durI(v);
    };
    addRow(m_studio, {tr("steps"), durI(span)});
    addRow(m_studio, {tr("GPU busy"), share(t.busy)});
    addRow(m_studio, {tr("idle"), share(t.idle)},
           tr("Inside the joined steps, no kernel, copy or set runs."));
    addRow(m_studio, {tr("compute"), share(t.compute)}, tr("Kernels that are not communication."));
    addRow(m_studio, {tr("non-compute"), share(t.nonCompute)},
           tr("Copies, sets and communication not under compute."));
    addRow(m_studio, {tr("communication"), share(t.communication)});
    addRow(m_studio, {tr("comm-comp overlap"), t.communication > 0
                                                   ? shareText(static_cast<double>(t.overlap) /
                                                               static_cast<double>(t.communication))
                                                   : tr("no communication")});
    addSection(m_studio, tr("Per step: host | device span | joined | GPU busy | idle"));
    for (const auto& s : o.steps)
        addRow(m_studio, {QStringLiteral("#%1").arg(s.number),
                          QStringLiteral("%1 | %2 | %3 | %4 | %5")
                              .arg(durI(s.hostEnd - s.hostStart),
                                   s.deviceStart >= 0 ? durI(s.deviceEnd - s.deviceStart)
                                                      : QStringLiteral("–"),
                                   durI(s.duration()), durI(s.device.busy), durI(s.device.idle))});
    m_studio->resizeColumnsToContents();

    m_comm->setRowCount(0);
    for (const auto& c : g.communication.collectives)
        addRow(m_comm,
               {QString::fromStdString(c.name), QString::fromStdString(c.processGroup),
                QString::fromStdString(c.dtype),
                c.bytesPerCall >= 0 ? QString::number(c.bytesPerCall) : QStringLiteral("?"),
                QString::number(c.calls), durI(c.timeNs), QString::number(c.algbwGBs, 'f', 2),
                QString::number(c.busbwGBs, 'f', 2)},
               tr("algbw = size / time; busbw = algbw x the collective's factor (NCCL tests)."));
    m_comm->setVisible(!g.communication.collectives.empty());
    m_comm->resizeColumnsToContents();
}

void GpuOverviewView::fillAscend(const gpu::AscendTables& t) {
    m_ascend->setRowCount(0);
    const auto steps = gpu::ascendSteps(t, false);
    if (!steps.empty()) {
        addSection(m_ascend,
                   tr("Step trace (step_trace_time.csv): computing | comm not overlapped | free"));
        for (const auto& s : steps)
            addRow(m_ascend,
                   {tr("step %1").arg(QString::fromStdString(s.step)),
                    QStringLiteral("%1 | %2 | %3")
                        .arg(durationText(s.computing * 1e3),
                             durationText(s.commNotOverlapped * 1e3), durationText(s.free * 1e3))},
                   tr("Overlapped %1, bubble %2, stage %3")
                       .arg(durationText(s.overlapped * 1e3), durationText(s.bubble * 1e3),
                            durationText(s.stage * 1e3)));
    }
    for (bool cluster : {false, true}) {
        const auto comm = gpu::summarizeAscendComm(t, cluster);
        if (comm.empty()) continue;
        addSection(m_ascend, cluster ? tr("Cluster communication (msprof-analyze)")
                                     : tr("Communication (communication.json)"));
        for (const auto& c : comm) {
            QString links;
            for (const auto& [type, f] : c.links)
                links += QStringLiteral(" %1 %2 GB/s")
                             .arg(QString::fromStdString(type))
                             .arg(f.bandwidthGBs, 0, 'f', 1);
            addRow(m_ascend,
                   {QString::fromStdString(c.opType),
                    tr("%1 calls, %2; wait %3 (%4), transit %5;%6")
                        .arg(c.calls)
                        .arg(durationText(c.elapseMs * 1e6), durationText(c.waitMs * 1e6),
                             shareText(c.waitRatio), durationText(c.transitMs * 1e6), links)},
                   tr("Wait ratio = wait / (wait + transit), as msprof-analyze computes it; "
                      "bandwidth = MB / ms per link type."));
        }
    }
    // The tables read as they are: op statistics, MindSpore 1.x's op types, data pipeline
    // queues and FLOPs (the first 15 rows of each; analyze --json lists them all).
    for (const char* kind :
         {"op_statistic", "aicore_intermediate_type", "minddata_pipeline_raw", "flops"}) {
        const gpu::AscendTable* tab = t.table(kind);
        if (!tab || tab->header.empty()) continue;
        addSection(
            m_ascend,
            QStringLiteral("%1 (%2 rows)").arg(QString::fromLatin1(kind)).arg(tab->text.size()));
        for (size_t r = 0; r < tab->text.size() && r < 15; ++r) {
            QStringList cells;
            for (size_t c = 1; c < tab->header.size() && c < tab->text[r].size(); ++c)
                cells << QStringLiteral("%1 %2").arg(QString::fromStdString(tab->header[c]),
                                                     QString::fromStdString(tab->text[r][c]));
            addRow(m_ascend,
                   {QString::fromStdString(tab->text[r][0]), cells.join(QStringLiteral(", "))});
        }
    }
    const auto matrix = gpu::ascendMatrix(t, false);
    if (!matrix.empty()) addSection(m_ascend, tr("Links (communication_matrix.json)"));
    for (const auto& m : matrix)
        addRow(m_ascend, {QStringLiteral("%1 → %2").arg(QString::fromStdString(m.src),
                                                        QString::fromStdString(m.dst)),
                          tr("%1: %2 MB, %3 GB/s")
                              .arg(QString::fromStdString(m.transport))
                              .arg(m.sizeMb, 0, 'f', 1)
                              .arg(m.bandwidthGBs, 0, 'f', 1)});
    m_ascend->resizeColumnsToContents();
}

int GpuOverviewView::stepAt(const QPoint& pos) const {
    if (!m_report || m_report->overview.steps.empty()) return -1;
    const double key = m_plot->xAxis->pixelToCoord(pos.x());
    const long k = std::lround(key);
    if (std::fabs(key - static_cast<double>(k)) > 0.35 || k < 0 ||
        k >= static_cast<long>(m_report->overview.steps.size()))
        return -1;
    return static_cast<int>(k);
}

QString GpuOverviewView::stepToolTip(int index) const {
    const auto& s = m_report->overview.steps[static_cast<size_t>(index)];
    QString t = tr("<b>ProfilerStep#%1</b> — %2 (host %3, device span %4)")
                    .arg(s.number)
                    .arg(durI(s.duration()), durI(s.hostEnd - s.hostStart),
                         s.deviceStart >= 0 ? durI(s.deviceEnd - s.deviceStart) : tr("none"));
    t += QStringLiteral("<table>");
    for (size_t role = 0; role < gpu::kSplitRoles; ++role)
        t += QStringLiteral("<tr><td>%1</td><td align='right'>%2</td></tr>")
                 .arg(tr(gpu::splitRoleLabel(static_cast<gpu::SplitRole>(role))),
                      durI(s.split[role]));
    t += QStringLiteral("</table>");
    return t;
}
