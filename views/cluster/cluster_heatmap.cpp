#include "views/cluster/cluster_heatmap.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

#include "core/analysis/cluster/cluster_summary.h"

using namespace ts::analysis;

namespace {

/// 1, 2, 5, 10, 20, 50, ... at least `min`.
int niceStep(double min) {
    for (int base = 1; base < 100'000'000; base *= 10)
        for (int m : {1, 2, 5})
            if (base * m >= min) return base * m;
    return 1'000'000'000;
}

QString msCell(double v) {
    return QString::number(v, 'f', v >= 100 ? 1 : v >= 10 ? 2 : 3) + QStringLiteral(" ms");
}

}  // namespace

ClusterHeatmap::ClusterHeatmap(HeatmapViewport* viewport, QWidget* parent)
    : QWidget(parent), m_vp(viewport) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(320, 200);
}

void ClusterHeatmap::setData(std::shared_ptr<const ClusterSummary> summary,
                             std::shared_ptr<const ClusterMatrix> matrix) {
    m_summary = std::move(summary);
    m_matrix = std::move(matrix);
    m_stale = true;
    update();
}

void ClusterHeatmap::setMetric(CellMetric metric) {
    m_metric = metric;
    m_stale = true;
    update();
}

void ClusterHeatmap::viewportChanged() {
    m_stale = true;
    update();
}

QRect ClusterHeatmap::plotRect(const QSize& size) const {
    return QRect(kLeft, kTop, std::max(1, size.width() - kLeft - kRight),
                 std::max(1, size.height() - kTop - kBottom));
}

void ClusterHeatmap::paintEvent(QPaintEvent*) {
    QPainter p(this);
    render(p, size());
}

void ClusterHeatmap::render(QPainter& p, const QSize& size) {
    p.fillRect(QRect(QPoint(0, 0), size), palette().window());
    const QRect plot = plotRect(size);
    if (!m_matrix || m_matrix->rows == 0 || m_matrix->cols == 0) {
        p.setPen(palette().color(QPalette::Text));
        p.drawText(plot, Qt::AlignCenter, tr("No ranks to show."));
        return;
    }
    if (m_vp->width() != plot.width() || m_vp->height() != plot.height()) {
        m_vp->setPlotSize(plot.width(), plot.height());
        m_stale = true;
    }
    if (m_stale || m_picture.image.size() != plot.size()) {
        m_picture = renderHeatmap(*m_matrix, m_metric, *m_vp);
        m_stale = false;
    }
    p.drawImage(plot.topLeft(), m_picture.image);
    drawStragglers(p, plot);
    drawAxes(p, plot);
    drawColourBar(p, plot);
    if (m_hoverRow >= 0 && m_hoverCol >= 0) {
        const double x0 = m_vp->xOf(m_hoverCol), x1 = m_vp->xOf(m_hoverCol + 1);
        const double y0 = m_vp->yOf(m_hoverRow), y1 = m_vp->yOf(m_hoverRow + 1);
        p.setPen(QPen(Qt::white, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(plot.left() + x0, plot.top() + y0, std::max(2.0, x1 - x0),
                          std::max(2.0, y1 - y0)));
    }
}

void ClusterHeatmap::drawStragglers(QPainter& p, const QRect& plot) {
    // Margin marks: a red tick left of every pixel row, below every pixel column, with one.
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(214, 39, 40));
    for (size_t y = 0; y < m_picture.flagRows.size(); ++y)
        if (m_picture.flagRows[y])
            p.drawRect(plot.left() - 5, plot.top() + static_cast<int>(y), 4, 1);
    for (size_t x = 0; x < m_picture.flagCols.size(); ++x)
        if (m_picture.flagCols[x])
            p.drawRect(plot.left() + static_cast<int>(x), plot.bottom() + 2, 1, 4);
    if (!m_summary || m_summary->stragglers.size() > kMaxRings) return;
    // Around each straggler cell: its outline once cells are 4 px or more; below that a ring
    // of 7 px, so one cell among a million stays visible.
    const bool big = m_vp->cellWidth() >= 4 && m_vp->cellHeight() >= 4;
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(214, 39, 40), big ? 2 : 1.5));
    p.setClipRect(plot);
    for (const Straggler& g : m_summary->stragglers) {
        const double x0 = m_vp->xOf(static_cast<double>(g.stepIndex));
        const double y0 = m_vp->yOf(static_cast<double>(g.rankIndex));
        if (x0 > plot.width() || y0 > plot.height() || x0 + m_vp->cellWidth() < 0 ||
            y0 + m_vp->cellHeight() < 0)
            continue;
        if (big) {
            p.drawRect(QRectF(plot.left() + x0 + 1, plot.top() + y0 + 1, m_vp->cellWidth() - 2,
                              m_vp->cellHeight() - 2));
        } else {
            const QPointF c(plot.left() + x0 + m_vp->cellWidth() / 2,
                            plot.top() + y0 + m_vp->cellHeight() / 2);
            p.drawEllipse(c, 3.5, 3.5);
        }
    }
    p.setClipping(false);
}

