#include "views/dumps/common/line_plot_widget.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QVBoxLayout>
#include <cmath>

#include "core/hdf5/h5_read.h"
#include "views/common/job_tracker.h"
#include "views/common/plot_theme.h"

namespace {
struct Series {
    QVector<double> x, y, infX, infY;
    uint64_t step = 1, nan = 0;
    double lo = 0, hi = 0;
    QString error;
};

Series readSeries(const ts::h5::File& f, const std::string& path, const SliceSpec& spec) {
    Series s;
    // Along the rows dimension at column 0 (a 1-D dataset has no column dimension).
    const uint64_t n = spec.rows();
    s.step =
        std::max<uint64_t>(1, (n + LinePlotWidget::kMaxPoints - 1) / LinePlotWidget::kMaxPoints);
    const uint64_t m = (n + s.step - 1) / s.step;
    std::vector<uint64_t> start, count, stride;
    spec.block(0, m, 0, 1, start, count, stride, s.step, 1);
    auto v = ts::h5::readHyperslab(f, path, start, count, stride);
    if (!v) {
        s.error = QString::fromStdString(v.error());
        return s;
    }
    bool any = false;
    for (uint64_t i = 0; i < m && i < v->size(); ++i) {
        const double x = static_cast<double>(i * s.step), y = (*v)[i];
        if (std::isinf(y)) {
            s.infX << x;
            s.infY << (y > 0 ? 1.0 : -1.0);
            s.x << x;
            s.y << std::nan("");
            continue;
        }
        if (std::isnan(y))
            ++s.nan;
        else {
            s.lo = any ? std::min(s.lo, y) : y;
            s.hi = any ? std::max(s.hi, y) : y;
            any = true;
        }
        s.x << x;
        s.y << y;
    }
    return s;
}
}  // namespace

LinePlotWidget::LinePlotWidget(JobTracker* jobs, QWidget* parent)
    : QWidget(parent), m_jobs(jobs), m_plot(new QCustomPlot(this)), m_caption(new QLabel(this)) {
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(m_caption);
    lay->addWidget(m_plot, 1);
    m_plot->xAxis->setLabel(tr("index"));
    m_plot->yAxis->setLabel(tr("value"));
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    followPalette(m_plot);
}

void LinePlotWidget::clear(const QString& message) {
    ++m_generation;
    m_plot->clearPlottables();
    m_plot->replot();
    m_caption->setText(message);
    m_points = 0;
}

void LinePlotWidget::setSeries(std::shared_ptr<const ts::h5::File> file, const QString& path,
                               const SliceSpec& spec) {
    const quint64 gen = ++m_generation;
    m_caption->setText(tr("Reading %1…").arg(path));
    m_jobs->run<Series>(
        this, QStringLiteral("h5line:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Plot of %1").arg(path),
        [file, p = path.toStdString(), spec](ts::JobControl&) {
            return readSeries(*file, p, spec);
        },
        [this, gen, path](Series s) {
            if (gen != m_generation) return;
            m_plot->clearPlottables();
            if (!s.error.isEmpty()) {
                m_caption->setText(tr("%1: %2").arg(path, s.error));
                m_plot->replot();
                return;
            }
            auto* g = m_plot->addGraph();
            g->setPen(QPen(QColor(31, 119, 180), 1.2));
            g->setData(s.x, s.y, true);
            const double pad = s.hi > s.lo ? 0.05 * (s.hi - s.lo) : 0.5;
            m_plot->yAxis->setRange(s.lo - pad, s.hi + pad);
            m_plot->xAxis->setRange(0, s.x.isEmpty() ? 1 : std::max(1.0, s.x.back()));
            if (!s.infX.isEmpty()) {
                auto* inf = m_plot->addGraph();
                inf->setLineStyle(QCPGraph::lsNone);
                inf->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangle,
                                                     QColor(192, 57, 43), QColor(192, 57, 43), 9));
                QVector<double> y;
                for (double d : s.infY) y << (d > 0 ? s.hi + pad * 0.5 : s.lo - pad * 0.5);
                inf->setData(s.infX, y, true);
            }
            QString cap = tr("%1: %2 values").arg(path).arg(s.x.size());
            if (s.step > 1) cap += tr(" (every %1th shown)").arg(s.step);
            if (s.nan) cap += tr(" — %1 NaN (gaps)").arg(s.nan);
            if (!s.infX.isEmpty()) cap += tr(" — %1 ±Inf (red marks)").arg(s.infX.size());
            m_caption->setText(cap);
            m_points = s.x.size();
            m_plot->replot();
            emit loaded();
        });
}
