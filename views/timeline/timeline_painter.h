#pragma once
// TimelinePainter: draws one frame of the timeline with QPainter (widget or QImage): time
// ruler, group headers, slices by level with level-of-detail blocks, labels inside slices
// wide enough, instants as markers, counters as step charts, flow arrows, search matches,
// the selected slice and the area selection. Cost per frame depends on the pixels, not on
// the number of events (see ts::timeline::levelItems).
#include <QColor>
#include <QFontMetrics>
#include <QPainter>
#include <QPalette>
#include <QString>
#include <set>
#include <vector>

#include "core/timeline/time_axis.h"
#include "core/timeline/timeline_query.h"
#include "views/timeline/timeline_layout.h"

/// The colours of a frame, from the widget's palette: light or dark with the studio's theme.
struct TimelineColors {
    QColor background{0xfa, 0xfa, 0xfa}, grid{0xe4, 0xe4, 0xe4}, header{0xe9, 0xec, 0xf1};
    QColor gutter{0xf4, 0xf5, 0xf7}, gutterHeader{0xdd, 0xe2, 0xea}, rowLine{0xe0, 0xe0, 0xe0};
    QColor ruler{0xf0, 0xf0, 0xf0}, rulerLine{0x90, 0x90, 0x90}, border{0xb0, 0xb0, 0xb0};
    QColor text{Qt::black}, dimText{0x60, 0x60, 0x60}, flow{40, 40, 40, 150};
    QColor block{0x9a, 0xa3, 0xb0}, selection{Qt::black}, match{255, 200, 0};
    /// Light colours for a light palette (lightness of its window colour), dark for a dark one.
    static TimelineColors fromPalette(const QPalette& p);
};

struct TimelineFrame {
    const ts::timeline::TimelineModel* model = nullptr;
    const TimelineLayout* layout = nullptr;
    const ts::timeline::TimeAxis* axis = nullptr;
    const std::set<int>* collapsed = nullptr;
    int scrollY = 0;
    int gutter = 220;      // width of the track-name column (the user drags its edge)
    int rulerHeight = 34;  // height of the time ruler: relative ticks, absolute time below
    TimelineColors colors;
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
    /// A track or process name as the name column shows it: elided in the middle, so the end
    /// that tells tracks apart ("… · GPU 0", "stream 7") stays.
    static QString elideName(const QFontMetrics& fm, const QString& name, int width) {
        return fm.elidedText(name, Qt::ElideMiddle, width);
    }
    /// Where the view starts, as an absolute time: "from 2026-10-02 14:03:22.123456" for
    /// traces in Unix time, else the recorded clock's reading.
    static QString absoluteTimeText(const TimelineFrame& f);
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
    /// Search matches as marks on their rows and ticks on the ruler, so they show when
    /// zoomed out (where a match is folded into a block of many slices).
    void paintSearchMarks(QPainter& p, const QSize& size, const TimelineFrame& f);
    /// The matches as ticks along the bottom of the ruler.
    void paintMatchTicks(QPainter& p, const QSize& size, const TimelineFrame& f);

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
