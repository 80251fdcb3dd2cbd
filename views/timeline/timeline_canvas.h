#pragma once
// TimelineCanvas: the drawing surface of the timeline and its mouse/keyboard interaction.
// Wheel zooms at the cursor (Shift+wheel scrolls tracks, Alt+wheel pans), drag pans,
// Shift+drag selects an area (tracks x time), click selects a slice or folds a process,
// W/S zoom, A/D pan (like chrome://tracing), F frames the selected slice, Z zooms to the
// area selection, 0 shows everything, Esc clears the selection (and asks the view to clear
// its search). Hovering a slice shows its name and duration, hovering a counter its value
// there. The track-name column is as wide as the user drags its edge (kept in QSettings).
#include <QImage>
#include <QWidget>
#include <memory>
#include <set>

#include "core/timeline/time_axis.h"
#include "core/timeline/timeline_query.h"
#include "views/timeline/timeline_layout.h"
#include "views/timeline/timeline_painter.h"

class QScrollBar;

class TimelineCanvas : public QWidget {
    Q_OBJECT
public:
    explicit TimelineCanvas(QWidget* parent = nullptr);

    void setModel(std::shared_ptr<const ts::timeline::TimelineModel> model);
    const ts::timeline::TimelineModel* model() const { return m_model.get(); }
    const ts::timeline::TimeAxis& axis() const { return m_axis; }
    const TimelineLayout& layout() const { return m_layout; }
    int gutterWidth() const { return m_frame.gutter; }
    /// Sets the track-name column's width (clamped to [kMinGutter, half the widget]).
    void setGutterWidth(int px);
    static constexpr int kMinGutter = 100;
    /// The text the hover shows at `pos` ("" when nothing is there): a slice's name and
    /// duration, a counter's value at that time, a track's whole name.
    QString hoverText(const QPoint& pos) const;

    /// Selects a slice (invalid ref clears); emits sliceClicked only when `notify`.
    void selectSlice(const ts::timeline::SliceRef& ref, bool notify = false);
    ts::timeline::SliceRef selectedSlice() const { return m_frame.selected; }
    void setSearch(std::shared_ptr<const ts::timeline::SearchResults> results);
    void setCurrentMatch(const ts::timeline::SliceRef& ref);
    /// Shows [a, b] (ns); keeps a small margin.
    void zoomTo(double a, double b);
    /// Shows exactly [a, b] (ns, model time), no margin (views keeping two canvases on one
    /// time scale).
    void setTimeWindow(double a, double b);
    void showAll();
    /// Frames the selected slice (F).
    void frameSelection();
    /// Scrolls vertically so that track `track` is visible.
    void revealTrack(int track);
    /// Sets the area selection and emits areaSelected.
    void selectArea(const std::vector<int>& tracks, double t0, double t1);
    void clearArea();
    /// Zooms to the area selection (Z); returns false when there is none.
    bool zoomToArea();
    bool hasArea() const { return m_frame.hasArea; }
    void toggleGroup(int group);
    /// Draws every flow in view, not only the selection's when there are many.
    void setShowAllFlows(bool all);
    /// Draws the current frame into `p` as paintEvent does (benchmarks, screenshots).
    void render(QPainter& p, const QSize& size);

signals:
    void sliceClicked(const ts::timeline::SliceRef& ref);
    void areaSelected(const std::vector<int>& tracks, double t0, double t1);
    void areaCleared();
    /// The visible time window changed (zoom, pan, keys, zoomTo, showAll).
    void viewChanged();
    /// Esc was pressed on the canvas (the selection is cleared; the view clears its search).
    void escaped();

protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    void changeEvent(QEvent*) override;

private:
    void relayout();
    /// Width of the time axis: the widget minus the track names and the scroll bar.
    int plotWidth() const;
    void setScroll(int y);
    double timeAtX(double x) const { return m_axis.timeAt(x - m_frame.gutter); }
    ts::timeline::SliceRef sliceAt(const QPoint& pos) const;

    std::shared_ptr<const ts::timeline::TimelineModel> m_model;
    std::shared_ptr<const ts::timeline::SearchResults> m_search;
    ts::timeline::TimeAxis m_axis;
    TimelineLayout m_layout;
    TimelinePainter m_painter;
    TimelineFrame m_frame;
    std::set<int> m_collapsed;
    QScrollBar* m_scroll;
    QImage m_buffer;  // the frame, drawn by m_painter then shown by paintEvent
    QPoint m_pressPos, m_lastPos;
    bool m_pressed = false, m_boxing = false, m_moved = false, m_resizing = false;
    int m_gutter = 220;  // the track-name column's width, kept across models
    bool nearGutterEdge(const QPoint& pos) const;
    bool m_showAllFlows = false;
};
