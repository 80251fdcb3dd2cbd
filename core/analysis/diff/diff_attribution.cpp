// The outermost op or user annotation that explains a diff's largest op change
// (run_diff.h, DiffAttribution).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/analysis/diff/diff_side.h"
#include "core/timeline/op_stats.h"

namespace ts::analysis {
namespace {

bool isAnnotation(std::string_view category) {
    return category.find("user_annotation") != std::string_view::npos;
}

/// Slices that frame the whole step or recording: never the answer.
bool isFrame(const ProfileData& d, const ProfileSlice& sl) {
    return profilerStepNumber(d.name(sl)).has_value() ||
           timeline::isTraceSpan(d.name(sl), d.category(sl));
}

/// The op's mapped name on side `s` for slice i ("" when it is not an op).
const std::string& opNameOf(const DiffSide& s, const DiffNames& names, size_t i) {
    static const std::string none;
    return s.lane[i] == OpLane::None ? none : names.text(s.opName[i]);
}

/// Whether time `ts` falls in one of the side's steps in scope (every time when none).
class ScopeCheck {
public:
    explicit ScopeCheck(const DiffSide& s) {
        for (size_t k : s.scope) {
            const StepBreakdown& st = s.steps.steps[k];
            m_steps.emplace_back(st.ts, st.ts + st.dur);
        }
        std::sort(m_steps.begin(), m_steps.end());
    }
    bool contains(int64_t ts) const {
        if (m_steps.empty()) return true;
        auto it = std::upper_bound(m_steps.begin(), m_steps.end(), std::make_pair(ts, INT64_MAX));
        return it != m_steps.begin() && ts < std::prev(it)->second;
    }

private:
    std::vector<std::pair<int64_t, int64_t>> m_steps;
};

/// Total duration per step of slices named `name` in the side's scope.
double totalPerStep(const DiffSide& s, const std::string& name) {
    const ProfileData& d = s.data;
    const ScopeCheck scope(s);
    double total = 0;
    for (const ProfileSlice& sl : d.slices)
        if (d.name(sl) == name && scope.contains(sl.ts)) total += static_cast<double>(sl.dur);
    return total / s.perStep();
}

}  // namespace

DiffAttribution attributeChange(const DiffSide& a, const DiffSide& b, const DiffNames& names,
                                const OpDiffRow& top) {
    DiffAttribution out;
    out.op = top.name;
    const DiffSide& s = top.deltaNs >= 0 ? b : a;
    const ProfileData& d = s.data;
    const ScopeCheck scope(s);
    // Per enclosing name: how many calls of the op it encloses, its category and how far
    // out it sits (the smallest depth seen).
    struct Seen {
        int64_t calls = 0;
        int32_t depth = INT32_MAX;
        std::string category;
    };
    std::map<std::string, Seen> enclosing;
    int64_t calls = 0;
    std::vector<size_t> stack;
    for (const auto& t : d.tracks) {
        auto [lo, hi] = d.trackRange(t.id);
        stack.clear();
        for (size_t i = lo; i < hi; ++i) {
            const ProfileSlice& sl = d.slices[i];
            while (!stack.empty() && d.slices[stack.back()].end() <= sl.ts) stack.pop_back();
            if (opNameOf(s, names, i) == top.name && scope.contains(sl.ts)) {
                ++calls;
                std::set<std::string> counted;  // a name nested in itself counts once
                for (size_t p : stack) {
                    const ProfileSlice& ps = d.slices[p];
                    const std::string& n = d.name(ps);
                    if (isFrame(d, ps) || n == top.name || !counted.insert(n).second) continue;
                    Seen& e = enclosing[n];
                    ++e.calls;
                    e.depth = std::min(e.depth, ps.depth);
                    e.category = d.category(ps);
                }
            }
            stack.push_back(i);
        }
    }
    if (calls == 0) return out;
    struct Candidate {
        std::string name;
        Seen seen;
        double total[2];
    };
    std::vector<Candidate> kept;
    for (const auto& [name, seen] : enclosing) {
        if (seen.calls < calls) continue;  // around every call of the op, or not the reason
        Candidate c{name, seen, {totalPerStep(a, name), totalPerStep(b, name)}};
        const double delta = c.total[1] - c.total[0];
        if (delta * top.deltaNs <= 0) continue;
        if (std::fabs(delta) < kDiffAttributionShare * std::fabs(top.deltaNs)) continue;
        kept.push_back(std::move(c));
    }
    if (kept.empty()) return out;
    std::sort(kept.begin(), kept.end(), [](const Candidate& x, const Candidate& y) {
        return x.seen.depth != y.seen.depth ? x.seen.depth < y.seen.depth : x.name < y.name;
    });
    const Candidate* pick = &kept.front();  // the outermost
    for (auto it = kept.rbegin(); it != kept.rend(); ++it)
        if (isAnnotation(it->seen.category)) {
            pick = &*it;  // the innermost user annotation
            break;
        }
    out.name = pick->name;
    out.category = pick->seen.category;
    out.annotation = isAnnotation(out.category);
    out.totalNs[0] = pick->total[0];
    out.totalNs[1] = pick->total[1];
    out.deltaNs = pick->total[1] - pick->total[0];
    return out;
}

}  // namespace ts::analysis
