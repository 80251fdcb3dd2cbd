#pragma once
// Time intervals [start, end) in nanoseconds and the few operations the GPU analyses share:
// merge overlapping ones, intersect and subtract sorted lists, sum their lengths. The
// TensorBoard profiler plugin (range_utils.py) and HTA (merge_kernel_intervals) both build
// their figures from these; merging joins intervals that touch (start <= previous end), as
// both of them do. No Qt.
#include <cstdint>
#include <vector>

namespace ts::analysis::gpu {

struct Interval {
    int64_t start = 0, end = 0;
    int64_t length() const { return end - start; }
};
using Intervals = std::vector<Interval>;

/// Sorted by start, overlapping and touching intervals joined; empty ones dropped.
Intervals mergeIntervals(Intervals v);
/// Both sorted and merged: the parts that lie in both.
Intervals intersectIntervals(const Intervals& a, const Intervals& b);
/// Both sorted and merged: the parts of `a` outside `b`.
Intervals subtractIntervals(const Intervals& a, const Intervals& b);
/// Total length.
int64_t sumIntervals(const Intervals& v);
/// Length of the parts of merged `v` inside [start, end).
int64_t sumWithin(const Intervals& v, int64_t start, int64_t end);

}  // namespace ts::analysis::gpu
