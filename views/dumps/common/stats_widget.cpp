#include "views/dumps/common/stats_widget.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QSpinBox>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

#include "views/common/job_tracker.h"
#include "views/common/plot_theme.h"
#include "views/common/units_text.h"

namespace {

QString num(double v) {
    if (std::isnan(v)) return QStringLiteral("nan");
    if (std::isinf(v)) return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(v, 'g', 8);
}

QString count(uint64_t v, bool alarm = false) {
    const QString s = QLocale().toString(static_cast<qulonglong>(v));
    return alarm && v > 0
               ? QStringLiteral("<span style='color:#c0392b;font-weight:bold'>%1</span>").arg(s)
               : s;
}

}  // namespace

StatsWidget::StatsWidget(JobTracker* jobs, QWidget* parent)
    : QWidget(parent),
      m_jobs(jobs),
      m_grid(new QLabel(this)),
      m_note(new QLabel(this)),
      m_plot(new QCustomPlot(this)),
      m_bins(new QSpinBox(this)),
      m_logBins(new QCheckBox(tr("log |x| bins"), this)),
      m_logCounts(new QCheckBox(tr("log counts"), this)),
      m_progress(new QProgressBar(this)),
      m_cancel(new QToolButton(this)) {
    m_grid->setTextFormat(Qt::RichText);
    m_grid->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_grid->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_grid->setMinimumWidth(230);
    m_note->setWordWrap(true);
    m_note->setStyleSheet(QStringLiteral("color: palette(mid);"));
    m_bins->setRange(4, 2000);
    m_bins->setValue(64);
    m_bins->setPrefix(tr("bins: "));
    m_bins->setToolTip(tr("Linear bins over [min, max] of the finite values"));
    m_logBins->setToolTip(tr("Logarithmic bins of |x|: four per power of two, zeros apart"));
    m_progress->setMaximumWidth(160);
    m_progress->setRange(0, 1000);
    m_cancel->setText(tr("Cancel"));
    m_plot->setMinimumHeight(140);
    m_plot->xAxis->setLabel(tr("value"));
    m_plot->yAxis->setLabel(tr("count"));

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_bins);
    controls->addWidget(m_logBins);
    controls->addWidget(m_logCounts);
    controls->addStretch();
    controls->addWidget(m_progress);
    controls->addWidget(m_cancel);
    auto* left = new QVBoxLayout;
    left->addWidget(m_grid);
    left->addWidget(m_note);
    left->addStretch();
    auto* right = new QVBoxLayout;
    right->addLayout(controls);
    right->addWidget(m_plot, 1);
    auto* lay = new QHBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addLayout(left);
    lay->addLayout(right, 1);

    connect(m_bins, &QSpinBox::editingFinished, this, &StatsWidget::rebin);
    connect(m_logBins, &QCheckBox::toggled, this, [this](bool on) {
        m_bins->setEnabled(!on);
        rebin();
    });
    connect(m_logCounts, &QCheckBox::toggled, this, &StatsWidget::drawHistogram);
    connect(m_cancel, &QToolButton::clicked, this, [this] {
        if (m_job) m_jobs->cancel(m_job);
        setRunning(false);
        m_note->setText(tr("Cancelled."));
    });
    auto* timer = new QTimer(this);
    connect(timer, &QTimer::timeout, this, [this] {
        if (!m_running) return;
        auto it = m_jobs->active().find(m_job);
        if (it == m_jobs->active().end()) return;
        const double f = it->second.control->fraction();
        m_progress->setValue(f < 0 ? 0 : static_cast<int>(f * 1000));
    });
    timer->start(100);
    setRunning(false);
    m_grid->setText(tr("Select a dataset."));
    followPalette(m_plot);
}

void StatsWidget::setRunning(bool on) {
    m_running = on;
    m_progress->setVisible(on);
    m_cancel->setVisible(on);
    if (on) m_progress->setValue(0);
}

void StatsWidget::setLogBins(bool on) {
    m_logBins->setChecked(on);
}

void StatsWidget::setBins(int bins) {
    m_bins->setValue(bins);
    rebin();
}

void StatsWidget::setDataset(std::shared_ptr<const ts::h5::File> file, const QString& path) {
    m_file = std::move(file);
    m_path = path;
    start();
}

void StatsWidget::start() {
    ++m_generation;
    m_result = DatasetStatsResult();
    m_plot->clearPlottables();
    m_plot->replot();
    m_note->clear();
    if (!m_file || m_path.isEmpty()) {
        m_grid->setText(tr("Select a dataset."));
        setRunning(false);
        return;
    }
    m_grid->setText(tr("Computing statistics of <b>%1</b>…").arg(m_path.toHtmlEscaped()));
    setRunning(true);
    auto file = m_file;
    const QString path = m_path;
    const int bins = m_bins->value();
    const bool logBins = m_logBins->isChecked();
    const quint64 gen = m_generation;
    m_job = m_jobs->run<DatasetStatsResult>(
        this, QStringLiteral("h5stats:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Statistics of %1").arg(path),
        [file, path, bins, logBins](ts::JobControl& jc) {
            return computeDatasetStats(*file, path, bins, logBins, jc);
        },
        [this, gen](DatasetStatsResult r) {
            if (gen != m_generation) return;
            setRunning(false);
            show(r);
        });
}