void ClusterHeatmap::drawAxes(QPainter& p, const QRect& plot) {
    const QColor text = palette().color(QPalette::Text);
    p.setPen(text);
    p.setBrush(Qt::NoBrush);
    p.drawRect(plot.adjusted(0, 0, -1, -1));
    const QFontMetrics fm = p.fontMetrics();
    // Ranks down the left.
    const int rankStep = niceStep(1.5 * fm.height() / m_vp->cellHeight());
    for (size_t r = static_cast<size_t>(std::floor(m_vp->row0()));
         r < m_summary->rankCount() && r < std::ceil(m_vp->row1()); ++r) {
        if (r % static_cast<size_t>(rankStep) != 0) continue;
        const double y = plot.top() + m_vp->yOf(static_cast<double>(r) + 0.5);
        p.drawLine(QPointF(plot.left() - 8, y), QPointF(plot.left() - 6, y));
        p.drawText(QRectF(0, y - fm.height() / 2.0, plot.left() - 10, fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(m_summary->ranks[r].input.rank));
    }
    // Steps along the bottom.
    const int stepStep =
        niceStep(fm.horizontalAdvance(QStringLiteral("#00000")) / m_vp->cellWidth());
    for (size_t c = static_cast<size_t>(std::floor(m_vp->col0()));
         c < m_summary->stepCount() && c < std::ceil(m_vp->col1()); ++c) {
        if (m_summary->stepNumbers[c] % stepStep != 0 && stepStep > 1) continue;
        const double x = plot.left() + m_vp->xOf(static_cast<double>(c) + 0.5);
        p.drawLine(QPointF(x, plot.bottom() + 6), QPointF(x, plot.bottom() + 9));
        p.drawText(QRectF(x - 40, plot.bottom() + 9, 80, fm.height()), Qt::AlignCenter,
                   QString::number(m_summary->stepNumbers[c]));
    }
    p.drawText(QRect(plot.left(), plot.bottom() + 10 + fm.height(), plot.width(), fm.height()),
               Qt::AlignCenter, tr("Step"));
    p.save();
    p.translate(12, plot.center().y());
    p.rotate(-90);
    p.drawText(QRect(-60, -fm.height() + 4, 120, fm.height()), Qt::AlignCenter, tr("Rank"));
    p.restore();
}

void ClusterHeatmap::drawColourBar(QPainter& p, const QRect& plot) {
    const size_t k = static_cast<size_t>(m_metric);
    const QRect bar(plot.right() + 14, plot.top(), 12, plot.height());
    for (int y = 0; y < bar.height(); ++y) {
        p.setPen(QColor(heatColour(1.0 - static_cast<double>(y) / std::max(1, bar.height() - 1))));
        p.drawLine(bar.left(), bar.top() + y, bar.right(), bar.top() + y);
    }
    p.setPen(palette().color(QPalette::Text));
    const QFontMetrics fm = p.fontMetrics();
    const QRect labels(bar.right() + 4, bar.top(), kRight - 32, bar.height());
    p.drawText(labels, Qt::AlignTop | Qt::AlignLeft, QString::number(m_matrix->high[k], 'f', 1));
    p.drawText(labels, Qt::AlignBottom | Qt::AlignLeft, QString::number(m_matrix->low[k], 'f', 1));
    p.drawText(
        QRect(labels.left(), labels.center().y() - fm.height(), labels.width(), fm.height() * 2),
        Qt::AlignLeft | Qt::AlignVCenter, tr("ms"));
}

QString ClusterHeatmap::cellToolTip(size_t row, size_t col) const {
    if (!m_summary || row >= m_summary->rankCount() || col >= m_summary->stepCount()) return {};
    const RankProfile& r = m_summary->ranks[row];
    const int64_t number = m_summary->stepNumbers[col];
    const RankStep* s = m_summary->cell(row, col);
    QString t = tr("<b>Rank %1, step %2</b>").arg(r.input.rank).arg(number);
    if (!s) return t + tr("<br>This rank has no such step.");
    const bool straggler = m_matrix && m_matrix->straggler[row * m_matrix->cols + col];
    if (straggler) t += tr(" <span style='color:#d62728'>straggler</span>");
    auto line = [&](const QString& name, int64_t ns) {
        t += QStringLiteral("<tr><td>%1</td><td align='right'>%2</td></tr>")
                 .arg(name, msCell(static_cast<double>(ns) / 1e6));
    };
    t += QStringLiteral("<table>");
    line(tr("Step time"), s->dur);
    line(tr("Compute"), s->computeNs);
    line(tr("Communication"), s->commNs);
    line(tr("&nbsp;&nbsp;overlapped by compute"), s->overlapNs);
    line(tr("Wait (exposed communication)"), s->waitNs());
    line(tr("Idle"), s->idleNs);
    line(tr("Work (step − wait)"), s->workNs());
    t += QStringLiteral("</table>");
    return t + tr("Click: this rank's timeline at this step.");
}

void ClusterHeatmap::wheelEvent(QWheelEvent* e) {
    const QRect plot = plotRect(size());
    const QPointF at = e->position() - plot.topLeft();
    const double factor = std::pow(1.2, e->angleDelta().y() / 120.0);
    const bool shift = e->modifiers() & Qt::ShiftModifier,
               ctrl = e->modifiers() & Qt::ControlModifier;
    m_vp->zoomAt(at.x(), at.y(), factor, !ctrl || shift, !shift || ctrl);
    m_stale = true;
    update();
    emit viewportMoved();
    e->accept();
}

void ClusterHeatmap::mousePressEvent(QMouseEvent* e) {
    m_press = m_last = e->pos();
    m_dragged = false;
}

void ClusterHeatmap::mouseMoveEvent(QMouseEvent* e) {
    const QRect plot = plotRect(size());
    if (e->buttons() & Qt::LeftButton) {
        const QPoint d = e->pos() - m_last;
        m_last = e->pos();
        if ((e->pos() - m_press).manhattanLength() > 3) m_dragged = true;
        if (m_dragged) {
            m_vp->pan(d.x(), d.y());
            m_stale = true;
            update();
            emit viewportMoved();
        }
        return;
    }
    size_t row = 0, col = 0;
    const QPointF at = e->position() - plot.topLeft();
    if (!m_summary || !m_vp->cellAt(at.x(), at.y(), row, col)) {
        if (m_hoverRow >= 0) update();
        m_hoverRow = m_hoverCol = -1;
        QToolTip::hideText();
        return;
    }
    if (static_cast<int>(row) != m_hoverRow || static_cast<int>(col) != m_hoverCol) {
        m_hoverRow = static_cast<int>(row);
        m_hoverCol = static_cast<int>(col);
        update();
    }
    QToolTip::showText(e->globalPosition().toPoint(), cellToolTip(row, col), this);
}

void ClusterHeatmap::mouseReleaseEvent(QMouseEvent* e) {
    if (m_dragged || e->button() != Qt::LeftButton) return;
    const QPointF at = e->position() - plotRect(size()).topLeft();
    size_t row = 0, col = 0;
    if (m_summary && m_vp->cellAt(at.x(), at.y(), row, col))
        emit cellClicked(static_cast<int>(row), static_cast<int>(col));
}

void ClusterHeatmap::mouseDoubleClickEvent(QMouseEvent*) {
    m_vp->showAll();
    m_stale = true;
    update();
    emit viewportMoved();
}

void ClusterHeatmap::keyPressEvent(QKeyEvent* e) {
    if (e->key() == Qt::Key_Home || e->key() == Qt::Key_0) {
        mouseDoubleClickEvent(nullptr);
        return;
    }
    QWidget::keyPressEvent(e);
}

void ClusterHeatmap::leaveEvent(QEvent*) {
    if (m_hoverRow >= 0) update();
    m_hoverRow = m_hoverCol = -1;
}
