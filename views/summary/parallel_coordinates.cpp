#include "views/summary/parallel_coordinates.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

ParallelCoordinates::ParallelCoordinates(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(220);
    setMouseTracking(false);
}

void ParallelCoordinates::setData(QStringList columns, std::vector<std::vector<Cell>> rows,
                                  QStringList labels) {
    m_columns = std::move(columns);
    m_rows = std::move(rows);
    m_labels = std::move(labels);
    m_axes.assign(static_cast<size_t>(m_columns.size()), Axis{});
    for (size_t c = 0; c < m_axes.size(); ++c) {
        Axis& a = m_axes[c];
        bool anyText = false, anyNumber = false;
        double lo = INFINITY, hi = -INFINITY;
        for (const auto& r : m_rows) {
            if (c >= r.size()) continue;
            if (r[c].number && std::isfinite(*r[c].number)) {
                anyNumber = true;
                lo = std::min(lo, *r[c].number);
                hi = std::max(hi, *r[c].number);
            } else if (!r[c].text.isEmpty()) {
                anyText = true;
                if (!a.categories.contains(r[c].text)) a.categories << r[c].text;
            }
        }
        a.numeric = anyNumber && !anyText;
        if (a.numeric) {
            a.lo = lo;
            a.hi = hi > lo ? hi : lo + 1;
        } else {
            a.categories.sort();
        }
    }
    if (m_selected >= static_cast<int>(m_rows.size())) m_selected = -1;
    update();
}

void ParallelCoordinates::setSelectedRow(int row) {
    m_selected = row;
    update();
}

QRectF ParallelCoordinates::plotRect() const {
    return QRectF(50, 50, std::max(10, width() - 100), std::max(10, height() - 80));
}

double ParallelCoordinates::position(int axis, const Cell& c) const {
    const Axis& a = m_axes[static_cast<size_t>(axis)];
    if (a.numeric) {
        if (!c.number || !std::isfinite(*c.number)) return NAN;
        return (*c.number - a.lo) / (a.hi - a.lo);
    }
    const int i = a.categories.indexOf(c.text);
    if (i < 0) return NAN;
    return a.categories.size() == 1 ? 0.5 : static_cast<double>(i) / (a.categories.size() - 1);
}

QPointF ParallelCoordinates::pointOf(int row, int axis) const {
    const QRectF r = plotRect();
    const int n = std::max(1, axisCount() - 1);
    const double x = r.left() + r.width() * axis / n;
    if (row < 0 || static_cast<size_t>(row) >= m_rows.size() || axis < 0 || axis >= axisCount() ||
        static_cast<size_t>(axis) >= m_rows[static_cast<size_t>(row)].size())
        return {x, NAN};
    const double p = position(axis, m_rows[static_cast<size_t>(row)][static_cast<size_t>(axis)]);
    return {x, r.bottom() - p * r.height()};
}

void ParallelCoordinates::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    if (m_columns.isEmpty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No run has hyper-parameters or metrics."));
        return;
    }
    const QRectF r = plotRect();
    const int n = axisCount();
    // Lines, coloured by the last axis.
    const int colourAxis = n - 1;
    for (int pass = 0; pass < 2; ++pass)
        for (size_t row = 0; row < m_rows.size(); ++row) {
            const bool sel = static_cast<int>(row) == m_selected;
            if ((pass == 1) != sel) continue;
            const double t = position(colourAxis, m_rows[row][static_cast<size_t>(colourAxis)]);
            QColor c = std::isfinite(t) ? QColor::fromHsvF(0.66 * (1 - t), 0.75, 0.85)
                                        : QColor(150, 150, 150);
            c.setAlpha(sel ? 255 : 170);
            p.setPen(QPen(c, sel ? 3.0 : 1.4));
            QPainterPath path;
            bool started = false;
            for (int a = 0; a < n; ++a) {
                const QPointF pt = pointOf(static_cast<int>(row), a);
                if (!std::isfinite(pt.y())) {
                    started = false;  // a missing value breaks the line
                    continue;
                }
                if (!started)
                    path.moveTo(pt);
                else
                    path.lineTo(pt);
                started = true;
            }
            p.drawPath(path);
        }
    // Axes with their names and ranges.
    p.setPen(palette().text().color());
    const QFontMetrics fm(font());
    for (int a = 0; a < n; ++a) {
        const double x = r.left() + r.width() * a / std::max(1, n - 1);
        p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
        // Names alternate between two lines when the axes are close.
        const double spacing = n > 1 ? r.width() / (n - 1) : r.width();
        const bool stagger = spacing < 130 && (a % 2) == 1;
        const QString name = fm.elidedText(m_columns[a], Qt::ElideMiddle,
                                           static_cast<int>(std::min(240.0, 2 * spacing)));
        p.drawText(QRectF(x - 120, stagger ? 0 : 15, 240, 16), Qt::AlignHCenter, name);
        const Axis& ax = m_axes[static_cast<size_t>(a)];
        QString top, bottom;
        if (ax.numeric) {
            top = QString::number(ax.hi, 'g', 4);
            bottom = QString::number(ax.lo, 'g', 4);
        } else if (!ax.categories.isEmpty()) {
            for (int k = 0; k < ax.categories.size(); ++k) {
                const double y =
                    r.bottom() -
                    (ax.categories.size() == 1 ? 0.5 : double(k) / (ax.categories.size() - 1)) *
                        r.height();
                p.drawText(QPointF(x + 3, y - 2),
                           fm.elidedText(ax.categories[k], Qt::ElideRight, 90));
            }
        }
        if (!top.isEmpty()) {
            p.drawText(QRectF(x - 50, r.top() - 15, 100, 14), Qt::AlignHCenter, top);
            p.drawText(QRectF(x - 50, r.bottom() + 2, 100, 14), Qt::AlignHCenter, bottom);
        }
    }
}

void ParallelCoordinates::mousePressEvent(QMouseEvent* e) {
    const QPointF at = e->position();
    int best = -1;
    double bestDist = 8;
    for (size_t row = 0; row < m_rows.size(); ++row)
        for (int a = 0; a + 1 < axisCount(); ++a) {
            const QPointF p1 = pointOf(static_cast<int>(row), a),
                          p2 = pointOf(static_cast<int>(row), a + 1);
            if (!std::isfinite(p1.y()) || !std::isfinite(p2.y()) || at.x() < p1.x() ||
                at.x() > p2.x())
                continue;
            const double t = (at.x() - p1.x()) / std::max(1e-9, p2.x() - p1.x());
            const double d = std::abs(p1.y() + t * (p2.y() - p1.y()) - at.y());
            if (d < bestDist) {
                bestDist = d;
                best = static_cast<int>(row);
            }
        }
    if (best >= 0) {
        setSelectedRow(best);
        emit rowClicked(best);
    }
}
