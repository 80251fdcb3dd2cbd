// trainscope-cli cluster PATH...: every rank of a data-parallel job side by side — step
// time (median, p95), compute, communication, overlap and idle per rank, the stragglers
// with their evidence and the slowest rank (docs/DISTRIBUTED.md, "Cluster view").
// PATH: trace files (one rank each; imported in parallel into sessions of their own),
// sessions (one rank, or one per rank their sources carry), folders of rank_<r>.tscope
// files, folders of trace files, msprof-analyze's cluster_analysis_output folder (or its
// cluster_step_trace_time.csv: one rank per "rank" row). With --json each rank of a GPU
// trace also gets HTA's figures and the studio's per-step ones, named apart.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include "app/cli/command.h"
#include "core/analysis/cluster/cluster_analysis.h"
#include "core/analysis/cluster/cluster_import.h"
#include "core/analysis/cluster/cluster_input.h"
#include "core/analysis/cluster/cluster_json.h"
#include "core/analysis/cluster/cluster_op_compare.h"
#include "core/store/sqlite_db.h"
#include "core/store/trace_store.h"
#include "importers/ascend/ascend_files.h"
#include "importers/batch_import.h"
#include "importers/registry.h"

namespace ts::cli {
namespace {

namespace fs = std::filesystem;
using namespace ts::analysis;

bool isRankSession(const std::string& path) {
    return path.ends_with(".tscope") || (store::isSqliteFile(path) && !path.ends_with(".sqlite"));
}

bool isTraceName(const std::string& name) {
    return name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(".gz") ||
           name.ends_with(".zip");
}

/// msprof-analyze's output (a cluster_analysis_output folder, or its
/// cluster_step_trace_time.csv): the files to import into one session of all ranks.
std::vector<std::string> ascendClusterFiles(const std::string& p) {
    const std::string name = fs::path(p).filename().string();
    if (!fs::is_directory(p))
        return importers::ascend::ascendFileKind(name) ==
                       importers::ascend::AscendFile::ClusterStepTraceTime
                   ? std::vector<std::string>{p}
                   : std::vector<std::string>{};
    auto files = importers::ascend::ascendProfilerFiles(p);
    const bool cluster = std::any_of(files.begin(), files.end(), [](const std::string& f) {
        return importers::ascend::ascendFileKind(fs::path(f).filename().string()) ==
               importers::ascend::AscendFile::ClusterStepTraceTime;
    });
    return cluster ? files : std::vector<std::string>{};
}

/// Splits the paths into what the core reads (sessions, rank folders) and trace files;
/// msprof-analyze outputs go to `ascend`.
void classify(const std::vector<std::string>& paths, std::vector<std::string>& sessions,
              std::vector<std::string>& traces, std::vector<std::string>& ascend) {
    for (const std::string& p : paths) {
        if (!fs::exists(p)) throw CliError{p + ": no such file or folder"};
        if (auto files = ascendClusterFiles(p); !files.empty()) {
            ascend.insert(ascend.end(), files.begin(), files.end());
            continue;
        }
        if (fs::is_directory(p)) {
            if (!rankSessionFiles(p).empty()) {
                sessions.push_back(p);
                continue;
            }
            std::vector<std::string> found;
            for (const auto& e : fs::directory_iterator(p))
                if (e.is_regular_file() && isTraceName(e.path().filename().string()))
                    found.push_back(e.path().string());
            if (found.empty())
                throw CliError{p + ": a folder without rank_<r>.tscope files or trace files"};
            std::sort(found.begin(), found.end());
            traces.insert(traces.end(), found.begin(), found.end());
        } else if (isRankSession(p)) {
            sessions.push_back(p);
        } else {
            traces.push_back(p);
        }
    }
}

void printText(const ClusterSummary& s) {
    std::printf("%-6s %-28s %6s %10s %10s %10s %10s %8s %10s %10s %6s\n", "rank", "label", "steps",
                "median ms", "p95 ms", "compute", "comm", "overlap", "idle", "work ms", "strag");
    for (size_t i = 0; i < s.rankCount(); ++i) {
        const auto& r = s.ranks[i];
        const auto& f = s.figures[i];
        std::string label = r.input.label.substr(0, 28);
        std::printf("%-6lld %-28s %6lld %10.3f %10.3f %10.3f %10.3f %7.1f%% %10.3f %10.3f %6lld\n",
                    static_cast<long long>(r.input.rank), label.c_str(),
                    static_cast<long long>(f.steps), f.stepMsMedian, f.stepMsP95, f.computeMs,
                    f.commMs, std::isfinite(f.overlapPct) ? f.overlapPct : 0.0, f.idleMs,
                    f.workMsMedian, static_cast<long long>(f.stragglerSteps));
    }
    std::printf(
        "\ncompute, comm, idle: ms per step (means); work = step - exposed communication\n");
    if (s.slowestRank) std::printf("slowest rank: %lld\n", static_cast<long long>(*s.slowestRank));
    std::printf("stragglers: %zu\n", s.stragglers.size());
    for (const auto& g : s.stragglers)
        std::printf(
            "  rank %lld step %lld: work %.3f ms vs median %.3f ms (step %.3f ms, median %.3f ms;"
            " its wait %.3f ms, the others' %.3f ms)\n",
            static_cast<long long>(g.rank), static_cast<long long>(g.step), g.workMs,
            g.medianWorkMs, g.stepMs, g.medianMs, g.waitMs, g.othersWaitMs);
    std::printf("ranks read from stored summaries: %zu of %zu\n", s.ranksFromSummaries,
                s.rankCount());
    for (const auto& w : s.warnings) std::printf("warning: %s\n", w.c_str());
}

void printOps(const OpComparison& c, bool json, size_t top) {
    if (json) {
        std::printf(",\"ops_vs_median\":{\"rank\":%lld,\"median_rank\":%lld,\"rows\":[",
                    static_cast<long long>(c.rank), static_cast<long long>(c.medianRank));
        for (size_t i = 0; i < std::min(top, c.rows.size()); ++i) {
            const auto& r = c.rows[i];
            rapidjson::StringBuffer b;
            JsonWriter w(b);
            w.SetMaxDecimalPlaces(3);
            w.StartObject();
            kv(w, "name", r.name);
            kv(w, "category", r.category);
            kv(w, "calls_per_step", r.calls);
            kv(w, "self_ms_per_step", r.selfNs / 1e6);
            kv(w, "median_calls_per_step", r.medianCalls);
            kv(w, "median_self_ms_per_step", r.medianSelfNs / 1e6);
            kv(w, "delta_ms_per_step", r.deltaNs() / 1e6);
            w.EndObject();
            std::printf("%s%s", i ? "," : "", b.GetString());
        }
        std::printf("]}");
        return;
    }
    std::printf("\nops of rank %lld against the median rank %lld (self ms per step):\n",
                static_cast<long long>(c.rank), static_cast<long long>(c.medianRank));
    for (size_t i = 0; i < std::min(top, c.rows.size()); ++i) {
        const auto& r = c.rows[i];
        std::printf("  %-40s %10.3f %10.3f %+10.3f\n", r.name.substr(0, 40).c_str(), r.selfNs / 1e6,
                    r.medianSelfNs / 1e6, r.deltaNs() / 1e6);
    }
}

int runCluster(const Args& args) {
    std::vector<std::string> sessions, traces, ascend;
    classify(args.positional, sessions, traces, ascend);
    const int threads =
        std::max(1, static_cast<int>(intOption(args, "threads", std::thread::hardware_concurrency(),
                                               kIntBounds)));
    const auto keep = args.value("keep");
    fs::path dir =
        keep ? fs::path(*keep)
             : fs::temp_directory_path() / ("trainscope-cluster-" + std::to_string(::getpid()));
    struct Cleanup {
        fs::path dir;
        ~Cleanup() {
            std::error_code ec;
            if (!dir.empty()) fs::remove_all(dir, ec);
        }
    } cleanup{keep ? fs::path() : dir};
    std::vector<std::string> paths = sessions;
    if (!ascend.empty()) {  // one session of every rank msprof-analyze measured
        fs::create_directories(dir);
        const std::string session = (dir / "msprof_analyze_cluster.tscope").string();
        auto store = store::TraceStore::open(session, store::TraceStore::Mode::Create);
        if (!store) throw CliError{store.error()};
        JobControl jc;
        const auto batch = importers::importFiles(ascend, *store.value(), jc);
        for (const auto& r : batch.reports)
            if (r.status == store::SourceStatus::Failed)
                throw CliError{r.path + ": " + (r.error.empty() ? "import failed" : r.error)};
        paths.push_back(session);
    }
    if (!traces.empty()) {
        auto imported = importRankTraces(
            groupTracesByRank(traces), dir.string(), threads,
            [](const std::string& file, store::TraceStore& s, JobControl& jc) -> Status {
                const auto r = importers::importFile(file, s, jc);
                if (r.status == store::SourceStatus::Failed ||
                    r.status == store::SourceStatus::Cancelled)
                    return Error{r.error.empty() ? std::string(store::statusName(r.status))
                                                 : r.error};
                return {};
            });
        if (!imported) throw CliError{imported.error()};
        paths.insert(paths.end(), imported.value().begin(), imported.value().end());
    }
    auto summary =
        analyzeClusterPaths(paths, threads, nullptr,
                            args.has("from-slices") ? RankSummaries::Ignore : RankSummaries::Use);
    if (!summary) throw CliError{summary.error()};
    const ClusterSummary& s = summary.value();
    std::optional<OpComparison> ops;
    if (args.has("ops")) {
        const int row = s.rowOfRank(static_cast<int>(intOption(args, "ops", 0, kIntBounds)));
        if (row < 0) throw CliError{"--ops: no rank " + *args.value("ops") + " in this cluster"};
        auto c = compareRankOps(s, static_cast<size_t>(row));
        if (!c) throw CliError{c.error()};
        ops = std::move(c.value());
    }
    const size_t top =
        static_cast<size_t>(std::max(1, static_cast<int>(intOption(args, "top", 15, kIntBounds))));
    if (args.json) {
        std::string json = clusterSummaryJson(s);
        if (ops) {
            json.pop_back();  // the closing brace: the comparison goes inside
            std::fwrite(json.data(), 1, json.size(), stdout);
            printOps(*ops, true, top);
            std::printf("}\n");
        } else {
            std::printf("%s\n", json.c_str());
        }
        return 0;
    }
    printText(s);
    if (ops) printOps(*ops, false, top);
    return 0;
}

TS_CLI_COMMAND("cluster",
               "every rank of a data-parallel job: step time, compute, communication, overlap, "
               "idle, stragglers",
               "PATH... [--threads N] [--keep DIR] [--from-slices] [--ops RANK [--top N]] [--json]",
               {{"threads", true, "threads that import and read ranks (default: the cores)"},
                {"keep", true, "keep the sessions imported from trace files in DIR"},
                {"from-slices", false,
                 "measure every rank from its slices, not from the summaries stored in its "
                 "session"},
                {"ops", true, "op statistics of RANK against the median rank"},
                {"top", true, "rows of --ops (default 15)"}},
               &runCluster, 1, -1);

}  // namespace
}  // namespace ts::cli
