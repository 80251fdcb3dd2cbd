#include "views/timeline/timeline_canvas.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QSettings>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "views/common/units_text.h"

using namespace ts::timeline;

TimelineCanvas::TimelineCanvas(QWidget* parent)
    : QWidget(parent), m_scroll(new QScrollBar(Qt::Vertical, this)) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);  // hover tooltips
    setMinimumSize(300, 100);
    setAttribute(Qt::WA_OpaquePaintEvent);
    m_gutter = std::max(kMinGutter, QSettings().value("timeline/gutterWidth", 220).toInt());
    m_frame.gutter = m_gutter;
    m_frame.colors = TimelineColors::fromPalette(palette());
    connect(m_scroll, &QScrollBar::valueChanged, this, [this](int v) {
        m_frame.scrollY = v;
        update();
    });
}

void TimelineCanvas::setModel(std::shared_ptr<const TimelineModel> model) {
    m_model = std::move(model);
    m_search.reset();
    m_collapsed.clear();
    m_frame = TimelineFrame{};
    m_frame.allFlows = m_showAllFlows;
    m_frame.gutter = m_gutter;
    m_frame.colors = TimelineColors::fromPalette(palette());
    if (m_model) m_axis.reset(m_model->startNs, m_model->endNs, plotWidth());
    relayout();
    update();
}

int TimelineCanvas::plotWidth() const {
    return std::max(1, width() - m_frame.gutter - m_scroll->sizeHint().width());
}

void TimelineCanvas::relayout() {
    if (m_model)
        m_layout.build(*m_model, m_collapsed);
    else
        m_layout = TimelineLayout{};
    m_frame.model = m_model.get();
    m_frame.layout = &m_layout;
    m_frame.axis = &m_axis;
    m_frame.collapsed = &m_collapsed;
    m_frame.search = m_search.get();
    const int visible = height() - m_frame.rulerHeight;
    m_scroll->setRange(0, std::max(0, m_layout.totalHeight() - visible));
    m_scroll->setPageStep(std::max(1, visible));
    m_scroll->setSingleStep(TimelineLayout::kLevelHeight);
    setScroll(m_scroll->value());
}

void TimelineCanvas::setScroll(int y) {
    m_scroll->setValue(std::clamp(y, 0, m_scroll->maximum()));
    m_frame.scrollY = m_scroll->value();
}

void TimelineCanvas::render(QPainter& p, const QSize& size) {
    m_painter.paint(p, QSize(size.width() - m_scroll->sizeHint().width(), size.height()), m_frame);
}

void TimelineCanvas::paintEvent(QPaintEvent*) {
    QPainter p(this);
    QSize size = this->size();
    size.setWidth(size.width() - m_scroll->sizeHint().width());
    if (!m_model) {
        p.fillRect(rect(), palette().window());
        return;  // the view shows what to do instead (an empty-state panel)
    }
    // Drawn into an image first (slice fills go straight into its scanlines), then shown.
    const qreal dpr = devicePixelRatioF();
    const QSize pixels = (QSizeF(size) * dpr).toSize();
    if (m_buffer.size() != pixels) m_buffer = QImage(pixels, QImage::Format_RGB32);
    m_buffer.setDevicePixelRatio(dpr);
    {
        QPainter ip(&m_buffer);
        ip.setFont(font());
        m_painter.paint(ip, size, m_frame);
    }
    p.drawImage(QPoint(0, 0), m_buffer);
    p.fillRect(QRect(size.width(), 0, width() - size.width(), m_frame.rulerHeight),
               m_frame.colors.ruler);
}

void TimelineCanvas::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange) {
        m_frame.colors = TimelineColors::fromPalette(palette());
        update();
    }
    QWidget::changeEvent(e);
}

void TimelineCanvas::setGutterWidth(int px) {
    m_gutter = std::clamp(px, kMinGutter, std::max(kMinGutter, width() / 2));
    m_frame.gutter = m_gutter;
    m_axis.setWidth(plotWidth());
    update();
}

bool TimelineCanvas::nearGutterEdge(const QPoint& pos) const {
    return pos.y() >= m_frame.rulerHeight && std::abs(pos.x() - m_frame.gutter) <= 4;
}

