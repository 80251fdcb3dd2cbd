#pragma once
// ClusterHeatmap: the rank x step heatmap of the Cluster view — ranks down, steps across,
// one metric per cell (step time by default), drawn from a picture rebuilt only when the
// zoom, the size or the metric changes (heatmap_image.h). Rank and step ticks, red marks in
// the margins beside the rows and columns that hold a straggler (red outlines around the
// cells once they are 4 px or more, a ring of 7 px below), a colour bar. Wheel zooms at the cursor
// (Shift: steps only, Ctrl: ranks only), drag pans, double-click or Home shows all; hovering shows
// the cell's figures; a click emits cellClicked.
#include <QWidget>
#include <memory>

#include "core/analysis/cluster/cluster_matrix.h"
#include "views/cluster/heatmap_image.h"
#include "views/cluster/heatmap_viewport.h"

namespace ts::analysis {
struct ClusterSummary;
}

class ClusterHeatmap : public QWidget {
    Q_OBJECT
public:
    /// Plot margins (pixels): the per-rank bars use the same top and bottom so rows align.
    static constexpr int kLeft = 64, kTop = 10, kRight = 84, kBottom = 40;
    /// Straggler cells get a red outline or ring up to this many stragglers (beyond, the
    /// margin marks alone: rings would cover the picture).
    static constexpr size_t kMaxRings = 20'000;

    ClusterHeatmap(HeatmapViewport* viewport, QWidget* parent = nullptr);

    void setData(std::shared_ptr<const ts::analysis::ClusterSummary> summary,
                 std::shared_ptr<const ts::analysis::ClusterMatrix> matrix);
    void setMetric(ts::analysis::CellMetric metric);
    ts::analysis::CellMetric metric() const { return m_metric; }
    /// The viewport changed elsewhere (the bars zoomed): repaint.
    void viewportChanged();
    /// Draws a frame at `size` (the widget's paint, also for benchmarks and screenshots).
    void render(QPainter& p, const QSize& size);
    /// The figures of a cell as rich text (its tooltip).
    QString cellToolTip(size_t row, size_t col) const;
    QRect plotRect(const QSize& size) const;

signals:
    void cellClicked(int row, int col);
    void viewportMoved();

protected:
    void paintEvent(QPaintEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    void leaveEvent(QEvent*) override;

private:
    void drawAxes(QPainter& p, const QRect& plot);
    void drawColourBar(QPainter& p, const QRect& plot);
    void drawStragglers(QPainter& p, const QRect& plot);

    HeatmapViewport* m_vp;
    std::shared_ptr<const ts::analysis::ClusterSummary> m_summary;
    std::shared_ptr<const ts::analysis::ClusterMatrix> m_matrix;
    ts::analysis::CellMetric m_metric = ts::analysis::CellMetric::StepTime;
    HeatmapPicture m_picture;
    bool m_stale = true;
    QPoint m_press, m_last;
    bool m_dragged = false;
    int m_hoverRow = -1, m_hoverCol = -1;
};
