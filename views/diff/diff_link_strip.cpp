#include "views/diff/diff_link_strip.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>

#include "views/timeline/timeline_canvas.h"

using ts::analysis::AlignedOp;
using ts::analysis::DiffAlignment;
using ts::timeline::TimeAxis;

namespace {

double middleX(const AlignedOp& op, const TimeAxis& axis, int64_t origin, double gutter) {
    return gutter + axis.xOf(static_cast<double>(op.ts - origin) + static_cast<double>(op.dur) / 2);
}

bool inView(double x, const TimeAxis& axis, double gutter) {
    return x >= gutter && x <= gutter + axis.width();
}

}  // namespace

void diffLinks(const DiffAlignment& al, const TimeAxis& axisA, int64_t originA,
               const TimeAxis& axisB, int64_t originB, double gutter, int64_t focusPair,
               std::vector<DiffLink>& links, std::vector<DiffMark>& marks, size_t maxLinks) {
    links.clear();
    marks.clear();
    struct Candidate {
        DiffLink link;
        int32_t depth;
        size_t pair;
    };
    std::vector<Candidate> seen;
    for (size_t k = 0; k < al.pairs.size(); ++k) {
        const AlignedOp& a = al.ops[0][al.pairs[k].first];
        const AlignedOp& b = al.ops[1][al.pairs[k].second];
        const double xa = middleX(a, axisA, originA, gutter),
                     xb = middleX(b, axisB, originB, gutter);
        if (!inView(xa, axisA, gutter) && !inView(xb, axisB, gutter)) continue;
        const double ratio =
            a.dur > 0 ? static_cast<double>(b.dur) / static_cast<double>(a.dur) : 1;
        QColor c(140, 140, 140, 150);
        if (ratio > 1.5) c = QColor(213, 94, 0, 200);
        if (ratio < 1 / 1.5) c = QColor(0, 158, 115, 200);
        const bool focus = static_cast<int64_t>(k) == focusPair;
        if (focus) c = QColor(192, 57, 43);
        seen.push_back({{xa, xb, c, focus}, std::min(a.depth, b.depth), k});
    }
    if (seen.size() > maxLinks) {
        std::stable_sort(seen.begin(), seen.end(), [](const Candidate& x, const Candidate& y) {
            if (x.link.focus != y.link.focus) return x.link.focus;
            return x.depth < y.depth;
        });
        seen.resize(maxLinks);
    }
    for (const auto& c : seen) links.push_back(c.link);
    for (uint32_t i : al.deleted) {
        const double x = middleX(al.ops[0][i], axisA, originA, gutter);
        if (inView(x, axisA, gutter)) marks.push_back({x, false});
    }
    for (uint32_t j : al.inserted) {
        const double x = middleX(al.ops[1][j], axisB, originB, gutter);
        if (inView(x, axisB, gutter)) marks.push_back({x, true});
    }
}

DiffLinkStrip::DiffLinkStrip(QWidget* parent) : QWidget(parent) {
    setFixedHeight(44);
    setToolTip(
        tr("Aligned pairs: A's op (above) to B's op (below); red: B slower, green: B "
           "faster; purple marks: ops without a partner"));
}

void DiffLinkStrip::setSource(const DiffAlignment* al, const TimelineCanvas* a,
                              const TimelineCanvas* b, int64_t originA, int64_t originB,
                              int64_t focusPair) {
    m_al = al;
    m_a = a;
    m_b = b;
    m_originA = originA;
    m_originB = originB;
    m_focus = focusPair;
    update();
}

void DiffLinkStrip::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!m_al || !m_a || !m_b || !m_a->model() || !m_b->model()) return;
    diffLinks(*m_al, m_a->axis(), m_originA, m_b->axis(), m_originB, m_a->gutterWidth(), m_focus,
              m_links, m_marks);
    p.setRenderHint(QPainter::Antialiasing);
    const double h = height();
    p.setClipRect(QRect(m_a->gutterWidth(), 0, width() - m_a->gutterWidth(), height()));
    for (const DiffLink& l : m_links) {
        p.setPen(QPen(l.colour, l.focus ? 3.0 : 1.0));
        QPainterPath path(QPointF(l.xA, 0));
        path.cubicTo(QPointF(l.xA, h / 2), QPointF(l.xB, h / 2), QPointF(l.xB, h));
        p.drawPath(path);
    }
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(160, 90, 200));
    for (const DiffMark& m : m_marks) {
        const double y = m.inB ? h : 0, d = m.inB ? -7 : 7;
        const QPointF tri[3] = {{m.x - 5, y}, {m.x + 5, y}, {m.x, y + d}};
        p.drawPolygon(tri, 3);
    }
    p.setClipping(false);
    p.setPen(QColor(110, 110, 110));
    p.drawText(QRect(4, 0, m_a->gutterWidth() - 8, height()), Qt::AlignVCenter | Qt::AlignLeft,
               tr("A ↕ B: %1 pairs in view").arg(m_links.size()));
}
