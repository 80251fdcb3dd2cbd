#include "views/memory/segment_map_widget.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <numeric>

using namespace ts::memory;

namespace {
const QColor kBlock[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2c),
                         QColor(0x76, 0xb7, 0xb2), QColor(0x59, 0xa1, 0x4f),
                         QColor(0xed, 0xc9, 0x49), QColor(0xaf, 0x7a, 0xa1)};
}  // namespace

SegmentMapWidget::SegmentMapWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(160);
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

void SegmentMapWidget::setState(std::shared_ptr<const SnapshotData> data, AllocatorState state) {
    m_data = std::move(data);
    m_state = std::move(state);
    layout();
    update();
}

void SegmentMapWidget::resizeEvent(QResizeEvent*) {
    layout();
}

void SegmentMapWidget::layout() {
    m_placed.clear();
    const auto& segs = m_state.segments;
    if (segs.empty()) return;
    std::vector<size_t> order(segs.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return segs[a].size != segs[b].size ? segs[a].size < segs[b].size
                                            : segs[a].addr < segs[b].addr;
    });
    const double maxSize = static_cast<double>(segs[order.back()].size);
    const double w = std::max(50, width() - 16);
    m_scale = w / maxSize;
    // Rows as wide as the largest segment; count them first to size the bars.
    std::vector<std::pair<size_t, double>> rowOf;  // (row, offset in bytes)
    size_t row = 0;
    double used = 0;
    const double gap = 2 / m_scale;
    for (size_t i : order) {
        const double s = static_cast<double>(segs[i].size);
        if (used > 0 && used + s > maxSize) {
            ++row;
            used = 0;
        }
        rowOf.emplace_back(row, used);
        used += s + gap;
    }
    const double rowH = std::clamp((height() - 8.0) / static_cast<double>(row + 1), 6.0, 40.0);
    for (size_t k = 0; k < order.size(); ++k) {
        const auto [r, off] = rowOf[k];
        m_placed.push_back(
            {order[k], QRectF(8 + off * m_scale, 4 + static_cast<double>(r) * rowH,
                              std::max(1.0, static_cast<double>(segs[order[k]].size) * m_scale),
                              rowH * 0.8)});
    }
}

void SegmentMapWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    if (m_placed.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No segments at this moment"));
        return;
    }
    for (const Placed& pl : m_placed) {
        const StateSegment& g = m_state.segments[pl.segment];
        p.fillRect(pl.rect, palette().base());  // free space: white, or dark in a dark theme
        for (const StateBlock& b : g.blocks) {
            const double x = pl.rect.left() + static_cast<double>(b.addr - g.addr) * m_scale;
            const double wReq = std::max(0.5, static_cast<double>(b.requested) * m_scale);
            const double wAll = std::max(0.5, static_cast<double>(b.size) * m_scale);
            const QColor c =
                b.pendingFree ? QColor(Qt::red) : kBlock[(b.addr >> 9) % std::size(kBlock)];
            p.fillRect(QRectF(x, pl.rect.top(), wReq, pl.rect.height()), c);
            if (wAll > wReq)
                p.fillRect(QRectF(x + wReq, pl.rect.top(), wAll - wReq, pl.rect.height()),
                           QColor(255, 180, 180));
        }
        p.setPen(QPen(palette().color(QPalette::Text), 1));
        p.drawRect(pl.rect);
    }
}

QString SegmentMapWidget::describeAt(QPointF pos) const {
    for (const Placed& pl : m_placed) {
        if (!pl.rect.contains(pos)) continue;
        const StateSegment& g = m_state.segments[pl.segment];
        const uint64_t addr = g.addr + static_cast<uint64_t>((pos.x() - pl.rect.left()) / m_scale);
        for (const StateBlock& b : g.blocks)
            if (addr >= b.addr && addr < b.addr + static_cast<uint64_t>(b.size)) {
                QString t =
                    tr("b%1 %2 allocation (%3 asked for)%4, in segment s%5\n")
                        .arg(b.addr, 0, 16)
                        .arg(bytesText(b.size), bytesText(b.requested))
                        .arg(b.pendingFree
                                 ? tr(", freed but waiting for another stream (record_stream)")
                                 : QString())
                        .arg(g.addr, 0, 16);
                return m_data ? t + QLatin1Char('\n') + stackText(m_data->snapshot, b.stack) : t;
            }
        return tr("s%1: segment of %2 (%3), stream %4: %5 allocated, %6 free, the largest free "
                  "piece %7, %8 blocks")
            .arg(g.addr, 0, 16)
            .arg(bytesText(g.size), g.isLarge ? tr("large pool") : tr("small pool"))
            .arg(g.stream)
            .arg(bytesText(g.allocated), bytesText(g.freeBytes), bytesText(g.largestFree))
            .arg(g.blocks.size());
    }
    return {};
}

void SegmentMapWidget::mouseMoveEvent(QMouseEvent* e) {
    emit hovered(describeAt(e->position()));
}
