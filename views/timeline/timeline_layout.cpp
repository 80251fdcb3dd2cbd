#include "views/timeline/timeline_layout.h"

#include <algorithm>

using ts::timeline::TimelineModel;
using ts::timeline::TrackKind;

void TimelineLayout::build(const TimelineModel& m, const std::set<int>& collapsed) {
    m_rows.clear();
    m_rowOfTrack.assign(m.tracks.size(), -1);
    m_levels.assign(m.tracks.size(), 0);
    int y = 0;
    for (int g = 0; g < static_cast<int>(m.groups.size()); ++g) {
        m_rows.push_back({true, g, -1, y, kHeaderHeight});
        y += kHeaderHeight;
        if (collapsed.count(g)) continue;
        for (int t : m.groups[g].tracks) {
            const auto& track = m.tracks[t];
            const int levels = static_cast<int>(track.levels.size());
            m_levels[t] = levels;
            int h = levels * kLevelHeight;
            if (track.kind == TrackKind::Counter || !track.counter.ts.empty())
                h = std::max(h, kCounterHeight);
            if (h == 0) h = kEmptyTrackHeight;  // instants only, or empty
            m_rowOfTrack[t] = static_cast<int>(m_rows.size());
            m_rows.push_back({false, g, t, y, h + kTrackGap});
            y += h + kTrackGap;
        }
    }
    m_total = y;
}

std::pair<size_t, size_t> TimelineLayout::rowsIn(int y0, int y1) const {
    auto first = std::upper_bound(m_rows.begin(), m_rows.end(), y0,
                                  [](int v, const Row& r) { return v < r.y + r.height; });
    auto last =
        std::lower_bound(first, m_rows.end(), y1, [](const Row& r, int v) { return r.y < v; });
    return {static_cast<size_t>(first - m_rows.begin()),
            static_cast<size_t>(last - m_rows.begin())};
}

TimelineLayout::Hit TimelineLayout::hitAt(int y) const {
    Hit h;
    auto [a, b] = rowsIn(y, y + 1);
    if (a >= b) return h;
    const Row& r = m_rows[a];
    h.row = static_cast<int>(a);
    h.group = r.group;
    h.header = r.header;
    h.track = r.track;
    if (!r.header) {
        const int level = (y - r.y) / kLevelHeight;
        if (level >= 0 && level < m_levels[r.track]) h.level = level;
    }
    return h;
}

int TimelineLayout::levelY(int track, int level) const {
    if (track < 0 || track >= static_cast<int>(m_rowOfTrack.size())) return -1;
    const int row = m_rowOfTrack[track];
    return row < 0 ? -1 : m_rows[row].y + level * kLevelHeight;
}

std::vector<int> TimelineLayout::tracksBetween(int y0, int y1) const {
    std::vector<int> out;
    auto [a, b] = rowsIn(std::min(y0, y1), std::max(y0, y1) + 1);
    for (size_t i = a; i < b; ++i)
        if (!m_rows[i].header) out.push_back(m_rows[i].track);
    return out;
}
