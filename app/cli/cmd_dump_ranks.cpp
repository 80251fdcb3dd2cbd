// trainscope-cli dump ranks: several ranks' overflow findings (dumps or sessions) in one
// order — see core/debug/rank_overflow.h and docs/DUMPS.md.
#include <cstdio>
#include <fstream>
#include <map>

#include "app/cli/dump_ranks.h"
#include "core/analysis/diff/name_map.h"
#include "core/debug/dump_scan.h"
#include "core/debug/overflow_store.h"
#include "core/debug/rank_overflow.h"
#include "core/store/sqlite_db.h"
#include "core/store/trace_store.h"

namespace ts::cli {
namespace {

/// The first finding of each run of a session (one rank per run).
void sessionFirsts(const std::string& path, std::vector<debug::RankFirstFinding>& out) {
    auto st = store::TraceStore::open(path, store::TraceStore::Mode::ReadOnly);
    if (!st) throw CliError{path + ": " + st.error()};
    auto runs = st.value()->runs();
    if (!runs) throw CliError{path + ": " + runs.error()};
    auto rows = debug::readOverflowFindings(*st.value(), 0);
    if (!rows) throw CliError{path + ": " + rows.error()};
    std::map<int64_t, const debug::OverflowRecord*> first;
    for (const auto& r : rows.value()) first.emplace(r.runId, &r);
    for (const auto& run : runs.value()) {
        debug::RankFirstFinding f;
        f.rank = debug::rankFromPath(run.name);
        if (f.rank < 0) f.rank = debug::rankFromPath(run.config);
        if (f.rank < 0) f.rank = run.id;
        f.source = path + ":run=" + std::to_string(run.id);
        auto it = first.find(run.id);
        if (it != first.end()) {
            const debug::OverflowRecord& r = *it->second;
            f.found = true;
            f.op = r.op;
            f.path = r.datasetPath().empty() ? r.op + " " + r.tensor : r.datasetPath();
            f.step = r.step;
            f.timeS = r.ts > 0 ? static_cast<double>(r.ts) / 1e9 : NAN;
            f.nan = r.nan, f.posinf = r.posinf, f.neginf = r.neginf;
            f.collective = analysis::isCommunicationName(r.op);
        }
        out.push_back(std::move(f));
    }
}

debug::RankFirstFinding dumpFirst(const std::string& path, int64_t position) {
    auto file = h5::File::open(path);
    if (!file) throw CliError{path + ": " + file.error()};
    debug::RankFirstFinding f;
    f.source = path;
    f.rank = debug::rankFromPath(path);
    if (f.rank < 0 && !file->intAttribute("", "rank", f.rank)) f.rank = position;
    auto rep = debug::scanOverflow(file.value());
    if (!rep) throw CliError{path + ": " + rep.error()};
    if (rep->findings.empty()) return f;
    const auto& x = rep->findings.front();
    f.found = true;
    f.path = x.tensor.path;
    f.op = x.tensor.op.empty() ? x.tensor.path : x.tensor.op;
    f.nan = x.nan, f.posinf = x.posinf, f.neginf = x.neginf;
    f.collective = analysis::isCommunicationName(f.op);
    double t = 0;
    if (file->doubleAttribute(x.tensor.path, "wall_time", t)) f.timeS = t;
    int64_t step = -1;
    if (file->intAttribute(x.tensor.path, "step", step)) f.step = step;
    return f;
}

}  // namespace

int runDumpRanks(const Args& args) {
    if (args.positional.size() < 2) throw CliError{"usage: dump ranks FILE|SESSION..."};
    std::vector<debug::RankFirstFinding> firsts;
    for (size_t k = 1; k < args.positional.size(); ++k) {
        const std::string& p = args.positional[k];
        if (store::isSqliteFile(p))
            sessionFirsts(p, firsts);
        else
            firsts.push_back(dumpFirst(p, static_cast<int64_t>(k - 1)));
    }
    const debug::RankOverflowOrder o = debug::orderRankFindings(std::move(firsts));
    if (!args.json) {
        std::printf("%s\n", o.summary.c_str());
        for (size_t i = 0; i < o.ranks.size(); ++i) {
            const auto& f = o.ranks[i];
            std::printf("%s rank %-4lld t=%-18.6f step %-5lld %-36s %s\n",
                        o.origin && *o.origin == i ? "*" : " ", static_cast<long long>(f.rank),
                        f.timeS, static_cast<long long>(f.step), f.path.c_str(),
                        o.verdicts[i].c_str());
        }
        for (const auto& f : o.clean)
            std::printf("  rank %-4lld clean (%s)\n", static_cast<long long>(f.rank),
                        f.source.c_str());
        return 0;
    }
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.StartObject();
    w.Key("ranks");
    w.StartArray();
    for (size_t i = 0; i < o.ranks.size(); ++i) {
        const auto& f = o.ranks[i];
        w.StartObject();
        kv(w, "rank", f.rank);
        kv(w, "source", f.source);
        kv(w, "path", f.path);
        kv(w, "op", f.op);
        w.Key("step");
        f.step >= 0 ? w.Int64(f.step) : w.Null();
        kv(w, "time", f.timeS);
        kv(w, "nan", static_cast<int64_t>(f.nan));
        kv(w, "posinf", static_cast<int64_t>(f.posinf));
        kv(w, "neginf", static_cast<int64_t>(f.neginf));
        w.Key("collective");
        w.Bool(f.collective);
        kv(w, "verdict", o.verdicts[i]);
        w.EndObject();
    }
    w.EndArray();
    w.Key("clean");
    w.StartArray();
    for (const auto& f : o.clean) {
        w.StartObject();
        kv(w, "rank", f.rank);
        kv(w, "source", f.source);
        w.EndObject();
    }
    w.EndArray();
    w.Key("origin");
    o.origin ? w.Int64(o.ranks[*o.origin].rank) : w.Null();
    w.Key("timed");
    w.Bool(o.timed);
    kv(w, "summary", o.summary);
    w.EndObject();
    printJson(buf);
    return 0;
}

}  // namespace ts::cli
