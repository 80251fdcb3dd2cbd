#pragma once
// SnapshotTimelineWidget: memory_viz's "Active Memory Timeline" of one device — each
// allocation a band stacked on the ones before it, dropping when one below it is freed (the
// largest 2,000 drawn, the rest summed in one grey band on top), over the trace's events;
// the reserved (segment) bytes as a line, the peak marked, leaked allocations in red. Wheel
// zooms the time axis, dragging pans, hovering names the allocation under the cursor
// (hovered()). Painting only: the layout comes from core/memory (stackedLayout).
#include <QWidget>
#include <memory>

#include "views/memory/snapshot_data.h"

class SnapshotTimelineWidget : public QWidget {
    Q_OBJECT
public:
    explicit SnapshotTimelineWidget(QWidget* parent = nullptr);
    void setData(std::shared_ptr<const SnapshotData> data, size_t device);
    /// The allocation drawn at a point of the widget (index into the device's allocations),
    /// -1 for none (the summed band or empty space).
    int64_t allocationAt(QPointF pos) const;
    /// Shows [x0, x1) of the x domain (event index + 1).
    void setRange(double x0, double x1);
    double rangeStart() const { return m_x0; }
    double rangeEnd() const { return m_x1; }
    QSize sizeHint() const override { return {900, 380}; }

signals:
    void hovered(qint64 allocation);  // -1: nothing under the cursor
    void clicked(qint64 allocation);

protected:
    void paintEvent(QPaintEvent*) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent*) override;

private:
    QRectF plotRect() const;
    double toPx(double x) const;
    double toX(double px) const;
    double toPy(double bytes) const;
    QString xLabel(double x) const;

    std::shared_ptr<const SnapshotData> m_data;
    size_t m_device = 0;
    double m_x0 = 0, m_x1 = 1;
    double m_yMax = 1;
    bool m_dragging = false;
    double m_dragX = 0;
    bool m_moved = false;
    int64_t m_hover = -1;
};