void StatsWidget::rebin() {
    if (!m_result.ok || m_running) {
        if (!m_running && m_file && !m_path.isEmpty()) start();
        return;
    }
    auto file = m_file;
    const QString path = m_path;
    const int bins = m_bins->value();
    const bool logBins = m_logBins->isChecked();
    const auto stats = m_result.stats;
    const quint64 gen = ++m_generation;
    setRunning(true);
    m_job = m_jobs->run<HistogramData>(
        this, QStringLiteral("h5stats:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Histogram of %1").arg(path),
        [file, path, stats, bins, logBins](ts::JobControl& jc) {
            jc.setTotal(stats.count);
            return computeHistogram(*file, path, stats, bins, logBins, jc, nullptr);
        },
        [this, gen](HistogramData h) {
            if (gen != m_generation) return;
            setRunning(false);
            m_result.histogram = std::move(h);
            drawHistogram();
        });
}

void StatsWidget::show(const DatasetStatsResult& r) {
    m_result = r;
    if (!r.ok) {
        m_grid->setText(tr("<b>%1</b><br>%2").arg(r.path.toHtmlEscaped(), r.error.toHtmlEscaped()));
        drawHistogram();
        emit statsReady(m_result);
        return;
    }
    const auto& s = r.stats;
    const bool any = s.finite > 0;
    QString rows;
    auto row = [&rows](const QString& k, const QString& v) {
        rows += QStringLiteral(
                    "<tr><td style='padding-right:12px'>%1</td><td align='right'>%2</td></tr>")
                    .arg(k, v);
    };
    row(tr("count"), count(s.count));
    row(tr("finite"), count(s.finite));
    row(tr("min"), any ? num(s.min) : QStringLiteral("—"));
    row(tr("max"), any ? num(s.max) : QStringLiteral("—"));
    row(tr("mean"), any ? num(s.mean) : QStringLiteral("—"));
    row(tr("std"), any ? num(s.std) : QStringLiteral("—"));
    row(tr("NaN"), count(s.nan, true));
    row(tr("+Inf"), count(s.posinf, true));
    row(tr("−Inf"), count(s.neginf, true));
    row(tr("zeros"), count(s.zeros));
    m_grid->setText(QStringLiteral("<table>%1</table>").arg(rows));
    QString note = tr("min/max/mean/std over finite values (population std).");
    if (r.seconds > 0 && r.bytes > (1u << 20))
        note += tr(" One pass: %1 in %2 (%3/s).")
                    .arg(bytesText(static_cast<double>(r.bytes)), durationText(r.seconds * 1e9),
                         bytesText(static_cast<double>(r.bytes) / r.seconds));
    m_note->setText(note);
    drawHistogram();
    emit statsReady(m_result);
}

void StatsWidget::drawHistogram() {
    m_plot->clearPlottables();
    const HistogramData& h = m_result.histogram;
    const bool logY = m_logCounts->isChecked();
    m_plot->xAxis->setScaleType(h.log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    m_plot->xAxis->setTicker(h.log ? QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog)
                                   : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    m_plot->xAxis->setLabel(h.log ? tr("|value| (log bins)") : tr("value"));
    m_plot->yAxis->setScaleType(logY ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    m_plot->yAxis->setTicker(logY ? QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog)
                                  : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    if (!h.counts.empty()) {
        auto* g = m_plot->addGraph();
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setPen(QPen(QColor(31, 119, 180), 1.2));
        g->setBrush(QColor(31, 119, 180, 90));
        QVector<double> x, y;
        double ymax = 1;
        for (size_t i = 0; i < h.counts.size(); ++i) {
            x << h.lower[i];
            const double c = logY && h.counts[i] <= 0 ? 0.5 : h.counts[i];
            y << c;
            ymax = std::max(ymax, c);
        }
        x << h.upper.back();
        y << y.back();
        g->setData(x, y, true);
        m_plot->xAxis->setRange(h.lower.front(), h.upper.back());
        if (h.lower.front() == h.upper.back())
            m_plot->xAxis->setRange(h.lower.front() - 0.5, h.lower.front() + 0.5);
        m_plot->yAxis->setRange(logY ? 0.5 : 0, ymax * (logY ? 2.0 : 1.05));
    } else {
        m_plot->xAxis->setRange(0, 1);
        m_plot->yAxis->setRange(0, 1);
    }
    m_plot->replot();
}
