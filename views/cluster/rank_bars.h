#pragma once
// RankBars: per-rank bars beside the heatmap, one row per rank lined up with its heatmap row
// (same viewport, same top and bottom margins): compute, wait (communication compute does
// not hide) and idle, ms per step (means), stacked so a bar is the rank's mean step time.
// Where several ranks share a pixel row the one with the longest mean step is drawn. Wheel
// zooms the ranks; a click selects a rank (rankClicked).
#include <QWidget>
#include <memory>

#include "views/cluster/heatmap_viewport.h"

namespace ts::analysis {
struct ClusterSummary;
}

class RankBars : public QWidget {
    Q_OBJECT
public:
    RankBars(HeatmapViewport* viewport, QWidget* parent = nullptr);
    void setSummary(std::shared_ptr<const ts::analysis::ClusterSummary> summary);
    void setSelectedRow(int row);
    void render(QPainter& p, const QSize& size);
    /// The rank row drawn at widget y, -1 when none.
    int rowAt(int y) const;
    QString rowToolTip(int row) const;

    static const QColor kCompute, kWait, kIdle;

signals:
    void rankClicked(int row);
    void viewportMoved();

protected:
    void paintEvent(QPaintEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;

private:
    HeatmapViewport* m_vp;
    std::shared_ptr<const ts::analysis::ClusterSummary> m_summary;
    int m_selected = -1;
};
