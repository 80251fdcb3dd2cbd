#pragma once
// TimelineLayout: where every group header and track sits vertically (content coordinates,
// before scrolling). Processes are collapsible groups; a slice track is one row per level,
// a counter track a fixed-height chart. A plain object: no widgets, tested alone.
#include <set>
#include <vector>

#include "core/timeline/timeline_model.h"

class TimelineLayout {
public:
    static constexpr int kHeaderHeight = 22;
    static constexpr int kLevelHeight = 18;
    static constexpr int kCounterHeight = 40;
    static constexpr int kEmptyTrackHeight = 14;
    static constexpr int kTrackGap = 3;

    struct Row {
        bool header = false;
        int group = -1;
        int track = -1;  // -1 for a header
        int y = 0;
        int height = 0;
    };
    struct Hit {
        int row = -1;
        int group = -1;
        int track = -1;
        int level = -1;  // slice level under y, -1 when none
        bool header = false;
    };

    /// Lays out `m` with the groups in `collapsed` (indexes into m.groups) folded.
    void build(const ts::timeline::TimelineModel& m, const std::set<int>& collapsed);

    const std::vector<Row>& rows() const { return m_rows; }
    int totalHeight() const { return m_total; }
    /// What is at content y.
    Hit hitAt(int y) const;
    /// Content y of the top of track's level (-1 when the track is hidden or absent).
    int levelY(int track, int level) const;
    /// Indexes of visible rows intersecting [y0, y1) (binary search).
    std::pair<size_t, size_t> rowsIn(int y0, int y1) const;
    /// Tracks (visible, not headers) whose rows intersect [y0, y1].
    std::vector<int> tracksBetween(int y0, int y1) const;

private:
    std::vector<Row> m_rows;
    std::vector<int> m_rowOfTrack;  // track -> row index, -1 when hidden
    std::vector<int> m_levels;      // track -> level count
    int m_total = 0;
};
