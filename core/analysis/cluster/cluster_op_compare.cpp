#include "core/analysis/cluster/cluster_op_compare.h"

#include <algorithm>
#include <limits>
#include <map>

#include "core/store/trace_store.h"
#include "core/timeline/op_stats.h"

namespace ts::analysis {
namespace {

using Key = std::pair<std::string, std::string>;  // name, category
struct Totals {
    double calls = 0, selfNs = 0;
};

/// Op statistics over the steps of `r`, source by source, summed per (name, category).
Result<std::map<Key, Totals>> opTotals(const RankProfile& r, JobControl* job) {
    std::map<Key, Totals> out;
    auto store = store::TraceStore::open(r.input.sessionPath, store::TraceStore::Mode::ReadOnly);
    if (!store) return Error{r.input.sessionPath + ": " + store.error()};
    std::map<int64_t, std::pair<int64_t, int64_t>> rangeOfSource;
    for (const RankStep& s : r.steps) {
        auto [it, fresh] = rangeOfSource.try_emplace(s.sourceId, s.ts, s.ts + s.dur);
        if (!fresh) {
            it->second.first = std::min(it->second.first, s.ts);
            it->second.second = std::max(it->second.second, s.ts + s.dur);
        }
    }
    for (const auto& [source, range] : rangeOfSource) {
        timeline::OpStatsOptions o;
        o.sourceId = source;
        o.range = range;
        auto stats = timeline::computeOpStats(*store.value(), o, job);
        if (!stats) return Error{stats.error()};
        for (const auto& row : stats.value().rows) {
            Totals& t = out[{row.name, row.category}];
            t.calls += static_cast<double>(row.calls);
            t.selfNs += static_cast<double>(row.selfNs);
        }
    }
    return out;
}

}  // namespace

double OpCompareRow::ratio() const {
    if (medianSelfNs > 0) return selfNs / medianSelfNs;
    return selfNs > 0 ? std::numeric_limits<double>::infinity() : 1.0;
}

Result<OpComparison> compareRankOps(const ClusterSummary& summary, size_t rankIndex,
                                    JobControl* job) {
    if (rankIndex >= summary.rankCount() || summary.medianRankIndex >= summary.rankCount())
        return Error{"no such rank"};
    const RankProfile& mine = summary.ranks[rankIndex];
    const RankProfile& med = summary.ranks[summary.medianRankIndex];
    OpComparison c;
    c.rank = mine.input.rank;
    c.medianRank = med.input.rank;
    c.steps = static_cast<int64_t>(mine.steps.size());
    c.medianSteps = static_cast<int64_t>(med.steps.size());
    auto a = opTotals(mine, job);
    if (!a) return Error{a.error()};
    auto b = opTotals(med, job);
    if (!b) return Error{b.error()};
    const double na = static_cast<double>(std::max<int64_t>(1, c.steps));
    const double nb = static_cast<double>(std::max<int64_t>(1, c.medianSteps));
    std::map<Key, OpCompareRow> rows;
    for (const auto& [k, t] : a.value()) {
        OpCompareRow& r = rows[k];
        r.name = k.first;
        r.category = k.second;
        r.calls = t.calls / na;
        r.selfNs = t.selfNs / na;
    }
    for (const auto& [k, t] : b.value()) {
        OpCompareRow& r = rows[k];
        r.name = k.first;
        r.category = k.second;
        r.medianCalls = t.calls / nb;
        r.medianSelfNs = t.selfNs / nb;
    }
    for (auto& [k, r] : rows) c.rows.push_back(std::move(r));
    std::stable_sort(
        c.rows.begin(), c.rows.end(),
        [](const OpCompareRow& x, const OpCompareRow& y) { return x.deltaNs() > y.deltaNs(); });
    return c;
}

}  // namespace ts::analysis
