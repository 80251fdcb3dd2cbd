#pragma once
// TimelinePainter: draws one frame of the timeline with QPainter (widget or QImage): time
// ruler, group headers, slices by level with level-of-detail blocks, labels inside slices
// wide enough, instants as markers, counters as step charts, flow arrows, search matches,
// the selected slice and the area selection. Cost per frame depends on the pixels, not on
// the number of events (see ts::timeline::levelItems).
#include <QColor>
#include <QFontMetrics>
#include <QPainter>
#include <QString>
#include <set>
#include <vector>

#include "core/timeline/time_axis.h"
#include "core/timeline/timeline_query.h"
#include "views/timeline/timeline_layout.h"

struct TimelineFrame {
    const ts::timeline::TimelineModel* model = nullptr;
    const TimelineLayout* layout = nullptr;
    const ts::timeline::TimeAxis* axis = nullptr;
    const std::set<int>* collapsed = nullptr;
    int scrollY = 0;
    int gutter = 220;      // width of the track-name column
    int rulerHeight = 26;  // height of the time ruler
    ts::timeline::SliceRef selected;
    const ts::timeline::SearchResults* search = nullptr;
    ts::timeline::SliceRef currentMatch;
    /// Draw every flow in view (else only those of the selection once more than
    /// kMaxBackgroundFlows are in view).
    bool allFlows = false;
    bool hasArea = false;
    std::vector<int> areaTracks;
    double areaStart = 0, areaEnd = 0;
};

class TimelinePainter {
public:
    /// Up to this many flows in view are all drawn (grey); beyond, only the selection's (red).
    static constexpr size_t kMaxBackgroundFlows = 300;
    /// Draws the frame into a surface of `size` pixels.
    void paint(QPainter& p, const QSize& size, const TimelineFrame& f);
    /// Stable colour of a slice name (hash of its text, so it is the same in every session).
    QColor colorOf(const ts::timeline::TimelineModel& m, uint32_t nameId);
    /// Items (slices and blocks) drawn by the last paint().
    size_t itemsDrawn() const { return m_itemsDrawn; }

private:
    void paintTrack(QPainter& p, const QSize& size, const TimelineFrame& f,
                    const TimelineLayout::Row& row, int top);
    void paintCounter(QPainter& p, const QSize& size, const TimelineFrame& f,
                      const ts::timeline::TimelineTrack& t, int top, int height);
    void paintFlows(QPainter& p, const QSize& size, const TimelineFrame& f);
    void paintRuler(QPainter& p, const QSize& size, const TimelineFrame& f);
    void paintGutter(QPainter& p, const QSize& size, const TimelineFrame& f);

    /// A slice name as drawn, and its width in the current font (-1: not measured yet).
    struct Label {
        QString text;
        int width = -1;
    };
    /// Cached per name id: converting and measuring thousands of labels per frame is what a
    /// frame would otherwise spend its time on.
    const Label& labelOf(const ts::timeline::TimelineModel& m, uint32_t id, const QFontMetrics& fm);

    const ts::timeline::TimelineModel* m_colorModel = nullptr;
    const ts::timeline::TimelineModel* m_labelModel = nullptr;
    int m_labelFont = 0;
    std::vector<Label> m_labels;
    std::vector<QRgb> m_colors;  // by name id; 0 = not computed yet
    std::vector<ts::timeline::DrawItem> m_items;
    size_t m_itemsDrawn = 0;
};
