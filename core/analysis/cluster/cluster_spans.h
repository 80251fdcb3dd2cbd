#pragma once
// Time spans for the cluster view's figures: unions of busy intervals, their intersection
// and difference, and how much of a union falls inside a window (a step), answered with a
// binary search and prefix sums. Times are ns; a span is [begin, end). No Qt.
#include <cstdint>
#include <vector>

namespace ts::analysis {

struct Span {
    int64_t begin = 0, end = 0;
};

/// A sorted list of disjoint, non-empty spans.
class SpanSet {
public:
    SpanSet() = default;
    /// The union of `spans` (any order, overlaps and empty spans allowed).
    /// Spans already sorted by begin (a track's slices) are not sorted again.
    static SpanSet unionOf(std::vector<Span> spans);
    /// Spans of `a` not covered by `b`.
    static SpanSet subtract(const SpanSet& a, const SpanSet& b);
    static SpanSet intersect(const SpanSet& a, const SpanSet& b);
    static SpanSet unite(const SpanSet& a, const SpanSet& b);

    const std::vector<Span>& spans() const { return m_spans; }
    bool empty() const { return m_spans.empty(); }
    int64_t total() const { return m_prefix.empty() ? 0 : m_prefix.back(); }
    /// Length of the set inside [begin, end).
    int64_t within(int64_t begin, int64_t end) const;

private:
    explicit SpanSet(std::vector<Span> sortedDisjoint);
    std::vector<Span> m_spans;
    std::vector<int64_t> m_prefix;  // m_prefix[i] = total length of spans [0, i]
};

}  // namespace ts::analysis
