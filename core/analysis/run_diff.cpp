#include "core/analysis/run_diff.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "core/analysis/diff_side.h"
#include "core/timeline/time_axis.h"

namespace ts::analysis {
namespace {

using timeline::formatDuration;

struct Acc {
    double calls = 0, total = 0, self = 0;
    std::string category;
    std::set<std::string> names;
    void merge(const Acc& o) {
        calls += o.calls, total += o.total, self += o.self;
        if (category.empty()) category = o.category;
        names.insert(o.names.begin(), o.names.end());
    }
};

constexpr char kSep = '\x1f';

std::string keyOf(const std::string& name, const std::string& shapes) {
    return name + kSep + shapes;
}

std::pair<std::string, std::string> splitKey(const std::string& key) {
    const size_t k = key.find(kSep);
    return {key.substr(0, k), key.substr(k + 1)};
}

/// Per mapped name (and shapes), the op figures of one side over its scope.
std::map<std::string, Acc> accumulate(const DiffSide& s, const RunDiffOptions& o) {
    std::map<std::string, Acc> out;
    std::unordered_map<int64_t, std::string> mapped;  // name id -> mapped name
    const ProfileData& d = s.data;
    for (size_t i = 0; i < d.slices.size(); ++i) {
        if (!s.inScope(i)) continue;
        const ProfileSlice& sl = d.slices[i];
        auto m = mapped.find(sl.nameId);
        if (m == mapped.end()) m = mapped.emplace(sl.nameId, o.map.apply(d.name(sl))).first;
        const std::string& shapes =
            o.by == DiffGroupBy::Shape && !s.shape.empty() ? s.shapeTexts[s.shape[i]] : "";
        Acc& a = out[keyOf(m->second, shapes)];
        a.calls += 1;
        a.total += static_cast<double>(sl.dur);
        a.self += static_cast<double>(s.self[i]);
        if (a.category.empty()) a.category = d.category(sl);
        if (a.names.size() < 8) a.names.insert(d.name(sl));
    }
    return out;
}

OpDiffRow makeRow(const std::string& key, const Acc& a, const Acc& b, const DiffSide* sides[2]) {
    OpDiffRow r;
    std::tie(r.name, r.shapes) = splitKey(key);
    r.category = a.category.empty() ? b.category : a.category;
    const Acc* acc[2] = {&a, &b};
    for (int k = 0; k < 2; ++k) {
        const double n = sides[k]->perStep();
        r.calls[k] = acc[k]->calls / n;
        r.totalNs[k] = acc[k]->total / n;
        r.selfNs[k] = acc[k]->self / n;
        r.avgNs[k] = acc[k]->calls > 0 ? acc[k]->total / acc[k]->calls : 0;
    }
    for (const auto& n : a.names)
        if (n != r.name) r.namesA.push_back(n);
    for (const auto& n : b.names)
        if (n != r.name) r.namesB.push_back(n);
    r.deltaNs = r.selfNs[1] - r.selfNs[0];
    if (r.selfNs[0] > 0)
        r.ratio = r.selfNs[1] / r.selfNs[0];
    else
        r.ratio = r.selfNs[1] > 0 ? std::numeric_limits<double>::infinity()
                                  : std::numeric_limits<double>::quiet_NaN();
    return r;
}

std::vector<OpDiffRow> opTable(const DiffSide& a, const DiffSide& b, const RunDiffOptions& o) {
    const auto accA = accumulate(a, o), accB = accumulate(b, o);
    const DiffSide* sides[2] = {&a, &b};
    std::vector<OpDiffRow> rows;
    // Names on one side only: joined with the other side's one-sided names of the same fuzzy
    // form (MatMul-op12 in A with MatMul-op13 in B), else added / removed as they are.
    struct Group {
        Acc acc[2];
        std::vector<std::pair<std::string, int>> keys;  // (key, side)
    };
    std::map<std::string, Group> fuzzy;
    auto oneSided = [&](const std::string& key, const Acc& acc, int side) {
        auto [name, shapes] = splitKey(key);
        Group& g = fuzzy[keyOf(fuzzyName(name), shapes)];
        g.acc[side].merge(acc);
        g.keys.emplace_back(key, side);
    };
    for (const auto& [key, acc] : accA) {
        auto it = accB.find(key);
        if (it != accB.end())
            rows.push_back(makeRow(key, acc, it->second, sides));
        else
            oneSided(key, acc, 0);
    }
    for (const auto& [key, acc] : accB)
        if (!accA.count(key)) oneSided(key, acc, 1);
    for (const auto& [fk, g] : fuzzy) {
        if (g.acc[0].calls > 0 && g.acc[1].calls > 0) {
            OpDiffRow r = makeRow(fk, g.acc[0], g.acc[1], sides);
            r.fuzzy = true;
            rows.push_back(std::move(r));
            continue;
        }
        for (const auto& [key, side] : g.keys)  // not joined: each name keeps its own row
            rows.push_back(side == 0 ? makeRow(key, accA.at(key), Acc{}, sides)
                                     : makeRow(key, Acc{}, accB.at(key), sides));
    }
    return rows;
}

void classify(std::vector<OpDiffRow>& rows, double band, double floorNs) {
    for (auto& r : rows) {
        if (r.calls[0] == 0 && r.calls[1] > 0)
            r.change = OpChange::Added;
        else if (r.calls[1] == 0 && r.calls[0] > 0)
            r.change = OpChange::Removed;
        else if (std::fabs(r.deltaNs) <=
                 std::max(band * std::max(r.selfNs[0], r.selfNs[1]), floorNs))
            r.change = OpChange::Unchanged;
        else
            r.change = r.deltaNs > 0 ? OpChange::Slower : OpChange::Faster;
    }
    std::stable_sort(rows.begin(), rows.end(), [](const OpDiffRow& x, const OpDiffRow& y) {
        const double dx = std::fabs(x.deltaNs), dy = std::fabs(y.deltaNs);
        if (dx != dy) return dx > dy;
        const double sx = std::max(x.selfNs[0], x.selfNs[1]),
                     sy = std::max(y.selfNs[0], y.selfNs[1]);
        if (sx != sy) return sx > sy;
        return x.name != y.name ? x.name < y.name : x.shapes < y.shapes;
    });
}

std::string signedDuration(double ns) {
    return (ns >= 0 ? "+" : "-") + formatDuration(std::fabs(ns));
}

std::string explainSentence(const RunDiff& d) {
    const double a = d.a.stepNs, b = d.b.stepNs, delta = b - a;
    char pct[64];
    std::snprintf(pct, sizeof pct, "%+.1f%%", a > 0 ? 100.0 * delta / a : 0.0);
    const std::string what = d.a.alignedStep >= 0 || d.b.alignedStep >= 0 ? "step" : "profile";
    std::string s;
    if (std::fabs(delta) <= d.noiseBand * a) {
        char band[32];
        std::snprintf(band, sizeof band, "%.1f%%", 100.0 * d.noiseBand);
        s = "B's " + what + " time is within the noise band of A's (" + formatDuration(a) + " -> " +
            formatDuration(b) + ", " + pct + ", band ±" + band + ")";
    } else {
        s = "B's " + what + " is " + formatDuration(std::fabs(delta)) +
            (delta > 0 ? " slower" : " faster") + " than A's (" + formatDuration(a) + " -> " +
            formatDuration(b) + ", " + pct + ")";
        for (const auto& p : d.split) {
            if (p.key != d.splitExplains) continue;
            const double pd = p.ns[1] - p.ns[0];
            char share[32];
            std::snprintf(share, sizeof share, "%.0f%%", 100.0 * pd / delta);
            s += ": " + p.label + " explains " + signedDuration(pd) + " (" + share + ")";
        }
    }
    const OpDiffRow* top = nullptr;
    for (const auto& r : d.ops)
        if (r.change != OpChange::Unchanged) {
            top = &r;
            break;
        }
    if (!top) return s + "; no op changed beyond the noise band.";
    s += "; the largest op change: " + top->name + " " + signedDuration(top->deltaNs) + " per " +
         (what == "step" ? "step" : "profile") + " (" + opChangeKey(top->change);
    if (std::isfinite(top->ratio) && top->ratio > 0) {
        char r[32];
        std::snprintf(r, sizeof r, ", x%.2f", top->ratio);
        s += r;
    }
    return s + ").";
}

bool sameFile(const std::string& x, const std::string& y) {
    std::error_code e1, e2;
    const auto cx = std::filesystem::weakly_canonical(x, e1);
    const auto cy = std::filesystem::weakly_canonical(y, e2);
    return e1 || e2 ? x == y : cx == cy;
}

}  // namespace

const char* opChangeKey(OpChange c) {
    switch (c) {
        case OpChange::Added:
            return "added";
        case OpChange::Removed:
            return "removed";
        case OpChange::Slower:
            return "slower";
        case OpChange::Faster:
            return "faster";
        case OpChange::Unchanged:
            return "unchanged";
    }
    return "unchanged";
}

Result<DiffSideSpec> parseDiffSide(const std::string& text) {
    DiffSideSpec spec;
    spec.path = text;
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos) return spec;
    const std::string suffix = text.substr(colon + 1);
    for (const char* key : {"run=", "source="}) {
        const std::string k(key);
        if (suffix.rfind(k, 0) != 0) continue;
        const std::string v = suffix.substr(k.size());
        int64_t n = 0;
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (v.empty() || ec != std::errc() || p != v.data() + v.size())
            return Error{"'" + text + "': " + k.substr(0, k.size() - 1) +
                         " needs an integer, got '" + v + "'"};
        spec.path = text.substr(0, colon);
        (k == "run=" ? spec.runId : spec.sourceId) = n;
    }
    if (spec.path.empty()) return Error{"'" + text + "': no session file before ':'"};
    return spec;
}

