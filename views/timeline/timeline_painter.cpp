#include "views/timeline/timeline_painter.h"

#include <QDateTime>
#include <QImage>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "views/common/units_text.h"

using namespace ts::timeline;

namespace {

constexpr QRgb kPalette[] = {0xff4e79a7, 0xfff28e2b, 0xffe15759, 0xff76b7b2, 0xff59a14f,
                             0xffedc948, 0xffb07aa1, 0xffff9da7, 0xff9c755f, 0xff86bcb6,
                             0xff8cd17d, 0xffb6992d, 0xff499894, 0xffd37295, 0xfffabfd2,
                             0xffa0cbe8, 0xffffbe7d, 0xfff1ce63, 0xffd4a6c8, 0xff79706e};

uint32_t fnv1a(const std::string& s) {
    uint32_t h = 2166136261u;
    for (unsigned char c : s) h = (h ^ c) * 16777619u;
    return h;
}

const QColor kMatchTick(230, 150, 0);

bool isDark(QRgb c) {
    return qGray(c) < 140;
}

/// Solid rectangles written straight into a 32-bit QImage's scanlines when the painter draws
/// on one without a transform (frames are rendered into an image: TimelineCanvas and the
/// benchmark): tens of thousands of small slices cost a memset each instead of a trip
/// through QPainter. Falls back to QPainter::fillRect elsewhere.
class FastFill {
public:
    FastFill(QPainter& p, const QRect& clip) : m_p(p) {
        QPaintDevice* dev = p.device();
        if (!dev || dev->devType() != QInternal::Image || !p.transform().isIdentity()) return;
        auto* img = static_cast<QImage*>(dev);
        const auto fmt = img->format();
        if (img->devicePixelRatio() != 1.0 ||
            (fmt != QImage::Format_RGB32 && fmt != QImage::Format_ARGB32 &&
             fmt != QImage::Format_ARGB32_Premultiplied))
            return;
        // constBits: no detach; the frame image is not shared while it is painted.
        m_bits = const_cast<uchar*>(img->constBits());
        m_bpl = img->bytesPerLine();
        m_clip = clip & img->rect();
    }
    void fill(const QRect& r, QRgb rgb) {
        if (!m_bits) return m_p.fillRect(r, QColor::fromRgb(rgb));
        const QRect c = r & m_clip;
        if (c.isEmpty()) return;
        const auto opaque = static_cast<uint32_t>(rgb | 0xff000000u);
        for (int y = c.top(); y <= c.bottom(); ++y)
            std::fill_n(reinterpret_cast<uint32_t*>(m_bits + y * m_bpl) + c.left(), c.width(),
                        opaque);
    }

private:
    QPainter& m_p;
    uchar* m_bits = nullptr;
    qsizetype m_bpl = 0;
    QRect m_clip;
};

}  // namespace

TimelineColors TimelineColors::fromPalette(const QPalette& p) {
    TimelineColors c;
    if (p.color(QPalette::Window).lightness() >= 128) return c;
    c.background = QColor(0x1e, 0x20, 0x24);
    c.grid = QColor(0x33, 0x36, 0x3c);
    c.header = QColor(0x2b, 0x2f, 0x36);
    c.gutter = QColor(0x25, 0x28, 0x2d);
    c.gutterHeader = QColor(0x34, 0x39, 0x42);
    c.rowLine = QColor(0x30, 0x33, 0x38);
    c.ruler = QColor(0x2a, 0x2d, 0x32);
    c.rulerLine = QColor(0x60, 0x64, 0x6b);
    c.border = QColor(0x50, 0x54, 0x5b);
    c.text = QColor(0xe6, 0xe6, 0xe6);
    c.dimText = QColor(0xa8, 0xab, 0xb0);
    c.flow = QColor(220, 220, 220, 150);
    c.block = QColor(0x6a, 0x72, 0x7e);
    c.selection = QColor(Qt::white);
    return c;
}

