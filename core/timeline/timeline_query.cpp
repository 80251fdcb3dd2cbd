#include "core/timeline/timeline_query.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <queue>
#include <regex>
#include <unordered_map>
#include "core/common/text.h"

namespace ts::timeline {

namespace {

/// End of the run of sub-pixel slices that starts at i: the first k > i where slice k is wide
/// (>= one pixel), starts a pixel or more after slice k-1 ends, or starts after t1 (n when
/// none). Whole blocks whose summary key is under a pixel are skipped without visiting them.
size_t runEnd(const SliceLevel& lv, size_t i, double npp, double t1) {
    const size_t n = lv.size();
    auto blockFits = [&](size_t k, size_t block, const std::vector<int64_t>& maxes) {
        if (k % block != 0 || k / block >= maxes.size()) return false;
        const size_t last = std::min(k + block, n) - 1;
        return static_cast<double>(maxes[k / block]) < npp &&
               static_cast<double>(lv.ts[last]) <= t1;
    };
    size_t k = i + 1;
    while (k < n) {
        if (blockFits(k, SliceLevel::kBigBlock, lv.bigMax)) {
            k += SliceLevel::kBigBlock;
        } else if (blockFits(k, SliceLevel::kSmallBlock, lv.smallMax)) {
            k += SliceLevel::kSmallBlock;
        } else {
            if (static_cast<double>(lv.dur[k]) >= npp ||
                static_cast<double>(lv.ts[k] - lv.end(k - 1)) >= npp ||
                static_cast<double>(lv.ts[k]) > t1)
                break;
            ++k;
        }
    }
    return std::min(k, n);
}

}  // namespace

void levelItems(const SliceLevel& lv, double t0, double t1, double npp,
                std::vector<DrawItem>& out) {
    const size_t n = lv.size();
    if (n == 0 || t1 < t0) return;
    npp = std::max(npp, 1e-9);
    size_t i = lv.firstEndingAtOrAfter(static_cast<int64_t>(std::floor(t0)));
    while (i < n && static_cast<double>(lv.ts[i]) <= t1) {
        if (static_cast<double>(lv.dur[i]) >= npp) {
            out.push_back({lv.ts[i], lv.end(i), static_cast<int64_t>(i), 1, lv.name[i]});
            ++i;
            continue;
        }
        // A run of sub-pixel slices, each starting less than a pixel after the previous ends.
        const size_t j = runEnd(lv, i, npp, t1);
        out.push_back({lv.ts[i], lv.end(j - 1), static_cast<int64_t>(i),
                       static_cast<int64_t>(j - i), lv.name[i]});
        i = j;
    }
}

SliceRef hitTest(const TimelineModel& m, int track, int level, double t, double tol) {
    if (track < 0 || track >= static_cast<int>(m.tracks.size())) return {};
    const auto& levels = m.tracks[track].levels;
    if (level < 0 || level >= static_cast<int>(levels.size())) return {};
    const SliceLevel& lv = levels[level];
    size_t i = lv.firstEndingAtOrAfter(static_cast<int64_t>(std::floor(t - tol)));
    size_t best = lv.size();
    double bestDist = tol;
    for (; i < lv.size() && static_cast<double>(lv.ts[i]) <= t + tol; ++i) {
        const double a = static_cast<double>(lv.ts[i]), b = static_cast<double>(lv.end(i));
        const double dist = t < a ? a - t : (t > b ? t - b : 0.0);
        if (dist <= bestDist && (best == lv.size() || dist < bestDist)) {
            best = i;
            bestDist = dist;
            if (dist == 0.0) break;
        }
    }
    if (best == lv.size()) return {};
    return {track, level, static_cast<int64_t>(best)};
}

Result<SearchResults> searchSlices(const TimelineModel& m, const std::string& pattern, bool regex,
                                   JobControl* job) {
    SearchResults r;
    r.nameMatches.assign(m.strings.size(), 0);
    if (pattern.empty()) return r;
    if (regex) {
        std::regex re;
        try {
            re = std::regex(pattern, std::regex::ECMAScript | std::regex::icase);
        } catch (const std::regex_error& e) {
            return Error{"invalid regular expression: " + std::string(e.what())};
        }
        for (size_t id = 0; id < m.strings.size(); ++id)
            r.nameMatches[id] = !m.strings[id].empty() && std::regex_search(m.strings[id], re);
    } else {
        const std::string needle = asciiLower(pattern);
        for (size_t id = 0; id < m.strings.size(); ++id)
            r.nameMatches[id] = asciiLower(m.strings[id]).find(needle) != std::string::npos;
    }
    // Matches of each level come in start order; a k-way merge puts them in global order.
    std::vector<std::vector<SliceRef>> perLevel;
    size_t total = 0;
    for (size_t t = 0; t < m.tracks.size(); ++t) {
        const auto& levels = m.tracks[t].levels;
        for (size_t l = 0; l < levels.size(); ++l) {
            const auto& names = levels[l].name;
            std::vector<SliceRef> found;
            for (size_t i = 0; i < names.size(); ++i)
                if (r.matchesName(names[i]))
                    found.push_back(
                        {static_cast<int>(t), static_cast<int>(l), static_cast<int64_t>(i)});
            total += found.size();
            if (!found.empty()) perLevel.push_back(std::move(found));
        }
        if (job && job->cancelled()) return Error{"cancelled"};
    }
    using Head = std::pair<int64_t, size_t>;  // (start, list)
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    std::vector<size_t> pos(perLevel.size(), 0);
    for (size_t k = 0; k < perLevel.size(); ++k) heads.emplace(m.ts(perLevel[k][0]), k);
    r.matches.reserve(total);
    while (!heads.empty()) {
        const size_t k = heads.top().second;
        heads.pop();
        r.matches.push_back(perLevel[k][pos[k]]);
        if (++pos[k] < perLevel[k].size()) heads.emplace(m.ts(perLevel[k][pos[k]]), k);
    }
    return r;
}

int64_t nextMatch(const TimelineModel& m, const SearchResults& r, int64_t t) {
    if (r.matches.empty()) return -1;
    auto it = std::upper_bound(r.matches.begin(), r.matches.end(), t,
                               [&](int64_t v, const SliceRef& s) { return v < m.ts(s); });
    return it == r.matches.end() ? 0 : it - r.matches.begin();
}

int64_t previousMatch(const TimelineModel& m, const SearchResults& r, int64_t t) {
    if (r.matches.empty()) return -1;
    auto it = std::lower_bound(r.matches.begin(), r.matches.end(), t,
                               [&](const SliceRef& s, int64_t v) { return m.ts(s) < v; });
    return it == r.matches.begin() ? static_cast<int64_t>(r.matches.size()) - 1
                                   : (it - r.matches.begin()) - 1;
}

std::vector<AggregateRow> aggregateSelection(const TimelineModel& m, const std::vector<int>& tracks,
                                             int64_t t0, int64_t t1) {
    std::unordered_map<uint32_t, AggregateRow> byName;
    for (int t : tracks) {
        if (t < 0 || t >= static_cast<int>(m.tracks.size())) continue;
        const auto& levels = m.tracks[t].levels;
        for (size_t l = 0; l < levels.size(); ++l) {
            const SliceLevel& lv = levels[l];
            for (size_t i = lv.firstEndingAtOrAfter(t0); i < lv.size() && lv.ts[i] <= t1; ++i) {
                if (lv.end(i) == t0 && lv.dur[i] > 0) continue;  // ends exactly at the edge
                AggregateRow& row = byName[lv.name[i]];
                const int64_t d = lv.dur[i];
                const int64_t self = m.selfTime({t, static_cast<int>(l), static_cast<int64_t>(i)});
                row.name = lv.name[i];
                row.min = row.count ? std::min(row.min, d) : d;
                row.max = row.count ? std::max(row.max, d) : d;
                ++row.count;
                row.total += d;
                row.self += self;
            }
        }
    }
    std::vector<AggregateRow> rows;
    rows.reserve(byName.size());
    for (auto& [_, r] : byName) rows.push_back(r);
    std::sort(rows.begin(), rows.end(), [](const AggregateRow& a, const AggregateRow& b) {
        return a.total != b.total ? a.total > b.total : a.name < b.name;
    });
    return rows;
}

}  // namespace ts::timeline