Result<RunDiff> diffRuns(const DiffSideSpec& specA, const DiffSideSpec& specB,
                         const RunDiffOptions& o, JobControl* job) {
    if (job) job->setTotal(4);
    const bool shapes = o.by == DiffGroupBy::Shape;
    auto a = loadDiffSide(specA, "A", shapes, job);
    if (!a) return Error{a.error()};
    if (job) job->addDone(1);
    auto b = loadDiffSide(specB, "B", shapes, job);
    if (!b) return Error{b.error()};
    if (job) job->addDone(1);
    DiffSide &sa = a.value(), &sb = b.value();
    if (sameFile(specA.path, specB.path) && sa.info.sourceId == sb.info.sourceId &&
        sa.info.steps == sb.info.steps)
        return Error{"A and B are the same profile (source " + std::to_string(sa.info.sourceId) +
                     ") over the same steps: name two sources or runs (FILE:source=N, "
                     "FILE:run=N) or two steps (--base-step S --step S)"};
    RunDiff d;
    d.a = sa.info;
    d.b = sb.info;
    d.noiseBand = std::max(kDiffMinNoise, kDiffNoiseMads * std::max(d.a.spread, d.b.spread));
    d.floorNs = kDiffMinStepShare * std::max(d.a.stepNs, d.b.stepNs);
    d.ops = opTable(sa, sb, o);
    classify(d.ops, d.noiseBand, d.floorNs);
    d.split = diffSplit(sa, sb, &d.splitExplains);
    if (job) job->addDone(1);
    if (job && job->cancelled()) return Error{"cancelled"};
    d.aligned = alignSteps(sa, sb, o.map, job);
    if (job && job->cancelled()) return Error{"cancelled"};
    if (job) job->addDone(1);
    d.explains = explainSentence(d);
    return d;
}

}  // namespace ts::analysis