QColor TimelinePainter::colorOf(const TimelineModel& m, uint32_t id) {
    if (m_colorModel != &m) {
        m_colorModel = &m;
        m_colors.assign(m.strings.size() + 1, 0);
    }
    if (id >= m_colors.size()) return QColor(kPalette[0]);
    if (!m_colors[id])
        m_colors[id] = kPalette[fnv1a(m.nameOf(id)) % (sizeof(kPalette) / sizeof(kPalette[0]))];
    return QColor::fromRgb(m_colors[id]);
}

const TimelinePainter::Label& TimelinePainter::labelOf(const TimelineModel& m, uint32_t id,
                                                       const QFontMetrics& fm) {
    if (m_labelModel != &m || m_labelFont != fm.height()) {
        m_labelModel = &m;
        m_labelFont = fm.height();
        m_labels.assign(m.strings.size() + 1, Label{});
    }
    static const Label kNone{};
    if (id >= m_labels.size()) return kNone;
    Label& l = m_labels[id];
    if (l.width < 0) {
        l.text = QString::fromStdString(m.nameOf(id));
        l.width = fm.horizontalAdvance(l.text);
    }
    return l;
}

void TimelinePainter::paint(QPainter& p, const QSize& size, const TimelineFrame& f) {
    m_itemsDrawn = 0;
    const TimelineColors& c = f.colors;
    p.fillRect(QRect(QPoint(0, 0), size), c.background);
    if (!f.model || !f.layout || !f.axis) return;
    const int top = f.rulerHeight;
    p.save();
    p.setClipRect(QRect(0, top, size.width(), size.height() - top));
    // Major grid lines behind everything.
    p.setPen(c.grid);
    for (const RulerTick& t : rulerTicks(*f.axis, static_cast<double>(f.model->startNs)))
        if (t.major) {
            const int x = f.gutter + static_cast<int>(f.axis->xOf(t.ns));
            p.drawLine(x, top, x, size.height());
        }
    auto [a, b] = f.layout->rowsIn(f.scrollY, f.scrollY + size.height() - top);
    for (size_t i = a; i < b; ++i) {
        const auto& row = f.layout->rows()[i];
        const int y = top + row.y - f.scrollY;
        if (row.header)
            p.fillRect(QRect(0, y, size.width(), row.height), c.header);
        else
            paintTrack(p, size, f, row, y);
    }
    if (f.hasArea) {
        const int x0 = f.gutter + static_cast<int>(std::max(-1.0, f.axis->xOf(f.areaStart)));
        const int x1 =
            f.gutter + static_cast<int>(std::min(f.axis->width() + 1, f.axis->xOf(f.areaEnd)));
        for (int t : f.areaTracks) {
            const int y = f.layout->levelY(t, 0);
            if (y < 0) continue;
            const auto& row = f.layout->rows()[f.layout->hitAt(y).row];
            p.fillRect(QRect(x0, top + row.y - f.scrollY, std::max(1, x1 - x0), row.height),
                       QColor(60, 120, 220, 50));
        }
    }
    paintFlows(p, size, f);
    paintSearchMarks(p, size, f);
    p.restore();
    paintGutter(p, size, f);
    paintRuler(p, size, f);
}

