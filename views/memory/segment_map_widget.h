#pragma once
// SegmentMapWidget: memory_viz's "Allocator State History" picture of one moment — every
// segment (cudaMalloc'd memory) a bar, packed in rows as wide as the largest one, with its
// blocks coloured by allocation, the bytes lost to rounding in light red, blocks freed but
// waiting for another stream in red, free space white. Hovering tells what is under the
// cursor (hovered()).
#include <QWidget>
#include <memory>

#include "core/memory/allocator_state.h"
#include "views/memory/snapshot_data.h"

class SegmentMapWidget : public QWidget {
    Q_OBJECT
public:
    explicit SegmentMapWidget(QWidget* parent = nullptr);
    void setState(std::shared_ptr<const SnapshotData> data, ts::memory::AllocatorState state);
    const ts::memory::AllocatorState& state() const { return m_state; }
    /// What is at `pos`: a block's or a segment's description, "" for nothing.
    QString describeAt(QPointF pos) const;
    QSize sizeHint() const override { return {900, 300}; }

signals:
    void hovered(const QString& text);

protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void mouseMoveEvent(QMouseEvent* e) override;

private:
    struct Placed {
        size_t segment;
        QRectF rect;
    };
    void layout();

    std::shared_ptr<const SnapshotData> m_data;
    ts::memory::AllocatorState m_state;
    std::vector<Placed> m_placed;
    double m_scale = 1;  // px per byte
};
