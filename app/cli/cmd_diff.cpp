// trainscope-cli diff A[:run=N|:source=N] [B[...]]: run against run — per op name (or shape)
// the change of calls, total and self time with a class (added, removed, slower, faster,
// unchanged), the step split side by side with the part that explains the change, and the
// alignment of one step of each side (docs/DIFF.md).
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "app/cli/session_open.h"
#include "core/analysis/diff/run_diff.h"
#include "core/analysis/profile/profile_data.h"
#include "core/timeline/time_axis.h"

namespace ts::cli {
namespace {

using analysis::DiffSideSpec;
using analysis::RunDiff;
using timeline::formatDuration;

DiffSideSpec side(const std::string& text) {
    auto s = analysis::parseDiffSide(text);
    if (!s) throw CliError{s.error()};
    return s.value();
}

/// One session named once: its two newest profiles (A the older), or with steps given its
/// newest profile twice.
std::pair<DiffSideSpec, DiffSideSpec> sidesOfOne(const DiffSideSpec& only, bool stepsGiven) {
    DiffSideSpec a = only, b = only;
    if (only.sourceId || only.runId || stepsGiven) return {a, b};
    auto store = openSession(only.path, store::TraceStore::Mode::ReadOnly);
    auto list = analysis::listProfileSources(*store);
    if (!list) throw CliError{list.error()};
    if (list->size() < 2)
        throw CliError{only.path + " holds " + std::to_string(list->size()) +
                       " profile(s): name B, or two steps with --base-step and --step"};
    a.sourceId = (*list)[1].id;
    b.sourceId = (*list)[0].id;
    return {a, b};
}

void number(JsonWriter& w, double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15)
        w.Int64(static_cast<int64_t>(v));
    else
        finiteOrNull(w, v);
}

void pairOf(JsonWriter& w, const char* key, const double (&v)[2]) {
    w.Key(key);
    w.StartArray();
    number(w, v[0]);
    number(w, v[1]);
    w.EndArray();
}

void writeSide(JsonWriter& w, const analysis::DiffSideInfo& s) {
    w.StartObject();
    kv(w, "path", s.path);
    kv(w, "source_id", s.sourceId);
    kv(w, "label", s.label);
    kv(w, "kind", s.kind);
    kv(w, "run_id", s.runId);
    kv(w, "step", s.step);
    w.Key("steps");
    w.StartArray();
    for (int64_t n : s.steps) w.Int64(n);
    w.EndArray();
    kv(w, "profile_steps", s.profileSteps);
    w.Key("warmup_skipped");
    w.Bool(s.warmupSkipped);
    kv(w, "step_ns", s.stepNs);
    kv(w, "spread", s.spread);
    kv(w, "split", std::string(s.split == analysis::StepSplit::Phases ? "phases" : "ops"));
    kv(w, "op_slices", s.opSlices);
    w.Key("aligned_step");
    if (s.alignedStep >= 0)
        w.Int64(s.alignedStep);
    else
        w.Null();
    w.EndObject();
}

void writeNames(JsonWriter& w, const analysis::DiffAlignment& al, int side, uint32_t begin,
                uint32_t end) {
    w.StartArray();
    for (uint32_t i = begin; i < end && i < begin + 20; ++i)
        w.String(al.names[al.ops[side][i].name].c_str());
    w.EndArray();
}

void writeAligned(JsonWriter& w, const RunDiff& d) {
    const auto& al = d.aligned;
    w.StartObject();
    w.Key("a_step");
    d.a.alignedStep >= 0 ? w.Int64(d.a.alignedStep) : w.Null();
    w.Key("b_step");
    d.b.alignedStep >= 0 ? w.Int64(d.b.alignedStep) : w.Null();
    w.Key("ops");
    w.StartArray();
    w.Uint64(al.ops[0].size());
    w.Uint64(al.ops[1].size());
    w.EndArray();
    kv(w, "pairs", static_cast<int64_t>(al.pairs.size()));
    kv(w, "inserted", static_cast<int64_t>(al.inserted.size()));
    kv(w, "deleted", static_cast<int64_t>(al.deleted.size()));
    kv(w, "fuzzy_pairs", al.fuzzyPairs);
    w.Key("exact");
    w.Bool(al.exact);
    kv(w, "seconds", al.seconds);
    // The runs of unpaired ops (first 100), each with up to 20 names per side.
    w.Key("changes");
    w.StartArray();
    for (size_t k = 0; k < al.gaps.size() && k < 100; ++k) {
        const auto& g = al.gaps[k];
        w.StartObject();
        kv(w, "a_index", static_cast<int64_t>(g.aBegin));
        kv(w, "b_index", static_cast<int64_t>(g.bBegin));
        w.Key("deleted");
        writeNames(w, al, 0, g.aBegin, g.aEnd);
        w.Key("inserted");
        writeNames(w, al, 1, g.bBegin, g.bEnd);
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
}

void writeJson(JsonWriter& w, const RunDiff& d, size_t top, const std::string& by) {
    w.StartObject();
    w.Key("a");
    writeSide(w, d.a);
    w.Key("b");
    writeSide(w, d.b);
    w.Key("step_ms");
    w.StartArray();
    finiteOrNull(w, d.a.stepNs / 1e6);
    finiteOrNull(w, d.b.stepNs / 1e6);
    w.EndArray();
    kv(w, "by", by);
    kv(w, "noise_band", d.noiseBand);
    kv(w, "floor_ns", d.floorNs);
    kv(w, "ops_total", static_cast<int64_t>(d.ops.size()));
    w.Key("ops");
    w.StartArray();
    for (size_t i = 0; i < d.ops.size() && (top == 0 || i < top); ++i) {
        const auto& r = d.ops[i];
        w.StartObject();
        kv(w, "name", r.name);
        if (by == "shape") kv(w, "shapes", r.shapes);
        kv(w, "class", std::string(analysis::opChangeKey(r.change)));
        kv(w, "category", r.category);
        pairOf(w, "calls", r.calls);
        pairOf(w, "total_ns", r.totalNs);
        pairOf(w, "self_ns", r.selfNs);
        pairOf(w, "avg_ns", r.avgNs);
        w.Key("delta_ns");
        number(w, r.deltaNs);
        kv(w, "ratio", r.ratio);
        w.Key("fuzzy");
        w.Bool(r.fuzzy);
        for (auto [key, names] : {std::pair{"names_a", &r.namesA}, {"names_b", &r.namesB}}) {
            if (names->empty()) continue;
            w.Key(key);
            w.StartArray();
            for (const auto& n : *names) w.String(n.c_str());
            w.EndArray();
        }
        w.EndObject();
    }
    w.EndArray();
    w.Key("split");
    w.StartObject();
    w.Key("parts");
    w.StartArray();
    for (const auto& p : d.split) {
        w.StartObject();
        kv(w, "key", p.key);
        kv(w, "label", p.label);
        kv(w, "a", p.ns[0]);
        kv(w, "b", p.ns[1]);
        kv(w, "delta", p.ns[1] - p.ns[0]);
        w.Key("disjoint");
        w.Bool(p.disjoint);
        w.EndObject();
    }
    w.EndArray();
    w.Key("explains");
    d.splitExplains.empty() ? w.Null() : w.String(d.splitExplains.c_str());
    w.EndObject();
    w.Key("aligned");
    writeAligned(w, d);
    w.Key("attributed_to");
    if (d.attribution.name.empty()) {
        w.Null();
    } else {
        w.StartObject();
        kv(w, "name", d.attribution.name);
        kv(w, "category", d.attribution.category);
        w.Key("user_annotation");
        w.Bool(d.attribution.annotation);
        kv(w, "a_ns", d.attribution.totalNs[0]);
        kv(w, "b_ns", d.attribution.totalNs[1]);
        kv(w, "delta_ns", d.attribution.deltaNs);
        kv(w, "op", d.attribution.op);
        w.EndObject();
    }
    kv(w, "explains", d.explains);
    w.EndObject();
}

std::string sideLine(const analysis::DiffSideInfo& s) {
    std::string line = s.path + " source " + std::to_string(s.sourceId) + " (" + s.label + ")";
    if (s.runId) line += ", run " + std::to_string(*s.runId);
    if (s.step)
        line += ", step " + std::to_string(*s.step);
    else
        line += ", " + std::to_string(s.steps.size()) + " step(s)" +
                (s.warmupSkipped ? " (warm-up left out)" : "");
    return line + ", step " + formatDuration(s.stepNs);
}

void printText(const RunDiff& d, size_t top) {
    std::cout << "A: " << sideLine(d.a) << "\nB: " << sideLine(d.b) << "\n\n"
              << d.explains << "\n\n";
    char line[512];
    std::snprintf(line, sizeof line, "%-32s %12s %12s %12s", "split (per step)", "A", "B", "delta");
    std::cout << line << "\n";
    for (const auto& p : d.split) {
        std::snprintf(line, sizeof line, "%-32s %12s %12s %12s%s", p.label.c_str(),
                      formatDuration(p.ns[0]).c_str(), formatDuration(p.ns[1]).c_str(),
                      formatDuration(p.ns[1] - p.ns[0]).c_str(),
                      p.key == d.splitExplains ? "  <- explains" : "");
        std::cout << line << "\n";
    }
    std::snprintf(line, sizeof line, "\n%-10s %-40s %9s %9s %12s %12s %12s %8s", "class", "op",
                  "calls A", "calls B", "self A", "self B", "delta", "ratio");
    std::cout << line << "\n";
    for (size_t i = 0; i < d.ops.size() && (top == 0 || i < top); ++i) {
        const auto& r = d.ops[i];
        std::string name = r.name + (r.shapes.empty() ? "" : " " + r.shapes);
        if (name.size() > 40) name = name.substr(0, 37) + "...";
        std::snprintf(line, sizeof line, "%-10s %-40s %9.4g %9.4g %12s %12s %12s %8.3g",
                      analysis::opChangeKey(r.change), name.c_str(), r.calls[0], r.calls[1],
                      formatDuration(r.selfNs[0]).c_str(), formatDuration(r.selfNs[1]).c_str(),
                      formatDuration(r.deltaNs).c_str(), r.ratio);
        std::cout << line << "\n";
    }
    const auto& al = d.aligned;
    std::cout << "\nAligned step " << d.a.alignedStep << " of A with step " << d.b.alignedStep
              << " of B: " << al.pairs.size() << " pairs, " << al.inserted.size() << " inserted, "
              << al.deleted.size() << " deleted (" << al.ops[0].size() << " / " << al.ops[1].size()
              << " ops, " << al.seconds * 1e3 << " ms)\n";
}

int runDiff(const Args& args) {
    analysis::RunDiffOptions o;
    const std::string by = args.valueOr("by", "name");
    if (by != "name" && by != "shape") throw CliError{"--by takes name or shape, got '" + by + "'"};
    o.by = by == "shape" ? analysis::DiffGroupBy::Shape : analysis::DiffGroupBy::Name;
    if (auto path = args.value("op-map")) {
        auto m = analysis::NameMap::load(*path);
        if (!m) throw CliError{m.error()};
        o.map = std::move(m.value());
    }
    const size_t top =
        args.has("top") ? static_cast<size_t>(std::max<int64_t>(0, intOption(args, "top"))) : 0;
    const bool stepsGiven = args.has("base-step") || args.has("step");
    DiffSideSpec a = side(args.positional[0]), b;
    if (args.positional.size() > 1)
        b = side(args.positional[1]);
    else
        std::tie(a, b) = sidesOfOne(a, stepsGiven);
    if (args.has("base-step")) a.step = intOption(args, "base-step");
    if (args.has("step")) b.step = intOption(args, "step");
    auto d = analysis::diffRuns(a, b, o);
    if (!d) throw CliError{d.error()};
    if (!args.json) {
        printText(d.value(), top ? top : 20);
        return 0;
    }
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    writeJson(w, d.value(), top, by);
    printJson(buf);
    return 0;
}

TS_CLI_COMMAND("diff", "run against run: op changes, step split and aligned steps of two profiles",
               "A.tscope[:run=N|:source=N] [B.tscope[:run=N|:source=N]] [--base-step S] "
               "[--step S] [--op-map FILE] [--by name|shape] [--top N] [--json]",
               {{"base-step", true, "the step of A (ProfilerStep#S); default: its steady steps"},
                {"step", true, "the step of B; default: its steady steps"},
                {"op-map", true, "name map, lines 'REGEX -> NAME' (NPU vs GPU names)"},
                {"by", true, "rows per op name (default) or per name and input shapes"},
                {"top", true, "only the N largest changes"}},
               &runDiff, 1, 2);

}  // namespace
}  // namespace ts::cli