void TimelinePainter::paintTrack(QPainter& p, const QSize& size, const TimelineFrame& f,
                                 const TimelineLayout::Row& row, int top) {
    const TimelineModel& m = *f.model;
    const TimelineTrack& t = m.tracks[row.track];
    const TimeAxis& ax = *f.axis;
    const double t0 = ax.start(), t1 = ax.end(), npp = ax.nsPerPixel();
    const int x0 = f.gutter, xMax = size.width();
    const QFontMetrics fm = p.fontMetrics();
    if (!t.counter.ts.empty())
        paintCounter(p, size, f, t, top, row.height - TimelineLayout::kTrackGap);
    FastFill fast(p, QRect(0, f.rulerHeight, size.width(), size.height() - f.rulerHeight));
    for (size_t l = 0; l < t.levels.size(); ++l) {
        const int y = top + static_cast<int>(l) * TimelineLayout::kLevelHeight;
        if (y > size.height() || y + TimelineLayout::kLevelHeight < f.rulerHeight) continue;
        m_items.clear();
        levelItems(t.levels[l], t0, t1, npp, m_items);
        m_itemsDrawn += m_items.size();
        for (const DrawItem& it : m_items) {
            const int xa = std::max(
                x0, x0 + static_cast<int>(std::floor(ax.xOf(static_cast<double>(it.start)))));
            const int xb = std::min(
                xMax, x0 + static_cast<int>(std::ceil(ax.xOf(static_cast<double>(it.end)))));
            const QRect r(xa, y + 1, std::max(1, xb - xa), TimelineLayout::kLevelHeight - 2);
            // Merged blocks are neutral: they hold many names.
            const QColor c = it.count > 1 ? f.colors.block : colorOf(m, it.name);
            fast.fill(r, c.rgb());
            const bool match = f.search && it.count == 1 && f.search->matchesName(it.name);
            if (match) {
                p.setPen(QPen(f.colors.match, 2));
                p.drawRect(r.adjusted(1, 1, -1, -1));
            }
            if (it.count == 1 && r.width() >= 28) {
                p.setPen(isDark(c.rgb()) ? Qt::white : Qt::black);
                const Label& label = labelOf(m, it.name, fm);
                p.drawText(r.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
                           label.width <= r.width() - 6
                               ? label.text
                               : fm.elidedText(label.text, Qt::ElideRight, r.width() - 6));
            }
        }
    }
    // Instants: one marker per pixel column at most.
    const InstantSeries& in = t.instants;
    auto it = std::lower_bound(in.ts.begin(), in.ts.end(), static_cast<int64_t>(std::floor(t0)));
    p.setRenderHint(QPainter::Antialiasing, true);
    while (it != in.ts.end() && static_cast<double>(*it) <= t1) {
        const size_t i = static_cast<size_t>(it - in.ts.begin());
        const double x = x0 + ax.xOf(static_cast<double>(*it));
        QPainterPath tri;
        tri.moveTo(x, top);
        tri.lineTo(x - 4, top + 8);
        tri.lineTo(x + 4, top + 8);
        tri.closeSubpath();
        p.fillPath(tri, colorOf(m, in.name[i]).darker(140));
        it = std::lower_bound(it + 1, in.ts.end(),
                              static_cast<int64_t>(std::ceil(ax.timeAt(x - x0 + 1))));
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    if (f.selected.valid() && f.selected.track == row.track) {
        const SliceLevel& lv = m.level(f.selected);
        const int y = top + f.selected.level * TimelineLayout::kLevelHeight;
        const double xa = x0 + ax.xOf(static_cast<double>(lv.ts[f.selected.index]));
        const double xb = x0 + ax.xOf(static_cast<double>(lv.end(f.selected.index)));
        if (xb >= x0 && xa <= xMax) {
            const QRect r(static_cast<int>(std::max<double>(x0 - 2, xa)), y,
                          std::max(2, static_cast<int>(std::min<double>(xMax + 2, xb) -
                                                       std::max<double>(x0 - 2, xa))),
                          TimelineLayout::kLevelHeight - 1);
            p.setPen(QPen(f.colors.selection, 2));
            p.drawRect(r);
            p.setPen(QPen(f.colors.background, 1));
            p.drawRect(r.adjusted(2, 2, -2, -2));
        }
    }
}

void TimelinePainter::paintCounter(QPainter& p, const QSize& size, const TimelineFrame& f,
                                   const TimelineTrack& t, int top, int height) {
    const CounterSeries& c = t.counter;
    const TimeAxis& ax = *f.axis;
    const double lo = std::min(0.0, c.min), hi = c.max > lo ? c.max : lo + 1;
    auto yOf = [&](double v) { return top + height - 2 - (v - lo) / (hi - lo) * (height - 4); };
    QPolygonF poly;
    const int w = size.width() - f.gutter;
    size_t i = 0;
    double lastY = yOf(lo);
    poly << QPointF(f.gutter, yOf(lo));
    for (int px = 0; px <= w; ++px) {
        const auto t0 = static_cast<int64_t>(std::floor(ax.timeAt(px)));
        // Index of the sample in force at t0 (the last one starting at or before it).
        auto it = std::upper_bound(c.ts.begin() + static_cast<std::ptrdiff_t>(i), c.ts.end(), t0);
        if (it == c.ts.begin()) continue;
        i = static_cast<size_t>(it - c.ts.begin()) - 1;
        const double y = yOf(c.value[i]);
        if (poly.size() == 1) poly << QPointF(f.gutter + px, yOf(lo));
        if (y != lastY) poly << QPointF(f.gutter + px, lastY);
        poly << QPointF(f.gutter + px, y);
        lastY = y;
    }
    poly << QPointF(size.width(), lastY) << QPointF(size.width(), yOf(lo));
    const QColor color = colorOf(*f.model, 0).darker(110);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(color.red(), color.green(), color.blue(), 90));
    p.drawPolygon(poly);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(color, 1));
    p.drawPolyline(poly);
    // The y scale: the top and bottom of the chart with their values, at the left edge.
    p.setPen(f.colors.dimText);
    const int x = f.gutter + 2;
    p.drawLine(x, static_cast<int>(yOf(hi)), x + 5, static_cast<int>(yOf(hi)));
    p.drawLine(x, static_cast<int>(yOf(lo)), x + 5, static_cast<int>(yOf(lo)));
    QFont small = p.font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.save();
    p.setFont(small);
    const QFontMetrics fm(small);
    p.drawText(x + 8, static_cast<int>(yOf(hi)) + fm.ascent() - 1, numberText(hi));
    if (height >= 2 * fm.height()) p.drawText(x + 8, static_cast<int>(yOf(lo)) - 1, numberText(lo));
    p.restore();
}

