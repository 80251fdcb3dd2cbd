#include "core/analysis/gpu/intervals.h"

#include <algorithm>

namespace ts::analysis::gpu {

Intervals mergeIntervals(Intervals v) {
    std::sort(v.begin(), v.end(),
              [](const Interval& a, const Interval& b) { return a.start < b.start; });
    Intervals out;
    for (const Interval& i : v) {
        if (i.end <= i.start) continue;
        if (!out.empty() && i.start <= out.back().end)
            out.back().end = std::max(out.back().end, i.end);
        else
            out.push_back(i);
    }
    return out;
}

Intervals intersectIntervals(const Intervals& a, const Intervals& b) {
    Intervals out;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const int64_t lo = std::max(a[i].start, b[j].start);
        const int64_t hi = std::min(a[i].end, b[j].end);
        if (hi > lo) out.push_back({lo, hi});
        if (a[i].end < b[j].end)
            ++i;
        else
            ++j;
    }
    return out;
}

Intervals subtractIntervals(const Intervals& a, const Intervals& b) {
    Intervals out;
    size_t j = 0;
    for (const Interval& x : a) {
        int64_t cur = x.start;
        while (j < b.size() && b[j].end <= cur) ++j;
        size_t k = j;
        while (k < b.size() && b[k].start < x.end) {
            if (b[k].start > cur) out.push_back({cur, b[k].start});
            cur = std::max(cur, b[k].end);
            if (cur >= x.end) break;
            ++k;
        }
        if (cur < x.end) out.push_back({cur, x.end});
    }
    return out;
}

int64_t sumIntervals(const Intervals& v) {
    int64_t s = 0;
    for (const Interval& i : v) s += i.length();
    return s;
}

int64_t sumWithin(const Intervals& v, int64_t start, int64_t end) {
    auto it = std::upper_bound(v.begin(), v.end(), start,
                               [](int64_t t, const Interval& i) { return t < i.end; });
    int64_t s = 0;
    for (; it != v.end() && it->start < end; ++it) {
        const int64_t lo = std::max(start, it->start), hi = std::min(end, it->end);
        if (hi > lo) s += hi - lo;
    }
    return s;
}

}  // namespace ts::analysis::gpu
