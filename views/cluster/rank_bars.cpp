#include "views/cluster/rank_bars.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "core/analysis/cluster/cluster_summary.h"
#include "views/cluster/cluster_heatmap.h"

using namespace ts::analysis;

const QColor RankBars::kCompute(0, 114, 178);
const QColor RankBars::kWait(230, 159, 0);
const QColor RankBars::kIdle(170, 170, 170);

namespace {
constexpr int kTop = ClusterHeatmap::kTop, kBottom = ClusterHeatmap::kBottom;
constexpr int kLeft = 6, kRight = 10;
}  // namespace

RankBars::RankBars(HeatmapViewport* viewport, QWidget* parent) : QWidget(parent), m_vp(viewport) {
    setMouseTracking(true);
    setMinimumWidth(200);
}

void RankBars::setSummary(std::shared_ptr<const ClusterSummary> summary) {
    m_summary = std::move(summary);
    m_selected = -1;
    update();
}

void RankBars::setSelectedRow(int row) {
    m_selected = row;
    update();
}

void RankBars::paintEvent(QPaintEvent*) {
    QPainter p(this);
    render(p, size());
}

void RankBars::render(QPainter& p, const QSize& size) {
    p.fillRect(QRect(QPoint(0, 0), size), palette().window());
    if (!m_summary || m_summary->rankCount() == 0) return;
    const int h = std::max(1, size.height() - kTop - kBottom);
    const int w = std::max(1, size.width() - kLeft - kRight);
    double maxMs = 0;
    for (const RankFigures& f : m_summary->figures)
        maxMs = std::max(maxMs, f.computeMs + f.waitMs + f.idleMs);
    if (maxMs <= 0) maxMs = 1;
    const double perMs = w / maxMs;
    // The plot height is the heatmap's (same margins); rows map through the shared viewport.
    // Each pixel row shows the rank with the longest mean step among those it covers; a run
    // of pixel rows showing the same rank is one bar.
    const double scale = static_cast<double>(std::max(1, m_vp->height())) / h;
    const size_t n = m_summary->rankCount();
    auto total = [&](size_t i) {
        const RankFigures& f = m_summary->figures[i];
        return f.computeMs + f.waitMs + f.idleMs;
    };
    auto draw = [&](size_t r, int y0, int y1) {
        const RankFigures& f = m_summary->figures[r];
        const int height = std::max(1, y1 - y0 - (y1 - y0 > 4 ? 1 : 0));
        double x = kLeft;
        for (auto [v, c] : {std::pair{f.computeMs, kCompute}, std::pair{f.waitMs, kWait},
                            std::pair{f.idleMs, kIdle}}) {
            const double len = v * perMs;
            p.fillRect(QRectF(x, kTop + y0, len, height), c);
            x += len;
        }
        if (static_cast<int>(r) == m_selected) {
            p.setPen(QPen(palette().color(QPalette::Text), 1));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRectF(kLeft - 2, kTop + y0 - 1, w + 3, height + 1));
        }
    };
    int runStart = -1;
    size_t runRow = 0;
    for (int py = 0; py < h; ++py) {
        const double a = std::floor(m_vp->rowAt(py * scale));
        const double b = std::ceil(m_vp->rowAt((py + 1) * scale));
        size_t lo = static_cast<size_t>(std::clamp(a, 0.0, static_cast<double>(n - 1)));
        size_t hi =
            static_cast<size_t>(std::clamp(b, static_cast<double>(lo + 1), static_cast<double>(n)));
        size_t pick = lo;
        for (size_t r = lo + 1; r < hi; ++r)
            if (total(r) > total(pick)) pick = r;
        if (runStart >= 0 && pick == runRow) continue;
        if (runStart >= 0) draw(runRow, runStart, py);
        runStart = py;
        runRow = pick;
    }
    if (runStart >= 0) draw(runRow, runStart, h);
    p.setPen(palette().color(QPalette::Text));
    p.drawLine(kLeft, kTop, kLeft, kTop + h);
    const QFontMetrics fm = p.fontMetrics();
    p.drawText(QRect(kLeft, kTop + h + 4, w, fm.height()), Qt::AlignLeft, QStringLiteral("0"));
    p.drawText(QRect(kLeft, kTop + h + 4, w, fm.height()), Qt::AlignRight,
               tr("%1 ms/step").arg(maxMs, 0, 'f', maxMs >= 10 ? 1 : 2));
    // Legend: compute, wait, idle.
    int x = kLeft;
    const int y = kTop + h + 6 + fm.height();
    for (auto [c, name] : {std::pair{kCompute, tr("compute")}, std::pair{kWait, tr("comm wait")},
                           std::pair{kIdle, tr("idle")}}) {
        p.fillRect(QRect(x, y + 2, 9, 9), c);
        x += 12;
        p.drawText(QRect(x, y, w, fm.height()), Qt::AlignLeft, name);
        x += fm.horizontalAdvance(name) + 8;
    }
}

