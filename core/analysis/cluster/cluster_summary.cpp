#include "core/analysis/cluster/cluster_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/analysis/profile/step_analysis.h"

namespace ts::analysis {
namespace {

constexpr double kMs = 1e6;

/// Ranks with the same number become one (steps merged, first of a number kept).
std::vector<RankProfile> mergeSameRank(std::vector<RankProfile> ranks,
                                       std::vector<std::string>& warnings) {
    std::stable_sort(ranks.begin(), ranks.end(), [](const RankProfile& a, const RankProfile& b) {
        return a.input.rank < b.input.rank;
    });
    std::vector<RankProfile> out;
    for (RankProfile& r : ranks) {
        if (out.empty() || out.back().input.rank != r.input.rank) {
            out.push_back(std::move(r));
            continue;
        }
        RankProfile& into = out.back();
        warnings.push_back("rank " + std::to_string(r.input.rank) + " comes from " +
                           into.input.label + " and " + r.input.label +
                           ": their steps are taken together");
        into.input.label += ", " + r.input.label;
        for (int64_t s : r.input.sourceIds) into.input.sourceIds.push_back(s);
        into.slices += r.slices;
        into.device = into.device || r.device;
        for (const RankStep& s : r.steps) into.steps.push_back(s);
        std::stable_sort(into.steps.begin(), into.steps.end(),
                         [](const RankStep& a, const RankStep& b) { return a.number < b.number; });
        into.steps.erase(
            std::unique(into.steps.begin(), into.steps.end(),
                        [](const RankStep& a, const RankStep& b) { return a.number == b.number; }),
            into.steps.end());
    }
    return out;
}

RankFigures figuresOf(const RankProfile& r) {
    RankFigures f;
    f.steps = static_cast<int64_t>(r.steps.size());
    if (r.steps.empty()) return f;
    std::vector<double> dur, work;
    double compute = 0, comm = 0, overlap = 0, idle = 0, wait = 0, total = 0;
    for (const RankStep& s : r.steps) {
        dur.push_back(static_cast<double>(s.dur) / kMs);
        work.push_back(static_cast<double>(s.workNs()) / kMs);
        total += static_cast<double>(s.dur);
        compute += static_cast<double>(s.computeNs);
        comm += static_cast<double>(s.commNs);
        overlap += static_cast<double>(s.overlapNs);
        idle += static_cast<double>(s.idleNs);
        wait += static_cast<double>(s.waitNs());
    }
    const double n = static_cast<double>(r.steps.size()) * kMs;
    f.stepMsMedian = median(dur);
    f.stepMsP95 = percentile(dur, 95);
    f.stepMsMean = total / n;
    f.computeMs = compute / n;
    f.commMs = comm / n;
    f.idleMs = idle / n;
    f.waitMs = wait / n;
    f.overlapPct = comm > 0 ? 100.0 * overlap / comm : std::numeric_limits<double>::quiet_NaN();
    f.workMsMedian = median(work);
    double workSum = 0;
    for (double w : work) workSum += w;
    f.workMsMean = workSum / static_cast<double>(work.size());
    return f;
}

void findStragglers(ClusterSummary& s) {
    const size_t nr = s.rankCount(), nc = s.stepCount();
    std::vector<double> work, wait;
    std::vector<size_t> rows;
    for (size_t c = 0; c < nc; ++c) {
        work.clear();
        rows.clear();
        for (size_t r = 0; r < nr; ++r)
            if (const RankStep* st = s.cell(r, c)) {
                work.push_back(static_cast<double>(st->workNs()));
                rows.push_back(r);
            }
        if (rows.size() < 2) continue;
        const double medWork = median(work);
        std::vector<double> durs;
        for (size_t r : rows) durs.push_back(static_cast<double>(s.cell(r, c)->dur));
        const double medDur = median(durs);
        for (size_t i = 0; i < rows.size(); ++i) {
            const double w = work[i];
            const double excess = w - medWork;  // what the others wait for it
            if (excess <= kStragglerExcess * medDur ||
                excess <= static_cast<double>(kStragglerMinNs))
                continue;
            const RankStep* st = s.cell(rows[i], c);
            wait.clear();
            for (size_t j = 0; j < rows.size(); ++j)
                if (j != i) wait.push_back(static_cast<double>(s.cell(rows[j], c)->waitNs()));
            Straggler g;
            g.rank = s.ranks[rows[i]].input.rank;
            g.step = s.stepNumbers[c];
            g.rankIndex = rows[i];
            g.stepIndex = c;
            g.stepMs = static_cast<double>(st->dur) / kMs;
            g.medianMs = medDur / kMs;
            g.workMs = w / kMs;
            g.medianWorkMs = medWork / kMs;
            g.waitMs = static_cast<double>(st->waitNs()) / kMs;
            g.othersWaitMs = median(wait) / kMs;
            s.stragglers.push_back(g);
            ++s.figures[rows[i]].stragglerSteps;
            s.figures[rows[i]].stragglerExcessMs += g.workMs - g.medianWorkMs;
        }
    }
}

}  // namespace

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double rank = std::ceil(p / 100.0 * static_cast<double>(v.size()));
    const size_t i = static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(v.size()))) - 1;
    return v[i];
}

