#include "views/dumps/common/heatmap_widget.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QVBoxLayout>
#include <cmath>

#include "core/hdf5/h5_read.h"
#include "views/common/job_tracker.h"
#include "views/common/plot_theme.h"

namespace {

struct Grid {
    uint64_t nr = 0, nc = 0, sr = 1, sc = 1;
    std::vector<double> v;  // nr x nc row-major
    double lo = 0, hi = 0;
    uint64_t nan = 0, inf = 0;
    QVector<double> posX, posY, negX, negY;  // cells holding +Inf / -Inf (plot coordinates)
    QVector<double> nanX, nanY;              // NaN cells, marked when cells are small
    QString error;
};

Grid readGrid(const ts::h5::File& f, const std::string& path, const SliceSpec& spec) {
    Grid g;
    const uint64_t rows = spec.rows(), cols = spec.cols();
    g.sr = std::max<uint64_t>(1, (rows + HeatmapWidget::kMaxCells - 1) / HeatmapWidget::kMaxCells);
    g.sc = std::max<uint64_t>(1, (cols + HeatmapWidget::kMaxCells - 1) / HeatmapWidget::kMaxCells);
    g.nr = (rows + g.sr - 1) / g.sr;
    g.nc = (cols + g.sc - 1) / g.sc;
    std::vector<uint64_t> start, count, stride;
    spec.block(0, g.nr, 0, g.nc, start, count, stride, g.sr, g.sc);
    auto v = ts::h5::readHyperslab(f, path, start, count, stride);
    if (!v) {
        g.error = QString::fromStdString(v.error());
        return g;
    }
    g.v.resize(g.nr * g.nc);
    bool any = false;
    for (uint64_t r = 0; r < g.nr; ++r)
        for (uint64_t c = 0; c < g.nc; ++c) {
            const double x = (*v)[spec.offset(r, c, g.nr, g.nc)];
            g.v[r * g.nc + c] = x;
            if (std::isnan(x)) {
                ++g.nan;
                if (g.nanX.size() < 2000) {
                    g.nanX << static_cast<double>(c * g.sc);
                    g.nanY << static_cast<double>(r * g.sr);
                }
            } else if (std::isinf(x)) {
                ++g.inf;
                if (g.posX.size() + g.negX.size() < 20000) {
                    (x > 0 ? g.posX : g.negX) << static_cast<double>(c * g.sc);
                    (x > 0 ? g.posY : g.negY) << static_cast<double>(r * g.sr);
                }
            } else {
                g.lo = any ? std::min(g.lo, x) : x;
                g.hi = any ? std::max(g.hi, x) : x;
                any = true;
            }
        }
    return g;
}

}  // namespace

HeatmapWidget::HeatmapWidget(JobTracker* jobs, QWidget* parent)
    : QWidget(parent), m_jobs(jobs), m_plot(new QCustomPlot(this)), m_caption(new QLabel(this)) {
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(m_caption);
    lay->addWidget(m_plot, 1);
    m_caption->setWordWrap(true);
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_map->setColorScale(m_scale);
    QCPColorGradient grad(QCPColorGradient::gpThermal);
    grad.setNanHandling(QCPColorGradient::nhNanColor);
    grad.setNanColor(QColor(255, 0, 255));
    m_map->setGradient(grad);
    m_map->setInterpolate(false);
    m_plot->yAxis->setRangeReversed(true);                  // row 0 at the top, like the table
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {  // indices: integer ticks only
        QSharedPointer<QCPAxisTickerFixed> t(new QCPAxisTickerFixed);
        t->setTickStep(1.0);
        t->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        axis->setTicker(t);
    }
    m_plot->xAxis->setLabel(tr("column"));
    m_plot->yAxis->setLabel(tr("row"));
    auto* group = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    auto marker = [this](QCPScatterStyle::ScatterShape shape, const QString& name) {
        auto* g = m_plot->addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(shape, QPen(Qt::black, 1.2), QColor(0, 220, 255), 11));
        g->setName(name);
        return g;
    };
    m_nan = m_plot->addGraph();
    m_nan->setLineStyle(QCPGraph::lsNone);
    m_nan->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle,
                                           QPen(QColor(255, 0, 255), 2.0), Qt::NoBrush, 13));
    m_posInf = marker(QCPScatterStyle::ssTriangle, tr("+Inf"));
    m_negInf = marker(QCPScatterStyle::ssTriangleInverted, tr("−Inf"));
    clear();
    followPalette(m_plot);
}

