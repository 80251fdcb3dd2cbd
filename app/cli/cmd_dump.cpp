// trainscope-cli dump stats|overflow|compare: statistics, NaN/Inf scan and msaccucmp-like
// comparison of HDF5 tensor dumps (any HDF5 file for stats); `dump overflow SESSION` lists the
// findings training runs recorded with the overflow check.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>

#include "app/cli/command.h"
#include "app/cli/dump_ranks.h"
#include "app/cli/interrupt.h"
#include "core/analysis/diff/name_map.h"
#include "core/common/file_io.h"
#include "core/debug/dump_scan.h"
#include "core/debug/dump_source.h"
#include "core/debug/overflow_store.h"
#include "core/debug/rank_overflow.h"
#include "core/store/sqlite_db.h"
#include "core/store/trace_store.h"

namespace ts::cli {
namespace {

h5::File openH5(const std::string& path) {
    auto f = h5::File::open(path);
    if (!f) throw CliError{f.error()};
    return std::move(f.value());
}

void writeShape(JsonWriter& w, const std::vector<uint64_t>& shape) {
    w.StartArray();
    for (auto d : shape) w.Uint64(d);
    w.EndArray();
}

int runStats(const Args& args) {
    if (args.positional.size() != 2) throw CliError{"usage: dump stats FILE [--path P]"};
    auto file = openH5(args.positional[1]);
    JobControl control;
    CancelOnInterrupt interrupts(&control);
    auto rows = debug::statsAll(file, args.valueOr("path", ""), &control);
    throwIfInterrupted();
    if (!rows) throw CliError{rows.error()};
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.StartObject();
    w.Key("datasets");
    w.StartArray();
    for (const auto& r : rows.value()) {
        w.StartObject();
        kv(w, "path", r.info.path);
        if (!r.error.empty()) {
            if (!r.info.dtype.empty()) kv(w, "dtype", r.info.dtype);
            kv(w, "error", r.error);
            w.EndObject();
            continue;
        }
        const auto& s = *r.stats;
        kv(w, "dtype", r.info.dtype);
        w.Key("shape");
        writeShape(w, r.info.shape);
        kv(w, "count", static_cast<int64_t>(s.count));
        for (auto [k, v] :
             {std::pair{"min", s.min}, {"max", s.max}, {"mean", s.mean}, {"std", s.std}}) {
            w.Key(k);
            if (s.finite > 0)
                finiteOrNull(w, v);
            else
                w.Null();
        }
        kv(w, "nan", static_cast<int64_t>(s.nan));
        kv(w, "posinf", static_cast<int64_t>(s.posinf));
        kv(w, "neginf", static_cast<int64_t>(s.neginf));
        kv(w, "zeros", static_cast<int64_t>(s.zeros));
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    if (args.json) {
        printJson(buf);
        return 0;
    }
    for (const auto& r : rows.value()) {
        if (!r.error.empty()) {
            std::printf("%-40s error: %s\n", r.info.path.c_str(), r.error.c_str());
            continue;
        }
        const auto& s = *r.stats;
        std::printf(
            "%-40s %-8s n=%llu min=%.6g max=%.6g mean=%.6g std=%.6g nan=%llu +inf=%llu -inf=%llu "
            "zeros=%llu\n",
            r.info.path.c_str(), r.info.dtype.c_str(), static_cast<unsigned long long>(s.count),
            s.min, s.max, s.mean, s.std, static_cast<unsigned long long>(s.nan),
            static_cast<unsigned long long>(s.posinf), static_cast<unsigned long long>(s.neginf),
            static_cast<unsigned long long>(s.zeros));
    }
    return 0;
}

// Findings a training run recorded (overflow check) in a session, as `dump overflow` prints
// a dump's, plus step, scope, origin and the overflow dump file holding the tensor.
int runSessionOverflow(const Args& args, const std::string& path) {
    auto st = store::TraceStore::open(path, store::TraceStore::Mode::ReadOnly);
    if (!st) throw CliError{st.error()};
    int64_t runId = 0;
    if (args.has("run")) runId = intOption(args, "run");
    auto rows = debug::readOverflowFindings(*st.value(), runId);
    if (!rows) throw CliError{rows.error()};
    std::map<std::pair<int64_t, int64_t>, std::string> dumpOf;  // (run, step) -> file
    if (auto files = debug::readDumpFiles(*st.value(), runId); files)
        for (const auto& f : files.value())
            if (f.path.find("overflow_step") != std::string::npos)
                dumpOf[{f.runId, f.step}] = f.path;
    if (!args.json) {
        std::printf("order: sequence (execution order of the run)\n");
        for (const auto& r : rows.value())
            std::printf("%srun %lld step %lld %-36s nan=%llu +inf=%llu -inf=%llu %s\n",
                        &r == &rows->front() ? "* " : "  ", static_cast<long long>(r.runId),
                        static_cast<long long>(r.step),
                        (r.datasetPath().empty() ? r.op + " " + r.tensor : r.datasetPath()).c_str(),
                        static_cast<unsigned long long>(r.nan),
                        static_cast<unsigned long long>(r.posinf),
                        static_cast<unsigned long long>(r.neginf), r.scope.c_str());
        return 0;
    }
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.StartObject();
    w.Key("findings");
    w.StartArray();
    for (const auto& r : rows.value()) {
        w.StartObject();
        kv(w, "path", r.datasetPath());
        kv(w, "op", r.op);
        w.Key("seqid");
        if (r.seqid >= 0)
            w.Int64(r.seqid);
        else
            w.Null();
        kv(w, "nan", static_cast<int64_t>(r.nan));
        kv(w, "posinf", static_cast<int64_t>(r.posinf));
        kv(w, "neginf", static_cast<int64_t>(r.neginf));
        kv(w, "run_id", r.runId);
        kv(w, "step", r.step);
        kv(w, "scope", r.scope);
        kv(w, "tensor", r.tensor);
        kv(w, "origin", r.origin);
        auto it = dumpOf.find({r.runId, r.step});
        w.Key("dump_file");
        if (it != dumpOf.end() && r.origin == "op")
            w.String(it->second.c_str());
        else
            w.Null();
        w.EndObject();
    }
    w.EndArray();
    kv(w, "order", std::string("sequence"));
    kv(w, "order_detail", std::string("execution order of the run (step, then op)"));
    w.Key("first");
    if (rows->empty())
        w.Null();
    else
        w.String(
            (rows->front().datasetPath().empty() ? rows->front().op : rows->front().datasetPath())
                .c_str());
    w.EndObject();
    printJson(buf);
    return 0;
}

int runOverflow(const Args& args) {
    if (args.positional.size() != 2) throw CliError{"usage: dump overflow FILE|SESSION [--run N]"};
    if (store::isSqliteFile(args.positional[1]))
        return runSessionOverflow(args, args.positional[1]);
    auto file = openH5(args.positional[1]);
    JobControl control;
    CancelOnInterrupt interrupts(&control);
    auto rep = debug::scanOverflow(file, &control);
    throwIfInterrupted();
    if (!rep) throw CliError{rep.error()};
    if (!args.json) {
        std::printf("order: %s (%s)\n", debug::orderSourceName(rep->order),
                    rep->orderDetail.c_str());
        for (const auto& f : rep->findings)
            std::printf("%s%-40s nan=%llu +inf=%llu -inf=%llu\n",
                        &f == &rep->findings.front() ? "* " : "  ", f.tensor.path.c_str(),
                        static_cast<unsigned long long>(f.nan),
                        static_cast<unsigned long long>(f.posinf),
                        static_cast<unsigned long long>(f.neginf));
        for (const auto& e : rep->errors) std::printf("error: %s\n", e.c_str());
        return 0;
    }
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.StartObject();
    w.Key("findings");
    w.StartArray();
    for (const auto& f : rep->findings) {
        w.StartObject();
        kv(w, "path", f.tensor.path);
        kv(w, "op", f.tensor.op);
        w.Key("seqid");
        if (f.tensor.seqid >= 0)
            w.Int64(f.tensor.seqid);
        else
            w.Null();
        kv(w, "nan", static_cast<int64_t>(f.nan));
        kv(w, "posinf", static_cast<int64_t>(f.posinf));
        kv(w, "neginf", static_cast<int64_t>(f.neginf));
        w.EndObject();
    }
    w.EndArray();
    kv(w, "order", std::string(debug::orderSourceName(rep->order)));
    kv(w, "order_detail", rep->orderDetail);
    w.Key("first");
    if (rep->findings.empty())
        w.Null();
    else
        w.String(rep->findings.front().tensor.path.c_str());
    w.Key("errors");
    w.StartArray();
    for (const auto& e : rep->errors) w.String(e.c_str());
    w.EndArray();
    w.EndObject();
    printJson(buf);
    return 0;
}

int runCompare(const Args& args) {
    if (args.positional.size() != 3)
        throw CliError{"usage: dump compare A B [--cos 0.99] [--max-rel X]"};
    const std::vector<std::string> inputs = {args.positional[1], args.positional[2],
                                             args.valueOr("op-map", "")};
    if (auto csv = args.value("csv"))
        if (auto s = refuseInputAsOutput(*csv, inputs); !s) throw CliError{s.error()};
    debug::CompareThresholds t;
    t.minCosine = numberOption(args, "cos", t.minCosine);
    if (args.has("max-rel")) t.maxRel = numberOption(args, "max-rel", 0);
    if (args.has("max-abs")) t.maxAbs = numberOption(args, "max-abs", 0);
    if (auto v = args.value("rule"); v && !debug::parsePassRule(*v, t.rule))
        throw CliError{"--rule takes cosine or combined, got '" + *v + "'"};
    debug::DumpPairOptions how;
    how.aligned = args.has("align") || args.has("align-by") || args.has("op-map");
    if (auto v = args.value("align-by")) {
        if (*v != "op" && *v != "scope")
            throw CliError{"--align-by takes op or scope, got '" + *v + "'"};
        how.align.key = *v == "scope" ? debug::DumpKey::Scope : debug::DumpKey::Op;
    }
    if (auto v = args.value("op-map")) {
        auto m = analysis::NameMap::load(*v);
        if (!m) throw CliError{m.error()};
        how.align.map = std::move(m.value());
    }
    JobControl control;
    CancelOnInterrupt interrupts(&control);
    // HDF5 dumps and MindSpore dump folders, in any combination (core/debug/dump_source.h).
    auto rep = debug::compareAnyDumps(args.positional[1], args.positional[2], t, how, &control);
    throwIfInterrupted();
    if (!rep) throw CliError{rep.error()};
    if (auto csv = args.value("csv")) {
        if (auto s = writeFileAtomically(*csv, debug::compareCsv(rep.value()), inputs); !s)
            throw CliError{s.error()};
    }
    const std::string first =
        rep->firstDivergent ? rep->pairs[*rep->firstDivergent].tensor.path : "";
    if (!args.json) {
        std::printf("order: %s (%s)\n", debug::orderSourceName(rep->order),
                    rep->orderDetail.c_str());
        for (const auto& p : rep->pairs)
            std::printf(
                "%s%-40s cos=%.9f max_abs=%.6g max_rel=%.6g mean_abs=%.6g rmse=%.6g "
                "nonfinite_mismatch=%llu %s%s\n",
                p.tensor.path == first ? "* " : "  ", p.tensor.path.c_str(), p.figures.cosine,
                p.figures.maxAbs, p.figures.maxRel, p.figures.meanAbs, p.figures.rmse,
                static_cast<unsigned long long>(p.figures.nonfiniteMismatch),
                p.pass ? "pass" : "FAIL", p.error.empty() ? "" : (" (" + p.error + ")").c_str());
        for (const auto& u : rep->unmatchedA) std::printf("unmatched (only in A): %s\n", u.c_str());
        for (const auto& u : rep->unmatchedB) std::printf("unmatched (only in B): %s\n", u.c_str());
        std::printf("first divergent: %s\n", first.empty() ? "(none)" : first.c_str());
        const auto& rc = rep->rootCause;
        if (rc.unit)
            std::printf("root cause: %s (inputs agree, an output disagrees)\n",
                        rep->unitNamesA[*rc.unit].c_str());
        else if (!rc.note.empty())
            std::printf("root cause: none: %s\n", rc.note.c_str());
        return 0;
    }
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.StartObject();
    w.Key("pairs");
    w.StartArray();
    for (const auto& p : rep->pairs) {
        w.StartObject();
        kv(w, "path", p.tensor.path);
        // Figures exist only for pairs that were read and have one shape; else null.
        const bool figures = p.error.empty();
        for (auto [k, v] : {std::pair{"cosine", p.figures.cosine},
                            {"max_abs", p.figures.maxAbs},
                            {"max_rel", p.figures.maxRel},
                            {"mean_abs", p.figures.meanAbs},
                            {"rmse", p.figures.rmse}}) {
            w.Key(k);
            if (figures && p.figures.finitePairs > 0)
                finiteOrNull(w, v);
            else
                w.Null();
        }
        kv(w, "nonfinite_mismatch", static_cast<int64_t>(p.figures.nonfiniteMismatch));
        kv(w, "finite_pairs", static_cast<int64_t>(p.figures.finitePairs));
        w.Key("pass");
        w.Bool(p.pass);
        w.Key("shape_match");
        w.Bool(p.shapeMatch);
        w.Key("dtype_match");
        w.Bool(p.dtypeMatch);
        if (!p.error.empty()) kv(w, "error", p.error);
        for (auto [k, v] : {std::pair{"share_1e-3", p.figures.share1e3()},
                            {"share_5e-3", p.figures.share5e3()}}) {
            w.Key(k);
            if (figures && p.figures.finitePairs > 0)
                finiteOrNull(w, v);
            else
                w.Null();
        }
        w.Key("pass_ratios");
        w.Bool(p.passRatios);
        kv(w, "path_b", p.pathB);
        kv(w, "op", rep->unitNamesA[p.unit]);
        w.EndObject();
    }
    w.EndArray();
    kv(w, "rule", std::string(debug::passRuleName(t.rule)));
    kv(w, "pairing", rep->pairing);
    kv(w, "units", rep->units);
    kv(w, "fuzzy_units", rep->fuzzyUnits);
    writeRootCause(w, rep.value());
    w.Key("first_divergent");
    if (first.empty())
        w.Null();
    else
        w.String(first.c_str());
    w.Key("unmatched");
    w.StartArray();
    for (const auto& u : rep->unmatchedA) w.String(u.c_str());
    for (const auto& u : rep->unmatchedB) w.String(u.c_str());
    w.EndArray();
    kv(w, "order", std::string(debug::orderSourceName(rep->order)));
    kv(w, "order_detail", rep->orderDetail);
    w.EndObject();
    printJson(buf);
    return 0;
}

int runDump(const Args& args) {
    const std::string sub = args.positional.empty() ? "" : args.positional[0];
    if (sub == "stats") return runStats(args);
    if (sub == "overflow") return runOverflow(args);
    if (sub == "compare") return runCompare(args);
    if (sub == "ranks") return runDumpRanks(args);
    throw CliError{"unknown dump sub-command \"" + sub + "\" (stats, overflow, compare, ranks)"};
}

}  // namespace

TS_CLI_COMMAND(
    "dump",
    "HDF5 tensor dumps: stats, overflow (NaN/Inf) scan, compare two dumps, ranks' "
    "overflow order",
    "stats FILE [--path P] | overflow FILE|SESSION [--run N] | compare A B [--cos 0.99] "
    "[--max-rel X] [--max-abs X] [--rule cosine|combined] [--align] [--align-by "
    "op|scope] [--op-map FILE] [--csv OUT] | ranks FILE|SESSION...",
    {{"path", true, "only this dataset (stats)"},
     {"run", true, "only this run's findings (overflow on a session)"},
     {"cos", true, "minimum cosine similarity to pass (compare, default 0.99)"},
     {"max-rel", true, "maximum relative error to pass (compare)"},
     {"max-abs", true, "maximum absolute error to pass (compare)"},
     {"csv", true, "also write the comparison as CSV to this file (compare)"},
     {"rule", true, "pass rule: cosine (default) or combined (+ shares within 0.1/0.5 %)"},
     {"align", false, "pair ops by aligning their names in order, not by path (compare)"},
     {"align-by", true, "align by op name (default) or by the layer in the scope"},
     {"op-map", true, "name map for the alignment, lines 'REGEX -> NAME' (compare)"}},
    runDump, 2, -1);

}  // namespace ts::cli
