#include "core/analysis/cluster/cluster_spans.h"

#include <algorithm>

namespace ts::analysis {

SpanSet::SpanSet(std::vector<Span> sortedDisjoint) : m_spans(std::move(sortedDisjoint)) {
    m_prefix.reserve(m_spans.size());
    int64_t sum = 0;
    for (const Span& s : m_spans) {
        sum += s.end - s.begin;
        m_prefix.push_back(sum);
    }
}

SpanSet SpanSet::unionOf(std::vector<Span> spans) {
    std::erase_if(spans, [](const Span& s) { return s.end <= s.begin; });
    const auto byBegin = [](const Span& a, const Span& b) { return a.begin < b.begin; };
    if (!std::is_sorted(spans.begin(), spans.end(), byBegin))
        std::sort(spans.begin(), spans.end(), byBegin);
    std::vector<Span> out;
    for (const Span& s : spans) {
        if (!out.empty() && s.begin <= out.back().end)
            out.back().end = std::max(out.back().end, s.end);
        else
            out.push_back(s);
    }
    return SpanSet(std::move(out));
}

SpanSet SpanSet::subtract(const SpanSet& a, const SpanSet& b) {
    std::vector<Span> out;
    size_t j = 0;
    const auto& bs = b.m_spans;
    for (Span s : a.m_spans) {
        while (j < bs.size() && bs[j].end <= s.begin) ++j;
        size_t k = j;
        while (k < bs.size() && bs[k].begin < s.end) {
            if (bs[k].begin > s.begin) out.push_back({s.begin, bs[k].begin});
            s.begin = std::max(s.begin, bs[k].end);
            if (s.begin >= s.end) break;
            ++k;
        }
        if (s.begin < s.end) out.push_back(s);
    }
    return SpanSet(std::move(out));
}

SpanSet SpanSet::intersect(const SpanSet& a, const SpanSet& b) {
    std::vector<Span> out;
    size_t i = 0, j = 0;
    const auto &as = a.m_spans, &bs = b.m_spans;
    while (i < as.size() && j < bs.size()) {
        const int64_t lo = std::max(as[i].begin, bs[j].begin);
        const int64_t hi = std::min(as[i].end, bs[j].end);
        if (lo < hi) out.push_back({lo, hi});
        if (as[i].end < bs[j].end)
            ++i;
        else
            ++j;
    }
    return SpanSet(std::move(out));
}

SpanSet SpanSet::unite(const SpanSet& a, const SpanSet& b) {
    std::vector<Span> all(a.m_spans.size() + b.m_spans.size());
    std::merge(a.m_spans.begin(), a.m_spans.end(), b.m_spans.begin(), b.m_spans.end(), all.begin(),
               [](const Span& x, const Span& y) { return x.begin < y.begin; });
    return unionOf(std::move(all));  // sorted: merged without a sort
}

int64_t SpanSet::within(int64_t begin, int64_t end) const {
    if (end <= begin || m_spans.empty()) return 0;
    // First span ending after `begin`, first span starting at or after `end`.
    auto lo = std::upper_bound(m_spans.begin(), m_spans.end(), begin,
                               [](int64_t t, const Span& s) { return t < s.end; });
    auto hi = std::lower_bound(lo, m_spans.end(), end,
                               [](const Span& s, int64_t t) { return s.begin < t; });
    if (lo >= hi) return 0;
    const size_t first = static_cast<size_t>(lo - m_spans.begin());
    const size_t last = static_cast<size_t>(hi - m_spans.begin()) - 1;
    int64_t sum = m_prefix[last] - (first ? m_prefix[first - 1] : 0);
    sum -= std::max<int64_t>(0, begin - m_spans[first].begin);
    sum -= std::max<int64_t>(0, m_spans[last].end - end);
    return sum;
}

}  // namespace ts::analysis
