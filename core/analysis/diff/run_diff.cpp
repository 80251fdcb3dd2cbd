#include "core/analysis/diff/run_diff.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "core/analysis/diff/diff_side.h"
#include "core/timeline/time_axis.h"

namespace ts::analysis {
namespace {

using timeline::formatDuration;

void classify(std::vector<OpDiffRow>& rows, double band, double floorNs) {
    for (auto& r : rows) {
        const double x = r.selfNs[0], y = r.selfNs[1];
        if (r.calls[0] == 0 && r.calls[1] > 0)
            r.change = OpChange::Added;
        else if (r.calls[1] == 0 && r.calls[0] > 0)
            r.change = OpChange::Removed;
        else if (std::fabs(r.deltaNs) <= floorNs ||
                 (x > 0 && y > 0 && std::max(x / y, y / x) <= 1 + band) || (x == 0 && y == 0))
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
    if (a > 0 && b > 0 && std::max(a / b, b / a) <= 1 + d.noiseBand) {
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
    const std::string per = what == "step" ? "step" : "profile";
    if (const DiffAttribution& at = d.attribution; !at.name.empty()) {
        // Blame what the user wrote (a record_function block, the op they called), not the
        // kernel-level op inside it that took the time.
        s += "; the change is in " + at.name + " (" +
             (at.annotation ? std::string("user annotation") : at.category) + ") " +
             signedDuration(at.deltaNs) + " per " + per + ", where " + top->name + " is " +
             signedDuration(top->deltaNs) + " (" + opChangeKey(top->change);
    } else {
        s += "; the largest op change: " + top->name + " " + signedDuration(top->deltaNs) +
             " per " + per + " (" + opChangeKey(top->change);
    }
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
    DiffNames names;
    nameOps(sa, o.map, names);
    nameOps(sb, o.map, names);
    d.ops = diffOpTable(sa, sb, names, o.by);
    classify(d.ops, d.noiseBand, d.floorNs);
    for (const auto& r : d.ops)
        if (r.change != OpChange::Unchanged) {
            d.attribution = attributeChange(sa, sb, names, r);
            break;
        }
    d.split = diffSplit(sa, sb, names, &d.splitExplains);
    if (job) job->addDone(1);
    if (job && job->cancelled()) return Error{"cancelled"};
    d.aligned = alignSteps(sa, sb, names, job);
    if (job && job->cancelled()) return Error{"cancelled"};
    if (job) job->addDone(1);
    d.explains = explainSentence(d);
    return d;
}

}  // namespace ts::analysis
