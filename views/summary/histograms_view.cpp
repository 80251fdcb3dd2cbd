#include "views/summary/histograms_view.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>

#include <cmath>

namespace {
constexpr int kMaxRidges = 60;

QString num(double v) {
    return std::isfinite(v) ? QString::number(v, 'g', 6) : QStringLiteral("n/a");
}
}  // namespace

HistogramsView::HistogramsView(SessionContext* ctx, QWidget* parent)
    : SummaryKindView(ctx, ts::summary::ValueKind::Histogram, parent),
      m_mode(new QComboBox(this)),
      m_plot(new QCustomPlot(this)),
      m_step(new QSlider(Qt::Horizontal, this)),
      m_stepInfo(new QLabel(this)) {
    auto* panel = new QWidget(this);
    auto* lay = new QVBoxLayout(panel);
    lay->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Mode:"), panel));
    m_mode->addItem(tr("Distribution"));
    m_mode->addItem(tr("Offset"));
    bar->addWidget(m_mode);
    bar->addSpacing(16);
    bar->addWidget(new QLabel(tr("Step:"), panel));
    bar->addWidget(m_step, 1);
    lay->addLayout(bar);
    m_plot->setMinimumHeight(260);
    lay->addWidget(m_plot, 1);
    m_stepInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_stepInfo->setWordWrap(true);
    lay->addWidget(m_stepInfo);
    setDisplay(panel);
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
    connect(m_step, &QSlider::valueChanged, this, [this](int i) {
        showStep(i);
        if (mode() == Mode::Offset) redraw();
    });
}

void HistogramsView::setMode(Mode m) {
    m_mode->setCurrentIndex(m == Mode::Distribution ? 0 : 1);
}

HistogramsView::Mode HistogramsView::mode() const {
    return m_mode->currentIndex() == 0 ? Mode::Distribution : Mode::Offset;
}

QString HistogramsView::stepText() const {
    return m_stepInfo->text();
}

void HistogramsView::showNothing(const QString& message) {
    m_steps.clear();
    m_hists.clear();
    m_percentiles.clear();
    m_plot->clearGraphs();
    m_plot->clearPlottables();
    m_plot->replot();
    m_step->setRange(0, 0);
    m_stepInfo->setText(message);
}

void HistogramsView::showValues(qint64, const QString& tag,
                                std::vector<ts::summary::StoredValue> values) {
    m_tag = tag;
    m_steps.clear();
    m_hists.clear();
    m_percentiles.clear();
    m_bad = 0;
    for (const auto& v : values) {
        auto h = ts::summary::decodeHistogram(v.data);
        if (!h) {
            ++m_bad;
            continue;
        }
        m_steps.push_back(v.step);
        m_percentiles.push_back(ts::summary::distributionPercentiles(h.value()));
        m_hists.push_back(std::move(h.value()));
    }
    m_step->blockSignals(true);
    m_step->setRange(0, std::max(0, static_cast<int>(m_steps.size()) - 1));
    m_step->setValue(m_step->maximum());
    m_step->blockSignals(false);
    redraw();
    showStep(m_step->value());
}

void HistogramsView::showStep(int i) {
    if (i < 0 || static_cast<size_t>(i) >= m_hists.size()) {
        m_stepInfo->setText(m_bad ? tr("%1 histogram value(s) could not be decoded.").arg(m_bad)
                                  : tr("No histogram."));
        return;
    }
    const auto& h = m_hists[static_cast<size_t>(i)];
    const double finite = static_cast<double>(h.count - h.nan - h.posInf - h.negInf);
    QString text = tr("<b>%1</b> at step %2: %3 values, NaN %4, +Inf %5, −Inf %6; min %7, "
                      "max %8, sum %9, mean %10; %11 buckets")
                       .arg(m_tag.toHtmlEscaped())
                       .arg(m_steps[static_cast<size_t>(i)])
                       .arg(h.count)
                       .arg(h.nan)
                       .arg(h.posInf)
                       .arg(h.negInf)
                       .arg(num(h.min), num(h.max), num(h.sum))
                       .arg(num(finite > 0 ? h.sum / finite : NAN))
                       .arg(h.buckets.size());
    if (h.nan + h.posInf + h.negInf > 0)
        text += tr(" — <span style='color:#c62828'>holds NaN/Inf</span>");
    if (m_bad) text += tr(" (%1 value(s) could not be decoded)").arg(m_bad);
    m_stepInfo->setText(text);
}