int RankBars::rowAt(int y) const {
    if (!m_summary) return -1;
    const int h = std::max(1, height() - kTop - kBottom);
    const double scale = static_cast<double>(std::max(1, m_vp->height())) / h;
    const double r = std::floor(m_vp->rowAt((y - kTop) * scale));
    if (y < kTop || y >= kTop + h || r < 0 || r >= static_cast<double>(m_summary->rankCount()))
        return -1;
    return static_cast<int>(r);
}

QString RankBars::rowToolTip(int row) const {
    const RankFigures& f = m_summary->figures[static_cast<size_t>(row)];
    const RankProfile& r = m_summary->ranks[static_cast<size_t>(row)];
    auto fmt = [](double v) { return QString::number(v, 'f', 3) + QStringLiteral(" ms"); };
    QString t = tr("<b>Rank %1</b> — %2<table>")
                    .arg(r.input.rank)
                    .arg(QString::fromStdString(r.input.label).toHtmlEscaped());
    auto line = [&](const QString& n, const QString& v) {
        t += QStringLiteral("<tr><td>%1</td><td align='right'>%2</td></tr>").arg(n, v);
    };
    line(tr("Steps"), QString::number(f.steps));
    line(tr("Step time, median"), fmt(f.stepMsMedian));
    line(tr("Step time, p95"), fmt(f.stepMsP95));
    line(tr("Compute per step"), fmt(f.computeMs));
    line(tr("Communication per step"), fmt(f.commMs));
    line(tr("&nbsp;&nbsp;overlapped by compute"),
         std::isfinite(f.overlapPct) ? QString::number(f.overlapPct, 'f', 1) + "%" : tr("—"));
    line(tr("Wait per step"), fmt(f.waitMs));
    line(tr("Idle per step"), fmt(f.idleMs));
    line(tr("Work, median"), fmt(f.workMsMedian));
    line(tr("Straggler steps"), QString::number(f.stragglerSteps));
    return t + QStringLiteral("</table>") + tr("Click: its op statistics against the median rank.");
}

void RankBars::wheelEvent(QWheelEvent* e) {
    const int h = std::max(1, height() - kTop - kBottom);
    const double y = (e->position().y() - kTop) * std::max(1, m_vp->height()) / h;
    m_vp->zoomAt(0, y, std::pow(1.2, e->angleDelta().y() / 120.0), false, true);
    update();
    emit viewportMoved();
    e->accept();
}

void RankBars::mouseMoveEvent(QMouseEvent* e) {
    const int row = rowAt(static_cast<int>(e->position().y()));
    if (row < 0) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(e->globalPosition().toPoint(), rowToolTip(row), this);
}

void RankBars::mouseReleaseEvent(QMouseEvent* e) {
    const int row = rowAt(static_cast<int>(e->position().y()));
    if (row >= 0 && e->button() == Qt::LeftButton) {
        setSelectedRow(row);
        emit rankClicked(row);
    }
}