void HeatmapWidget::clear(const QString& message) {
    ++m_generation;
    m_map->data()->setSize(1, 1);
    m_map->data()->fill(std::nan(""));
    m_map->setVisible(false);
    m_posInf->data()->clear();
    m_negInf->data()->clear();
    m_nan->data()->clear();
    m_caption->setText(message);
    m_cells = {};
    m_plot->replot();
}

void HeatmapWidget::setSlice(std::shared_ptr<const ts::h5::File> file, const QString& path,
                             const SliceSpec& spec) {
    const quint64 gen = ++m_generation;
    m_caption->setText(tr("Reading %1 %2…").arg(path, spec.describe()));
    m_jobs->run<Grid>(
        this, QStringLiteral("h5heatmap:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Heatmap of %1").arg(path),
        [file, p = path.toStdString(), spec](ts::JobControl&) { return readGrid(*file, p, spec); },
        [this, gen, path, spec](Grid g) {
            if (gen != m_generation) return;
            if (!g.error.isEmpty()) {
                clear(tr("%1: %2").arg(path, g.error));
                return;
            }
            const int nx = static_cast<int>(g.nc), ny = static_cast<int>(g.nr);
            m_map->data()->setSize(nx, ny);
            m_map->data()->setRange(QCPRange(0, static_cast<double>((g.nc - 1) * g.sc)),
                                    QCPRange(0, static_cast<double>((g.nr - 1) * g.sr)));
            for (int y = 0; y < ny; ++y)
                for (int x = 0; x < nx; ++x) {
                    double v = g.v[static_cast<size_t>(y) * g.nc + static_cast<size_t>(x)];
                    if (std::isinf(v)) v = v > 0 ? g.hi : g.lo;
                    m_map->data()->setCell(x, y, v);
                }
            m_map->setVisible(true);
            // ±Inf cells carry the colour of the scale's end and a marker on top.
            if (g.posX.size() + g.negX.size() <= 256) {  // beyond, markers would hide the map
                m_posInf->setData(g.posX, g.posY);
                m_negInf->setData(g.negX, g.negY);
            } else {
                m_posInf->data()->clear();
                m_negInf->data()->clear();
            }
            // Magenta NaN cells are lost among 1000s of others: circle them then.
            if (g.nr > 64 || g.nc > 64)
                m_nan->setData(g.nanX, g.nanY);
            else
                m_nan->data()->clear();
            m_map->setDataRange(g.lo < g.hi ? QCPRange(g.lo, g.hi)
                                            : QCPRange(g.lo - 0.5, g.lo + 0.5));
            m_plot->xAxis->setRange(-0.5 * static_cast<double>(g.sc),
                                    (static_cast<double>(g.nc) - 0.5) * static_cast<double>(g.sc));
            m_plot->yAxis->setRange(-0.5 * static_cast<double>(g.sr),
                                    (static_cast<double>(g.nr) - 0.5) * static_cast<double>(g.sr));
            QString cap =
                tr("%1 %2: %3 × %4").arg(path, spec.describe()).arg(spec.rows()).arg(spec.cols());
            if (g.sr > 1 || g.sc > 1)
                cap += tr(" — every %1th row and %2th column shown").arg(g.sr).arg(g.sc);
            if (g.nan) cap += tr(" — %1 NaN (magenta)").arg(g.nan);
            if (g.inf)
                cap += g.inf <= 256
                           ? tr(" — %1 ±Inf (cyan ▲ +Inf, ▼ −Inf)").arg(g.inf)
                           : tr(" — %1 ±Inf (in the colours of the scale's ends)").arg(g.inf);
            m_caption->setText(cap);
            m_cells = QSize(nx, ny);
            m_plot->replot();
            emit loaded();
        });
}
