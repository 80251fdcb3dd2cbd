#include "views/steps/steps_view.h"

#include <qcustomplot.h>
#include <QLabel>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>

#include "core/timeline/time_axis.h"
#include "views/common/plot_theme.h"
#include "views/common/profile_source_box.h"
#include "views/common/session_context.h"
#include "views/common/units_text.h"

using namespace ts::analysis;

namespace {

struct Segment {
    const char* name;
    QColor colour;
    int64_t StepBreakdown::*field;
};

const std::vector<Segment>& segments(StepSplit split) {
    // MindSpore's step trace: iteration gap | forward + backward | tail (optimizer apart).
    static const std::vector<Segment> phases = {
        {"Iteration gap", QColor(230, 159, 0), &StepBreakdown::iterationGap},
        {"Forward", QColor(0, 114, 178), &StepBreakdown::forward},
        {"Backward", QColor(86, 180, 233), &StepBreakdown::backward},
        {"Optimizer", QColor(0, 158, 115), &StepBreakdown::optimizer},
        {"Tail (callbacks, rest)", QColor(204, 121, 167), &StepBreakdown::tailRest}};
    static const std::vector<Segment> ops = {
        {"Data loading", QColor(230, 159, 0), &StepBreakdown::iterationGap},
        {"CPU ops", QColor(0, 114, 178), &StepBreakdown::cpuOps},
        {"Other", QColor(160, 160, 160), &StepBreakdown::other}};
    return split == StepSplit::Phases ? phases : ops;
}

/// Unit for the y axis so bars read in whole numbers: ns, µs, ms or s.
std::pair<double, QString> unitFor(double ns) {
    if (ns >= 1e9) return {1e9, QStringLiteral("s")};
    if (ns >= 1e6) return {1e6, QStringLiteral("ms")};
    if (ns >= 1e3) return {1e3, QStringLiteral("µs")};
    return {1, QStringLiteral("ns")};
}

}  // namespace

StepsView::StepsView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_sources(new ProfileSourceBox(this)),
      m_summary(new QLabel(this)),
      m_plot(new QCustomPlot(this)) {
    m_pages = addEmptyStatePages(ctx, this);
    auto* layout = new QVBoxLayout(m_pages.content);
    layout->addLayout(m_sources->makeBar(this));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_plot->setMinimumHeight(200);
    m_plot->legend->setVisible(true);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_plot->xAxis->setLabel(tr("Step"));
    layout->addWidget(m_plot, 1);

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
            [this](QCPAbstractPlottable* p, int dataIndex, QMouseEvent*) {
                if (auto* b = qobject_cast<QCPBars*>(p))
                    if (dataIndex >= 0 && dataIndex < b->data()->size())
                        activateStep(static_cast<int>(b->data()->at(dataIndex)->key) - 1);
            });
    m_sources->follow(m_ctx, this, [this](qint64 id) { reload(id); });
    followPalette(m_plot);
}

void StepsView::reload(qint64 sourceId) {
    if (m_ctx->sessionPath().isEmpty()) {
        showError(tr("No session open."));
        return;
    }
    loadProfileReport(m_ctx, this, QStringLiteral("steps-view"), sourceId,
                      [this](const ProfileReportResult& r) {
                          if (!r)
                              showError(QString::fromStdString(r.error()));
                          else
                              show(r.value());
                      });
}

void StepsView::showError(const QString& message) {
    m_steps.reset();
    m_bars.clear();
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_plot->replot();
    m_summary->setText(message);
    if (isNoProfileError(message)) showNoProfile(m_pages.empty, tr("step times"));
    m_pages.showEmpty(isNoProfileError(message));
}

