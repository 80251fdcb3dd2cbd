#include "views/memory/snapshot_timeline_widget.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

using namespace ts::memory;

namespace {

// memory_viz's palette (Tableau 10).
const QColor kPalette[] = {
    QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2c), QColor(0x76, 0xb7, 0xb2),
    QColor(0x59, 0xa1, 0x4f), QColor(0xed, 0xc9, 0x49), QColor(0xaf, 0x7a, 0xa1),
    QColor(0xff, 0x9d, 0xa7), QColor(0x9c, 0x75, 0x5f), QColor(0x1b, 0x9e, 0x77)};
const QColor kLeak(0xe1, 0x57, 0x59);

double niceStep(double raw) {
    const double p = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-300))));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw) return m * p;
    return 10 * p;
}

/// A round step of bytes: 1, 2, 5 or 10 times KiB, MiB or GiB.
double niceByteStep(double raw) {
    double unit = 1;
    while (unit * 1024 <= raw) unit *= 1024;
    return niceStep(raw / unit) * unit;
}

}  // namespace

SnapshotTimelineWidget::SnapshotTimelineWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(240);
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

void SnapshotTimelineWidget::setData(std::shared_ptr<const SnapshotData> data, size_t device) {
    m_data = std::move(data);
    m_device = device;
    m_hover = -1;
    if (m_data && device < m_data->layouts.size()) {
        const auto& L = m_data->layouts[device];
        const auto& t = m_data->report.devices[device].timeline;
        m_yMax = static_cast<double>(std::max(L.maxTop, t.peakReserved));
        for (int64_t r : t.reserved) m_yMax = std::max(m_yMax, static_cast<double>(r));
        m_yMax = std::max(1.0, m_yMax * 1.05);
        m_x0 = 0;
        m_x1 = std::max(1, L.xEnd);
    }
    update();
}

QRectF SnapshotTimelineWidget::plotRect() const {
    return QRectF(72, 24, std::max(10, width() - 80), std::max(10, height() - 52));
}
double SnapshotTimelineWidget::toPx(double x) const {
    const QRectF r = plotRect();
    return r.left() + (x - m_x0) / std::max(1e-9, m_x1 - m_x0) * r.width();
}
double SnapshotTimelineWidget::toX(double px) const {
    const QRectF r = plotRect();
    return m_x0 + (px - r.left()) / r.width() * (m_x1 - m_x0);
}
double SnapshotTimelineWidget::toPy(double bytes) const {
    const QRectF r = plotRect();
    return r.bottom() - bytes / m_yMax * r.height();
}

void SnapshotTimelineWidget::setRange(double x0, double x1) {
    if (!m_data || m_device >= m_data->layouts.size()) return;
    const double end = std::max(1, m_data->layouts[m_device].xEnd);
    const double span = std::clamp(x1 - x0, 4.0, end);
    x0 = std::clamp(x0, 0.0, end - span);
    m_x0 = x0;
    m_x1 = x0 + span;
    update();
}

QString SnapshotTimelineWidget::xLabel(double x) const {
    const auto& evs = m_data->snapshot.devices;
    const int64_t dev = m_data->report.devices[m_device].device;
    if (static_cast<size_t>(dev) < evs.size() && !evs[static_cast<size_t>(dev)].empty()) {
        const auto& e = evs[static_cast<size_t>(dev)];
        const size_t i = std::min(e.size() - 1, static_cast<size_t>(std::max(0.0, x - 1)));
        if (e[i].timeUs >= 0 && e.front().timeUs >= 0)
            return QStringLiteral("%1 s").arg((e[i].timeUs - e.front().timeUs) / 1e6, 0, 'f', 3);
    }
    return QString::number(static_cast<int64_t>(x));
}

void SnapshotTimelineWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QRectF r = plotRect();
    p.fillRect(r, palette().base());
    if (!m_data || m_device >= m_data->layouts.size()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No snapshot"));
        return;
    }
    const auto& L = m_data->layouts[m_device];
    const auto& dev = m_data->report.devices[m_device];
    const auto& t = dev.timeline;
    const auto& leaked = m_data->leaked[m_device];
    p.save();
    p.setClipRect(r);
    p.setPen(Qt::NoPen);
    p.setRenderHint(QPainter::Antialiasing, false);
    for (const Band& b : L.bands) {
        if (b.x.empty() || b.end <= m_x0 || b.x.front() >= m_x1) continue;
        const bool summed = b.allocation == UINT32_MAX;
        QColor c = summed ? QColor(190, 190, 190)
                          : (b.allocation < leaked.size() && leaked[b.allocation]
                                 ? kLeak
                                 : kPalette[b.allocation % std::size(kPalette)]);
        if (!summed && static_cast<int64_t>(b.allocation) == m_hover) c = c.darker(140);
        p.setBrush(c);
        for (size_t k = 0; k < b.x.size(); ++k) {
            const double xa = b.x[k], xb = k + 1 < b.x.size() ? b.x[k + 1] : b.end;
            if (xb <= m_x0 || xa >= m_x1) continue;
            const double size =
                summed ? static_cast<double>(b.sizes[k]) : static_cast<double>(b.size);
            if (size <= 0) continue;
            const double off = static_cast<double>(b.offset[k]);
            const QRectF box(QPointF(toPx(xa), toPy(off + size)), QPointF(toPx(xb), toPy(off)));
            p.drawRect(box.adjusted(0, 0, box.width() < 1 ? 1 - box.width() : 0, 0));
        }
    }
    // Reserved bytes (segments) as a line.
    QPainterPath reserved;
    reserved.moveTo(toPx(0), toPy(static_cast<double>(t.startReserved)));
    for (size_t i = 0; i < t.reserved.size(); ++i) {
        const double x = toPx(static_cast<double>(i + 1));
        reserved.lineTo(x, reserved.currentPosition().y());
        reserved.lineTo(x, toPy(static_cast<double>(t.reserved[i])));
    }
    reserved.lineTo(toPx(L.xEnd), reserved.currentPosition().y());
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(palette().color(QPalette::Text), 1.2, Qt::DashLine));
    p.drawPath(reserved);
    // The peak.
    const double px = toPx(t.peakEvent + 1), py = toPy(static_cast<double>(t.peakBytes));
    p.setPen(QPen(Qt::red, 1));
    p.drawLine(QPointF(px, r.top()), QPointF(px, r.bottom()));
    p.drawText(QPointF(std::min(px + 4, r.right() - 160), std::max(py - 4, r.top() + 12)),
               tr("peak %1").arg(bytesText(t.peakBytes)));
    p.restore();
    // Axes.
    p.setPen(palette().color(QPalette::Text));
    p.drawRect(r);
    const double yStep = niceByteStep(m_yMax / 5);
    for (double y = 0; y <= m_yMax; y += yStep) {
        const double yy = toPy(y);
        p.drawLine(QPointF(r.left() - 4, yy), QPointF(r.left(), yy));
        p.drawText(QRectF(0, yy - 8, r.left() - 6, 16), Qt::AlignRight | Qt::AlignVCenter,
                   bytesText(static_cast<int64_t>(y)));
    }
    const double xStep = niceStep((m_x1 - m_x0) / 8);
    for (double x = std::ceil(m_x0 / xStep) * xStep; x <= m_x1; x += xStep) {
        const double xx = toPx(x);
        p.drawLine(QPointF(xx, r.bottom()), QPointF(xx, r.bottom() + 4));
        p.drawText(QRectF(xx - 50, r.bottom() + 4, 100, 16), Qt::AlignHCenter | Qt::AlignTop,
                   xLabel(x));
    }
    p.drawText(QRectF(r.left(), 4, r.width(), 16), Qt::AlignLeft | Qt::AlignVCenter,
               tr("Active memory: each allocation a band (red: leaked), %1 drawn%2; dashed: "
                  "reserved (segments); x: events, labelled with their time")
                   .arg(L.drawn)
                   .arg(L.summed ? tr(", %1 small ones summed in grey").arg(L.summed) : QString()));
}

int64_t SnapshotTimelineWidget::allocationAt(QPointF pos) const {
    if (!m_data || m_device >= m_data->layouts.size() || !plotRect().contains(pos)) return -1;
    const double x = toX(pos.x());
    const double bytes = (plotRect().bottom() - pos.y()) / plotRect().height() * m_yMax;
    for (const Band& b : m_data->layouts[m_device].bands) {
        if (b.allocation == UINT32_MAX || b.x.empty() || x < b.x.front() || x >= b.end) continue;
        auto it = std::upper_bound(b.x.begin(), b.x.end(), static_cast<int32_t>(std::floor(x)));
        const size_t k = static_cast<size_t>(it - b.x.begin()) - 1;
        const double off = static_cast<double>(b.offset[k]);
        if (bytes >= off && bytes < off + static_cast<double>(b.size)) return b.allocation;
    }
    return -1;
}

void SnapshotTimelineWidget::wheelEvent(QWheelEvent* e) {
    if (!m_data) return;
    const double at = toX(e->position().x());
    const double f = e->angleDelta().y() > 0 ? 0.8 : 1.25;
    setRange(at - (at - m_x0) * f, at + (m_x1 - at) * f);
    e->accept();
}

void SnapshotTimelineWidget::mousePressEvent(QMouseEvent* e) {
    m_dragging = e->button() == Qt::LeftButton;
    m_dragX = e->position().x();
    m_moved = false;
}

void SnapshotTimelineWidget::mouseMoveEvent(QMouseEvent* e) {
    if (m_dragging) {
        const double dx = e->position().x() - m_dragX;
        if (std::abs(dx) > 2) m_moved = true;
        const double shift = dx / plotRect().width() * (m_x1 - m_x0);
        m_dragX = e->position().x();
        setRange(m_x0 - shift, m_x1 - shift);
        return;
    }
    const int64_t a = allocationAt(e->position());
    if (a != m_hover) {
        m_hover = a;
        update();
        emit hovered(a);
    }
}

void SnapshotTimelineWidget::mouseReleaseEvent(QMouseEvent* e) {
    if (m_dragging && !m_moved) emit clicked(allocationAt(e->position()));
    m_dragging = false;
}

void SnapshotTimelineWidget::leaveEvent(QEvent*) {
    if (m_hover != -1) {
        m_hover = -1;
        update();
    }
}
