#include "views/summary/landscape_view.h"

#include <qcustomplot.h>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>

#include <cmath>

#include "core/summary/contour.h"

LandscapeView::LandscapeView(SessionContext* ctx, QWidget* parent)
    : SummaryKindView(ctx, ts::summary::ValueKind::Landscape, parent),
      m_which(new QSlider(Qt::Horizontal, this)),
      m_plot(new QCustomPlot(this)),
      m_scale(new QCPColorScale(m_plot)),
      m_info(new QLabel(this)) {
    m_plot->plotLayout()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_scale->axis()->setLabel(tr("loss"));
    m_scale->setGradient(QCPColorGradient::gpThermal);
    auto* margins = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    auto* w = new QWidget(this);
    auto* lay = new QVBoxLayout(w);
    lay->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Landscape:"), w));
    bar->addWidget(m_which, 1);
    lay->addLayout(bar);
    m_plot->setMinimumSize(320, 280);
    lay->addWidget(m_plot, 1);
    m_info->setWordWrap(true);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    lay->addWidget(m_info);
    setDisplay(w);
    connect(m_which, &QSlider::valueChanged, this, [this](int i) { showIndex(i); });
}

QString LandscapeView::infoText() const {
    return m_info->text();
}

void LandscapeView::showNothing(const QString& message) {
    m_values.clear();
    m_land = {};
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_plot->replot();
    m_info->setText(message);
}

void LandscapeView::showValues(qint64, const QString&,
                               std::vector<ts::summary::StoredValue> values) {
    m_values = std::move(values);
    m_which->blockSignals(true);
    m_which->setRange(0, std::max(0, static_cast<int>(m_values.size()) - 1));
    m_which->setValue(m_which->maximum());
    m_which->blockSignals(false);
    m_which->setEnabled(m_values.size() > 1);
    showIndex(m_which->value());
}

void LandscapeView::showIndex(int i) {
    m_plot->clearPlottables();
    m_plot->clearItems();
    if (i < 0 || static_cast<size_t>(i) >= m_values.size()) {
        m_plot->replot();
        return;
    }
    auto l = ts::summary::decodeLandscape(m_values[static_cast<size_t>(i)].data);
    if (!l) {
        m_land = {};
        m_plot->replot();
        m_info->setText(
            tr("This landscape cannot be shown: %1").arg(QString::fromStdString(l.error())));
        return;
    }
    m_land = std::move(l.value());
    const auto& L = m_land;
    double zmin = INFINITY, zmax = -INFINITY;
    for (double z : L.z)
        if (std::isfinite(z)) {
            zmin = std::min(zmin, z);
            zmax = std::max(zmax, z);
        }
    m_scale->setVisible(!L.is1D);
    if (L.is1D) {
        QCPGraph* g = m_plot->addGraph();
        g->setData(QVector<double>(L.xs.begin(), L.xs.end()),
                   QVector<double>(L.z.begin(), L.z.end()));
        g->setPen(QPen(QColor(30, 136, 229), 2));
        m_plot->xAxis->setLabel(tr("direction (%1)").arg(QString::fromStdString(L.decomposition)));
        m_plot->yAxis->setLabel(tr("loss"));
        if (!L.pathX.empty()) {
            QCPGraph* p = m_plot->addGraph();
            p->setData(QVector<double>(L.pathX.begin(), L.pathX.end()),
                       QVector<double>(L.pathZ.begin(), L.pathZ.end()));
            p->setLineStyle(QCPGraph::lsNone);
            p->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(198, 40, 40), 6));
        }
    } else {
        auto* map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
        const int nx = static_cast<int>(L.xs.size()), ny = static_cast<int>(L.ys.size());
        map->data()->setSize(nx, ny);
        map->data()->setRange(QCPRange(L.xs.front(), L.xs.back()),
                              QCPRange(L.ys.front(), L.ys.back()));
        for (int r = 0; r < ny; ++r)
            for (int c = 0; c < nx; ++c)
                map->data()->setCell(c, r, L.z[static_cast<size_t>(r * nx + c)]);
        map->setColorScale(m_scale);
        map->setGradient(QCPColorGradient::gpThermal);
        map->setInterpolate(true);
        map->rescaleDataRange(true);
        // Iso-lines.
        for (double level : ts::summary::contourLevels(L.z, 10)) {
            for (const auto& s : ts::summary::contourSegments(L.xs, L.ys, L.z, level)) {
                auto* line = new QCPItemLine(m_plot);
                line->start->setCoords(s.x1, s.y1);
                line->end->setCoords(s.x2, s.y2);
                line->setPen(QPen(QColor(255, 255, 255, 150), 1));
            }
        }
        if (!L.pathX.empty() && L.pathY.size() == L.pathX.size()) {
            auto* path = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
            QVector<double> t, x, y;
            for (size_t k = 0; k < L.pathX.size(); ++k) {
                t << static_cast<double>(k);
                x << L.pathX[k];
                y << L.pathY[k];
            }
            path->setData(t, x, y);
            path->setPen(QPen(QColor(30, 136, 229), 2));
            path->setScatterStyle(
                QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(30, 136, 229), 6));
            for (size_t k = 0; k < L.pathIntervals.size() && k < L.pathX.size(); ++k) {
                auto* label = new QCPItemText(m_plot);
                label->position->setCoords(L.pathX[k], L.pathY[k]);
                label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
                label->setText(QString::number(L.pathIntervals[k]));
                label->setColor(Qt::white);
            }
        }
        if (L.hasConvergence) {
            auto* conv = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
            conv->setData(QVector<double>{0}, QVector<double>{L.convergenceX},
                          QVector<double>{L.convergenceY});
            conv->setScatterStyle(
                QCPScatterStyle(QCPScatterStyle::ssStar, QColor(255, 235, 59), 14));
            conv->setLineStyle(QCPCurve::lsNone);
        }
        m_plot->xAxis->setLabel(
            tr("direction 1 (%1)").arg(QString::fromStdString(L.decomposition)));
        m_plot->yAxis->setLabel(tr("direction 2"));
    }
    m_plot->rescaleAxes();
    m_plot->replot();
    QString intervals;
    if (!L.pathIntervals.empty())
        intervals = tr("; path over %1 %2 %3–%4")
                        .arg(L.pathIntervals.size())
                        .arg(QString::fromStdString(L.unit.empty() ? "step" : L.unit))
                        .arg(L.pathIntervals.front())
                        .arg(L.pathIntervals.back());
    m_info->setText(
        tr("%1 landscape, %2 × %3 points, loss %4 – %5; decomposition %6, unit %7, "
           "%8 steps per epoch%9%10")
            .arg(L.is1D ? tr("1-D") : tr("2-D"))
            .arg(L.xs.size())
            .arg(L.is1D ? 1 : L.ys.size())
            .arg(zmin, 0, 'g', 5)
            .arg(zmax, 0, 'g', 5)
            .arg(QString::fromStdString(L.decomposition.empty() ? "?" : L.decomposition),
                 QString::fromStdString(L.unit.empty() ? "?" : L.unit))
            .arg(L.stepPerEpoch)
            .arg(intervals)
            .arg(L.hasConvergence ? tr("; convergence point at (%1, %2), loss %3")
                                        .arg(L.convergenceX, 0, 'g', 4)
                                        .arg(L.convergenceY, 0, 'g', 4)
                                        .arg(L.convergenceZ, 0, 'g', 5)
                                  : QString()));
}