QString TimelineCanvas::hoverText(const QPoint& pos) const {
    if (!m_model || pos.y() < m_frame.rulerHeight) return {};
    const auto hit = m_layout.hitAt(pos.y() - m_frame.rulerHeight + m_frame.scrollY);
    if (pos.x() < m_frame.gutter) {
        // Track and process names are elided in the gutter: the whole name on hover.
        if (hit.header && hit.group >= 0) {
            const TrackGroup& g = m_model->groups[static_cast<size_t>(hit.group)];
            QString text = QString::fromStdString(g.title);
            if (!g.alignment.empty())
                text +=
                    QStringLiteral("\n") + tr("Clock: %1").arg(QString::fromStdString(g.alignment));
            return text;
        }
        if (hit.track >= 0) return QString::fromStdString(m_model->tracks[hit.track].name);
        return {};
    }
    if (hit.track >= 0 && !hit.header) {
        const TimelineTrack& t = m_model->tracks[static_cast<size_t>(hit.track)];
        const CounterSeries& c = t.counter;
        if (!c.ts.empty()) {
            const auto at = static_cast<int64_t>(timeAtX(pos.x()));
            auto it = std::upper_bound(c.ts.begin(), c.ts.end(), at);
            if (it == c.ts.begin())
                return tr("%1: no value before this time").arg(QString::fromStdString(t.name));
            const size_t i = static_cast<size_t>(it - c.ts.begin()) - 1;
            return tr("%1: %2\nat %3 (range %4 to %5)")
                .arg(QString::fromStdString(t.name), numberText(c.value[i], 6),
                     durationText(static_cast<double>(c.ts[i] - m_model->startNs), 6),
                     numberText(c.min), numberText(c.max));
        }
    }
    const SliceRef ref = sliceAt(pos);
    if (!ref.valid()) return {};
    return QStringLiteral("%1\n%2").arg(QString::fromStdString(m_model->name(ref)),
                                        durationText(static_cast<double>(m_model->dur(ref)), 5));
}

void TimelineCanvas::resizeEvent(QResizeEvent*) {
    m_scroll->setGeometry(width() - m_scroll->sizeHint().width(), m_frame.rulerHeight,
                          m_scroll->sizeHint().width(), height() - m_frame.rulerHeight);
    m_axis.setWidth(plotWidth());
    relayout();
}

SliceRef TimelineCanvas::sliceAt(const QPoint& pos) const {
    if (!m_model || pos.x() < m_frame.gutter || pos.y() < m_frame.rulerHeight) return {};
    const auto hit = m_layout.hitAt(pos.y() - m_frame.rulerHeight + m_frame.scrollY);
    if (hit.header || hit.level < 0) return {};
    return hitTest(*m_model, hit.track, hit.level, timeAtX(pos.x()), 2 * m_axis.nsPerPixel());
}

void TimelineCanvas::selectSlice(const SliceRef& ref, bool notify) {
    m_frame.selected = ref;
    update();
    if (notify) emit sliceClicked(ref);
}

void TimelineCanvas::setSearch(std::shared_ptr<const SearchResults> results) {
    m_search = std::move(results);
    m_frame.search = m_search.get();
    update();
}

void TimelineCanvas::setCurrentMatch(const SliceRef& ref) {
    m_frame.currentMatch = ref;
    update();
}

void TimelineCanvas::zoomTo(double a, double b) {
    if (!m_model) return;
    m_axis.showRange(a, b, 0.05);
    update();
    emit viewChanged();
}

void TimelineCanvas::setTimeWindow(double a, double b) {
    if (!m_model) return;
    m_axis.showRange(a, b, 0.0);
    update();
}

void TimelineCanvas::showAll() {
    if (!m_model) return;
    m_axis.showAll();
    update();
    emit viewChanged();
}

void TimelineCanvas::frameSelection() {
    if (!m_model || !m_frame.selected.valid()) return;
    const double a = static_cast<double>(m_model->ts(m_frame.selected));
    zoomTo(a, a + std::max<double>(static_cast<double>(m_model->dur(m_frame.selected)), 1.0));
    revealTrack(m_frame.selected.track);
}

void TimelineCanvas::revealTrack(int track) {
    if (!m_model) return;
    const int y = m_layout.levelY(track, 0);
    if (y < 0) {
        for (size_t g = 0; g < m_model->groups.size(); ++g) {
            const auto& ts = m_model->groups[g].tracks;
            if (std::find(ts.begin(), ts.end(), track) != ts.end())
                m_collapsed.erase(static_cast<int>(g));
        }
        relayout();
    }
    const int ty = m_layout.levelY(
        track,
        m_frame.selected.valid() && m_frame.selected.track == track ? m_frame.selected.level : 0);
    const int visible = height() - m_frame.rulerHeight;
    if (ty < m_frame.scrollY || ty + TimelineLayout::kLevelHeight > m_frame.scrollY + visible)
        setScroll(ty - visible / 3);
    update();
}

void TimelineCanvas::selectArea(const std::vector<int>& tracks, double t0, double t1) {
    m_frame.hasArea = true;
    m_frame.areaTracks = tracks;
    m_frame.areaStart = std::min(t0, t1);
    m_frame.areaEnd = std::max(t0, t1);
    update();
    emit areaSelected(tracks, m_frame.areaStart, m_frame.areaEnd);
}

void TimelineCanvas::clearArea() {
    if (!m_frame.hasArea) return;
    m_frame.hasArea = false;
    m_frame.areaTracks.clear();
    update();
    emit areaCleared();
}

bool TimelineCanvas::zoomToArea() {
    if (!m_frame.hasArea) return false;
    zoomTo(m_frame.areaStart, m_frame.areaEnd);
    return true;
}