const RankStep* ClusterSummary::cell(size_t r, size_t c) const {
    const int32_t i = cells[r * stepNumbers.size() + c];
    return i < 0 ? nullptr : &ranks[r].steps[static_cast<size_t>(i)];
}

int ClusterSummary::rowOfRank(int64_t rank) const {
    for (size_t i = 0; i < ranks.size(); ++i)
        if (ranks[i].input.rank == rank) return static_cast<int>(i);
    return -1;
}

ClusterSummary summarizeCluster(std::vector<RankProfile> ranks) {
    ClusterSummary s;
    s.ranks = mergeSameRank(std::move(ranks), s.warnings);
    std::vector<int64_t> numbers;
    for (const RankProfile& r : s.ranks) {
        for (const std::string& w : r.warnings)
            s.warnings.push_back("rank " + std::to_string(r.input.rank) + ": " + w);
        for (const RankStep& st : r.steps) numbers.push_back(st.number);
        s.figures.push_back(figuresOf(r));
    }
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    s.stepNumbers = std::move(numbers);
    const size_t nc = s.stepNumbers.size();
    s.cells.assign(s.ranks.size() * nc, -1);
    for (size_t r = 0; r < s.ranks.size(); ++r) {
        const auto& steps = s.ranks[r].steps;
        size_t c = 0;
        for (size_t i = 0; i < steps.size(); ++i) {
            while (c < nc && s.stepNumbers[c] < steps[i].number) ++c;
            if (c < nc && s.stepNumbers[c] == steps[i].number)
                s.cells[r * nc + c] = static_cast<int32_t>(i);
        }
    }
    findStragglers(s);
    // The median rank: the middle one by median work. The slowest: the rank the others
    // waited for the longest in all (the largest sum of its straggler excess), or without
    // stragglers the highest mean work (an intermittently slow rank shows in the mean, not
    // the median).
    std::vector<size_t> order;
    for (size_t r = 0; r < s.ranks.size(); ++r)
        if (s.figures[r].steps > 0) order.push_back(r);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return s.figures[a].workMsMedian < s.figures[b].workMsMedian;
    });
    if (!order.empty()) {
        s.medianRankIndex = order[(order.size() - 1) / 2];
        auto key = [&](size_t r) {
            const RankFigures& f = s.figures[r];
            return std::pair{f.stragglerExcessMs, f.workMsMean};
        };
        size_t slowest = order.front();
        for (size_t r : order)
            if (key(r) > key(slowest)) slowest = r;
        s.slowestRank = s.ranks[slowest].input.rank;
    }
    std::stable_sort(s.stragglers.begin(), s.stragglers.end(),
                     [](const Straggler& a, const Straggler& b) {
                         return a.step != b.step ? a.step < b.step : a.rank < b.rank;
                     });
    return s;
}

}  // namespace ts::analysis