void HistogramsView::redraw() {
    m_plot->clearGraphs();
    m_plot->clearPlottables();
    if (m_hists.empty()) {
        m_plot->replot();
        return;
    }
    if (mode() == Mode::Distribution) {
        // Bands between symmetric basis points, darker to the middle (TensorBoard's look).
        const int pairs[4][2] = {{0, 8}, {1, 7}, {2, 6}, {3, 5}};
        std::vector<QCPGraph*> lines(9, nullptr);
        QVector<double> xs;
        for (int64_t s : m_steps) xs << static_cast<double>(s);
        for (int k = 0; k < 9; ++k) {
            QVector<double> ys;
            for (const auto& p : m_percentiles)
                ys << (p.size() == 9 ? p[static_cast<size_t>(k)] : qQNaN());
            QCPGraph* g = m_plot->addGraph();
            g->setData(xs, ys, true);
            g->setPen(QPen(QColor(255, 112, 67, k == 4 ? 255 : 90), k == 4 ? 2 : 1));
            lines[static_cast<size_t>(k)] = g;
        }
        for (int b = 0; b < 4; ++b) {
            QCPGraph* lo = lines[static_cast<size_t>(pairs[b][0])];
            lo->setBrush(QColor(255, 112, 67, 40 + 30 * b));
            lo->setChannelFillGraph(lines[static_cast<size_t>(pairs[b][1])]);
        }
        m_plot->xAxis->setLabel(tr("step"));
        m_plot->yAxis->setLabel(m_tag);
    } else {
        // Ridge lines as TensorBoard's offset view draws them: the oldest step at the back (top),
        // each newer one lower and in front; at most kMaxRidges steps, evenly picked; the
        // slider's step in colour.
        const size_t n = m_hists.size();
        const size_t stride = std::max<size_t>(1, (n + kMaxRidges - 1) / kMaxRidges);
        const int rows = static_cast<int>((n + stride - 1) / stride);
        double peak = 0;
        for (const auto& h : m_hists)
            for (const auto& b : h.buckets) peak = std::max(peak, static_cast<double>(b.count));
        const double gap = peak > 0 ? peak * 0.35 : 1;
        int row = 0;
        const size_t current = static_cast<size_t>(std::max(0, m_step->value()));
        for (size_t i = 0; i < n; i += stride, ++row) {
            const auto& h = m_hists[i];
            QVector<double> xs, ys, base;
            const double off = gap * (rows - 1 - row);
            for (const auto& b : h.buckets) {
                xs << b.left << b.left + b.width;
                ys << off + static_cast<double>(b.count) << off + static_cast<double>(b.count);
                base << off << off;
            }
            QCPGraph* floor = m_plot->addGraph();
            floor->setData(xs, base, true);
            floor->setPen(Qt::NoPen);
            QCPGraph* g = m_plot->addGraph();
            g->setData(xs, ys, true);
            const bool sel = i == current || (i < current && i + stride > current);
            g->setPen(QPen(sel ? QColor(198, 40, 40) : QColor(255, 112, 67), sel ? 2 : 1));
            g->setBrush(QColor(255, 255, 255, 230));
            g->setChannelFillGraph(floor);
        }
        m_plot->xAxis->setLabel(m_tag);
        m_plot->yAxis->setLabel(tr("count, offset by step (newest in front)"));
    }
    m_plot->rescaleAxes();
    m_plot->replot();
}