void TimelinePainter::paintFlows(QPainter& p, const QSize& size, const TimelineFrame& f) {
    const TimelineModel& m = *f.model;
    const TimeAxis& ax = *f.axis;
    p.setRenderHint(QPainter::Antialiasing, true);
    int drawn = 0;
    const auto [first, last] = m.flowsIn(ax.start(), ax.end());
    // Every arrow in view when they are few (or asked for); else only the selection's: a
    // Kineto step holds thousands of launches, and all of them at once hide the slices.
    const bool background = f.allFlows || last - first <= kMaxBackgroundFlows;
    for (size_t i = first; i < last; ++i) {
        const FlowArrow& fl = m.flows[i];
        bool selected = f.selected.valid() && (fl.from == f.selected || fl.to == f.selected);
        if (!selected && f.selected.valid() && fl.from.track == f.selected.track) {
            // A flow leaving a call nested in the selected slice: CPU op -> runtime -> kernel.
            const SliceLevel& sel = m.level(f.selected);
            const int64_t from = m.ts(fl.from);
            selected = m.level(fl.from).depth > sel.depth && from >= sel.ts[f.selected.index] &&
                       from < sel.end(f.selected.index);
        }
        const double xa =
            f.gutter + ax.xOf(static_cast<double>(m.level(fl.from).end(fl.from.index)));
        const double xb = f.gutter + ax.xOf(static_cast<double>(m.ts(fl.to)));
        if (std::max(xa, xb) < f.gutter || std::min(xa, xb) > size.width()) continue;
        const int ya = f.layout->levelY(fl.from.track, fl.from.level);
        const int yb = f.layout->levelY(fl.to.track, fl.to.level);
        if (ya < 0 || yb < 0) continue;
        if (!selected && (!background || ++drawn > 5000)) continue;
        const QPointF pa(xa, f.rulerHeight + ya - f.scrollY + TimelineLayout::kLevelHeight / 2.0);
        const QPointF pb(xb, f.rulerHeight + yb - f.scrollY + TimelineLayout::kLevelHeight / 2.0);
        p.setPen(QPen(selected ? QColor(220, 40, 40) : f.colors.flow, selected ? 2 : 1));
        p.drawLine(pa, pb);
        const double ang = std::atan2(pb.y() - pa.y(), pb.x() - pa.x());
        QPolygonF head;
        head << pb << pb - QPointF(7 * std::cos(ang - 0.4), 7 * std::sin(ang - 0.4))
             << pb - QPointF(7 * std::cos(ang + 0.4), 7 * std::sin(ang + 0.4));
        p.setBrush(p.pen().color());
        p.drawPolygon(head);
        p.setBrush(Qt::NoBrush);
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelinePainter::paintRuler(QPainter& p, const QSize& size, const TimelineFrame& f) {
    const TimelineColors& c = f.colors;
    p.fillRect(QRect(0, 0, size.width(), f.rulerHeight), c.ruler);
    p.setPen(c.rulerLine);
    p.drawLine(0, f.rulerHeight - 1, size.width(), f.rulerHeight - 1);
    const QFontMetrics fm = p.fontMetrics();
    const int line1 = fm.ascent() + 2, line2 = std::min(f.rulerHeight - 4, line1 + fm.height());
    p.save();
    p.setClipRect(QRect(f.gutter, 0, size.width() - f.gutter, f.rulerHeight));
    // Ticks relative to the start of the trace ("+1.5 ms").
    p.setPen(c.text);
    for (const RulerTick& t : rulerTicks(*f.axis, static_cast<double>(f.model->startNs))) {
        const int x = f.gutter + static_cast<int>(f.axis->xOf(t.ns));
        p.drawLine(x, f.rulerHeight - (t.major ? 10 : 5), x, f.rulerHeight - 1);
        p.drawText(x + 3, line1, QString::fromStdString(t.label));
    }
    p.restore();
    // At the left: how much is in view and the absolute time where the view starts (the
    // clock of day for traces in Unix time, else the recorded clock).
    p.setPen(c.text);
    p.drawText(
        QRect(6, 0, f.gutter - 8, line1 + 2), Qt::AlignBottom | Qt::AlignLeft,
        fm.elidedText(durationText(f.axis->end() - f.axis->start(), 3) + QObject::tr(" visible"),
                      Qt::ElideRight, f.gutter - 10));
    p.setPen(c.dimText);
    p.drawText(QRect(6, line1 + 2, f.gutter - 8, line2 - line1), Qt::AlignTop | Qt::AlignLeft,
               fm.elidedText(absoluteTimeText(f), Qt::ElideRight, f.gutter - 10));
    paintMatchTicks(p, size, f);
}

QString TimelinePainter::absoluteTimeText(const TimelineFrame& f) {
    // The timeline's own time: the recorded clock, or the clock sources were aligned to.
    const int64_t stored = static_cast<int64_t>(f.axis->start()) + f.model->originNs;
    constexpr int64_t k1990 = 631'152'000'000'000'000;  // ns since 1970
    if (stored > k1990) {
        const QDateTime t = QDateTime::fromMSecsSinceEpoch(stored / 1'000'000);
        return QObject::tr("from %1.%2")
            .arg(t.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")))
            .arg(static_cast<int>(stored % 1'000'000'000 / 1000), 6, 10, QChar('0'));
    }
    return QObject::tr("from %1 (recorded clock)")
        .arg(durationText(static_cast<double>(stored), 7));
}

void TimelinePainter::paintSearchMarks(QPainter& p, const QSize& size, const TimelineFrame& f) {
    if (!f.search || f.search->matches.empty()) return;
    const TimelineModel& m = *f.model;
    const TimeAxis& ax = *f.axis;
    const int width = size.width() - f.gutter;
    if (width <= 0) return;
    std::vector<std::pair<int, int>> seen;  // (row y, x) drawn, to draw each pixel once
    const int top = f.rulerHeight;
    for (const SliceRef& r : f.search->matches) {
        const double t = static_cast<double>(m.ts(r));
        const double xr = ax.xOf(t);
        if (xr < -2 || xr > width + 2) continue;
        const int x = static_cast<int>(xr);
        const int ly = f.layout->levelY(r.track, r.level);
        if (ly < 0) continue;
        const int y = top + ly - f.scrollY;
        if (y + TimelineLayout::kLevelHeight < top || y > size.height()) continue;
        seen.emplace_back(y, x);
    }
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    for (const auto& [y, x] : seen) {
        const QRect r(f.gutter + x - 1, y + 1, 3, TimelineLayout::kLevelHeight - 2);
        p.fillRect(r, f.colors.match);
    }
}

void TimelinePainter::paintMatchTicks(QPainter& p, const QSize& size, const TimelineFrame& f) {
    if (!f.search || f.search->matches.empty()) return;
    const int width = size.width() - f.gutter;
    if (width <= 0) return;
    // Ticks along the bottom of the ruler: where the matches are in the whole view.
    std::vector<uint8_t> column(static_cast<size_t>(width) + 1, 0);
    for (const SliceRef& r : f.search->matches) {
        const double x = f.axis->xOf(static_cast<double>(f.model->ts(r)));
        if (x >= 0 && x <= width) column[static_cast<size_t>(x)] = 1;
    }
    for (int x = 0; x <= width; ++x)
        if (column[static_cast<size_t>(x)])
            p.fillRect(QRect(f.gutter + x, f.rulerHeight - 4, 1, 3), kMatchTick);
}

void TimelinePainter::paintGutter(QPainter& p, const QSize& size, const TimelineFrame& f) {
    const int top = f.rulerHeight;
    p.save();
    p.setClipRect(QRect(0, top, f.gutter, size.height() - top));
    const TimelineColors& c = f.colors;
    p.fillRect(QRect(0, top, f.gutter, size.height() - top), c.gutter);
    const QFontMetrics fm = p.fontMetrics();
    auto [a, b] = f.layout->rowsIn(f.scrollY, f.scrollY + size.height() - top);
    for (size_t i = a; i < b; ++i) {
        const auto& row = f.layout->rows()[i];
        const int y = top + row.y - f.scrollY;
        p.setPen(c.text);
        // Names elide in the middle: "python3 (0) · GPU 0" and "stream 7" differ at the end.
        if (row.header) {
            p.fillRect(QRect(0, y, f.gutter, row.height), c.gutterHeader);
            const bool folded = f.collapsed && f.collapsed->count(row.group);
            const TrackGroup& g = f.model->groups[row.group];
            QString title =
                QString::fromUtf8(folded ? "\u25B8 " : "\u25BE ") + QString::fromStdString(g.title);
            if (!g.alignment.empty()) {
                // Its source's clock is aligned: the shift, in short (the hover says how).
                const QString a = QString::fromStdString(g.alignment);
                const int open = a.lastIndexOf('(');
                title += QStringLiteral(" \u21E4 ") + (open >= 0 ? a.mid(open + 1).chopped(1) : a);
            }
            p.drawText(QRect(4, y, f.gutter - 8, row.height), Qt::AlignVCenter | Qt::AlignLeft,
                       elideName(fm, title, f.gutter - 8));
        } else {
            const auto& t = f.model->tracks[row.track];
            QString name = QString::fromStdString(t.name);
            if (!t.counter.ts.empty())
                name += QObject::tr(" (max %1)").arg(numberText(t.counter.max));
            p.drawText(QRect(14, y, f.gutter - 18, TimelineLayout::kLevelHeight),
                       Qt::AlignVCenter | Qt::AlignLeft, elideName(fm, name, f.gutter - 18));
            p.setPen(c.rowLine);
            p.drawLine(0, y + row.height - 1, size.width(), y + row.height - 1);
        }
    }
    // The column's edge, which the user drags to widen it.
    p.fillRect(QRect(f.gutter - 3, top, 3, size.height() - top), c.gutterHeader);
    p.setPen(c.border);
    p.drawLine(f.gutter - 1, top, f.gutter - 1, size.height());
    p.restore();
}
