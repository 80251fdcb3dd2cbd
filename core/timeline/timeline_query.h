#pragma once
// Frame queries over a TimelineModel: level-of-detail items for the visible window,
// hit-testing, search by name, and aggregation over a selection (Perfetto's area selection).
// All functions are read-only on the model and safe to call from any thread.
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/job_control.h"
#include "core/common/result.h"
#include "core/timeline/timeline_model.h"

namespace ts::timeline {

/// One thing to draw on a level: a slice (count == 1) or a block of `count` consecutive
/// slices [first, first + count) merged because each is narrower than a pixel.
/// [start, end] is the union of the covered slices.
struct DrawItem {
    int64_t start = 0, end = 0;
    int64_t first = 0, count = 1;
    uint32_t name = 0;  // name of the slice (of the first slice for a block)
};

/// Items of `level` that intersect [t0, t1] when one pixel is `nsPerPixel` wide. Slices
/// of at least one pixel come one by one; a run of narrower slices, each starting less than
/// a pixel after the previous one ends, merges into one block. The first visible slice is
/// found by binary search and runs skip whole blocks of the level's summary (buildSummary;
/// without one every slice of a run is visited), so the cost follows the pixels, not the
/// number of slices. Appends to `out`.
void levelItems(const SliceLevel& level, double t0, double t1, double nsPerPixel,
                std::vector<DrawItem>& out);

/// The slice of track/level under time t, or the nearest one within `toleranceNs`
/// (invalid SliceRef when none).
SliceRef hitTest(const TimelineModel& m, int track, int level, double t, double toleranceNs);

/// Search results: every slice whose name matches, in start order.
struct SearchResults {
    std::vector<SliceRef> matches;
    std::vector<uint8_t> nameMatches;  // by string id: 1 when that name matches
    bool matchesName(uint32_t id) const { return id < nameMatches.size() && nameMatches[id]; }
};

/// Finds slices by name: case-insensitive substring, or an ECMAScript regex when `regex`
/// (an invalid regex is an error). An empty pattern matches nothing.
Result<SearchResults> searchSlices(const TimelineModel& m, const std::string& pattern, bool regex,
                                   JobControl* job = nullptr);

/// Index in `matches` of the first match starting after `t` (wraps to 0), or -1 if empty.
int64_t nextMatch(const TimelineModel& m, const SearchResults& r, int64_t t);
/// Index of the last match starting before `t` (wraps to the last), or -1 if empty.
int64_t previousMatch(const TimelineModel& m, const SearchResults& r, int64_t t);

/// One line of a selection's aggregate, per slice name.
struct AggregateRow {
    uint32_t name = 0;
    int64_t count = 0, total = 0, self = 0, min = 0, max = 0;
    double avg() const { return count ? static_cast<double>(total) / count : 0.0; }
};

/// Aggregates the slices of `tracks` (indexes into m.tracks) that intersect [t0, t1]:
/// per name count, total, self (minus direct children on the same track), avg, min, max,
/// with whole durations (not clipped). Rows sorted by total, descending.
std::vector<AggregateRow> aggregateSelection(const TimelineModel& m, const std::vector<int>& tracks,
                                             int64_t t0, int64_t t1);

}  // namespace ts::timeline