void TimelineCanvas::toggleGroup(int group) {
    if (!m_collapsed.erase(group)) m_collapsed.insert(group);
    relayout();
    update();
}

void TimelineCanvas::setShowAllFlows(bool all) {
    m_showAllFlows = all;
    m_frame.allFlows = all;
    update();
}

void TimelineCanvas::wheelEvent(QWheelEvent* e) {
    if (!m_model) return;
    const double steps = e->angleDelta().y() / 120.0;
    if (e->modifiers() & Qt::ShiftModifier) {
        setScroll(m_frame.scrollY - static_cast<int>(steps * 3 * TimelineLayout::kLevelHeight));
    } else if (e->modifiers() & Qt::AltModifier) {
        const double dx = (e->angleDelta().x() ? e->angleDelta().x() : e->angleDelta().y()) / 120.0;
        m_axis.panPixels(-dx * m_axis.width() / 10);
    } else {
        m_axis.zoomAt(e->position().x() - m_frame.gutter, std::pow(1.25, steps));
    }
    update();
    emit viewChanged();
    e->accept();
}

void TimelineCanvas::mousePressEvent(QMouseEvent* e) {
    m_resizing = e->button() == Qt::LeftButton && nearGutterEdge(e->pos());
    if (m_resizing) return;  // dragging the name column's edge: never a pan
    m_pressPos = m_lastPos = e->pos();
    m_pressed = e->button() == Qt::LeftButton;
    m_boxing = m_pressed && (e->modifiers() & Qt::ShiftModifier);
    m_moved = false;
    setFocus();
}

void TimelineCanvas::mouseMoveEvent(QMouseEvent* e) {
    if (m_resizing) {
        setGutterWidth(e->pos().x());
        return;
    }
    setCursor(nearGutterEdge(e->pos()) ? Qt::SplitHCursor : Qt::ArrowCursor);
    if (!m_model) return;
    if (!m_pressed) {
        const QString text = hoverText(e->pos());
        if (text.isEmpty()) return QToolTip::hideText();
        QToolTip::showText(e->globalPosition().toPoint(), text, this);
        return;
    }
    if ((e->pos() - m_pressPos).manhattanLength() > 3) m_moved = true;
    if (!m_moved) return;
    if (m_boxing) {
        const int y0 = m_pressPos.y() - m_frame.rulerHeight + m_frame.scrollY;
        const int y1 = e->pos().y() - m_frame.rulerHeight + m_frame.scrollY;
        m_frame.hasArea = true;
        m_frame.areaTracks = m_layout.tracksBetween(y0, y1);
        m_frame.areaStart = std::min(timeAtX(m_pressPos.x()), timeAtX(e->pos().x()));
        m_frame.areaEnd = std::max(timeAtX(m_pressPos.x()), timeAtX(e->pos().x()));
    } else {
        const QPoint d = e->pos() - m_lastPos;
        m_axis.panPixels(-d.x());
        setScroll(m_frame.scrollY - d.y());
        emit viewChanged();
    }
    m_lastPos = e->pos();
    update();
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent* e) {
    if (m_resizing) {
        m_resizing = false;
        QSettings().setValue("timeline/gutterWidth", m_gutter);
        return;
    }
    if (!m_pressed || !m_model) return;
    m_pressed = false;
    if (m_boxing && m_moved) {
        selectArea(m_frame.areaTracks, m_frame.areaStart, m_frame.areaEnd);
        return;
    }
    if (m_moved) return;
    const auto hit = m_layout.hitAt(e->pos().y() - m_frame.rulerHeight + m_frame.scrollY);
    if (e->pos().y() >= m_frame.rulerHeight && hit.header) {
        toggleGroup(hit.group);
        return;
    }
    clearArea();
    selectSlice(sliceAt(e->pos()), true);
}

void TimelineCanvas::keyPressEvent(QKeyEvent* e) {
    if (!m_model) return QWidget::keyPressEvent(e);
    const QPoint local = mapFromGlobal(QCursor::pos());
    const double x = rect().contains(local) && local.x() > m_frame.gutter
                         ? local.x() - m_frame.gutter
                         : m_axis.width() / 2;
    switch (e->key()) {
        case Qt::Key_W:
            m_axis.zoomAt(x, 1.5);
            break;
        case Qt::Key_S:
            m_axis.zoomAt(x, 1 / 1.5);
            break;
        case Qt::Key_A:
            m_axis.panPixels(-m_axis.width() / 8);
            break;
        case Qt::Key_D:
            m_axis.panPixels(m_axis.width() / 8);
            break;
        case Qt::Key_F:
            frameSelection();
            break;
        case Qt::Key_Z:
            zoomToArea();
            break;
        case Qt::Key_0:
        case Qt::Key_Home:
            showAll();
            break;
        case Qt::Key_Escape:
            clearArea();
            selectSlice({}, true);
            emit escaped();
            break;
        default:
            return QWidget::keyPressEvent(e);
    }
    update();
    emit viewChanged();
}