void StepsView::show(const ProfileReport& report) {
    m_pages.showEmpty(false);
    m_sources->setSources(report.sources, report.sourceId);
    m_steps = report.steps;
    const StepAnalysis& a = *m_steps;
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_bars.clear();
    double maxNs = 0;
    for (const auto& s : a.steps) maxNs = std::max(maxNs, static_cast<double>(s.dur));
    const auto [scale, unit] = unitFor(a.medianNs > 0 ? a.medianNs : maxNs);
    QCPBars* below = nullptr;
    for (const Segment& seg : segments(a.split)) {
        auto* b = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        b->setName(tr(seg.name));
        b->setPen(QPen(seg.colour.darker(130)));
        b->setBrush(seg.colour);
        b->setWidth(0.7);
        b->setStackingGap(0);
        QVector<double> keys, values;
        for (size_t i = 0; i < a.steps.size(); ++i) {
            keys << static_cast<double>(i + 1);
            values << static_cast<double>(a.steps[i].*seg.field) / scale;
        }
        b->setData(keys, values, true);
        if (below) b->moveAbove(below);
        below = b;
        m_bars.push_back(b);
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    int flagged = 0;
    // Every step gets a tick label up to ~30 steps; beyond, every k-th and the flagged ones.
    const size_t stride = std::max<size_t>(1, (a.steps.size() + 29) / 30);
    for (size_t i = 0; i < a.steps.size(); ++i) {
        const StepBreakdown& s = a.steps[i];
        QString label = QStringLiteral("#%1").arg(s.number);
        if (!(s.warmup || s.slow) && i % stride != 0) label.clear();
        if (s.warmup || s.slow) {
            ++flagged;
            label += s.warmup ? tr("\nwarm-up") : tr("\nslow");
            auto* text = new QCPItemText(m_plot);
            text->position->setCoords(static_cast<double>(i + 1),
                                      static_cast<double>(s.dur) / scale);
            text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            text->setText(s.warmup ? tr("warm-up") : tr("slow"));
            text->setColor(Qt::red);
        }
        if (!label.isEmpty()) ticker->addTick(static_cast<double>(i + 1), label);
    }
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setRange(0.3, static_cast<double>(a.steps.size()) + 0.7);
    m_plot->yAxis->setLabel(tr("Step time (%1)").arg(unit));
    m_plot->yAxis->setRange(0, maxNs / scale * 1.15 + 1e-9);
    m_plot->replot();

    QString text =
        tr("%1: %n step(s), split by %2.", nullptr, static_cast<int>(a.steps.size()))
            .arg(QString::fromStdString(report.sourceLabel), QString::fromStdString(a.splitLabel));
    if (!a.steps.empty())
        text += tr(" Median step %1; %2 flagged (slow: above %3, median + 3 MAD). Hover a bar "
                   "for its figures, click it to see the step in the timeline.")
                    .arg(durationText(a.medianNs))
                    .arg(flagged)
                    .arg(durationText(a.slowThresholdNs));
    else
        text += tr(" This profile has no ProfilerStep#N slices.");
    m_summary->setText(text);
}

void StepsView::activateStep(int index) {
    if (!m_steps || index < 0 || index >= static_cast<int>(m_steps->steps.size())) return;
    const StepBreakdown& s = m_steps->steps[static_cast<size_t>(index)];
    // The view first: a timeline created by the request then receives the range.
    m_ctx->requestView(QStringLiteral("timeline"));
    m_ctx->requestTimeRange(s.ts, s.ts + s.dur);
}

int StepsView::stepAt(const QPoint& pos) const {
    if (!m_steps || m_steps->steps.empty()) return -1;
    const double key = m_plot->xAxis->pixelToCoord(pos.x());
    const long k = std::lround(key);
    if (std::fabs(key - static_cast<double>(k)) > 0.35 || k < 1 ||
        k > static_cast<long>(m_steps->steps.size()))
        return -1;
    const double y = m_plot->yAxis->pixelToCoord(pos.y());
    if (y < m_plot->yAxis->range().lower) return -1;
    return static_cast<int>(k - 1);
}

QString StepsView::stepToolTip(int index) const {
    const StepBreakdown& s = m_steps->steps[static_cast<size_t>(index)];
    QString t = tr("<b>ProfilerStep#%1</b> — %2")
                    .arg(s.number)
                    .arg(durationText(static_cast<double>(s.dur)));
    if (s.warmup) t += tr(" <span style='color:red'>warm-up</span>");
    if (s.slow) t += tr(" <span style='color:red'>slow</span>");
    t += QStringLiteral("<table>");
    auto row = [&](const QString& name, int64_t ns) {
        const double share =
            s.dur > 0 ? 100.0 * static_cast<double>(ns) / static_cast<double>(s.dur) : 0;
        t += QStringLiteral(
                 "<tr><td>%1</td><td align='right'>%2</td><td align='right'>%3%</td></tr>")
                 .arg(name, durationText(static_cast<double>(ns)), QString::number(share, 'f', 1));
    };
    if (m_steps->split == StepSplit::Phases) {
        row(tr("Iteration gap"), s.iterationGap);
        row(tr("&nbsp;&nbsp;data loading"), s.dataLoading);
        row(tr("Forward"), s.forward);
        row(tr("Backward"), s.backward);
        row(tr("Optimizer"), s.optimizer);
        row(tr("Callbacks"), s.callbacks);
        row(tr("Other"), s.other);
        row(tr("Tail (after backward)"), s.tail);
    } else {
        row(tr("Data loading"), s.dataLoading);
        row(tr("CPU ops"), s.cpuOps);
        row(tr("Other"), s.other);
        row(tr("Device kernels (concurrent)"), s.kernels);
    }
    if (s.gpuBusy >= 0) {  // the device side (GPU traces): the GPU view has the rest
        if (s.deviceStart >= 0)
            row(tr("Device span (GPU work it launched)"), s.deviceEnd - s.deviceStart);
        row(tr("Joined step (host + device)"), s.joinedEnd - s.joinedStart);
        row(tr("GPU busy in the joined step"), s.gpuBusy);
    }
    t += QStringLiteral("</table>");
    return t;
}
