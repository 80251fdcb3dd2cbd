// Benchmark: a cluster of RANKS Kineto-style rank traces of EVENTS events each (a synchronous
// data-parallel job: ProfilerStep#N, nested cpu_ops with args, c10d::allreduce_ and
// gloo:all_reduce on gloo's thread, one rank slow), imported with the importer the CLI uses
// into a session per rank on 1 and on 2 threads, then summarised (read every rank's slices,
// measure every step, find the stragglers) on 1 and 2 threads. Prints figures; not a test.
//   cluster_import [RANKS=64] [EVENTS=200000] [DIR=/tmp/trainscope-bench-cluster]
// The traces are generated once into DIR/traces and reused.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "bench/rank_trace_gen.h"
#include "core/analysis/cluster/cluster_analysis.h"
#include "core/analysis/cluster/cluster_import.h"
#include "core/store/trace_store.h"
#include "importers/registry.h"

namespace fs = std::filesystem;
using bench_cluster::Clock;
using bench_cluster::secondsSince;
using bench_cluster::traces;

namespace {

std::vector<std::string> import(const std::vector<std::string>& files, const fs::path& dir,
                                int threads, int64_t events) {
    fs::remove_all(dir);
    const auto t = Clock::now();
    std::vector<std::vector<std::string>> groups;
    for (const auto& f : files) groups.push_back({f});
    auto r = ts::analysis::importRankTraces(
        groups, dir.string(), threads,
        [](const std::string& file, ts::store::TraceStore& s, ts::JobControl& jc) -> ts::Status {
            const auto rep = ts::importers::importFile(file, s, jc);
            if (rep.status != ts::store::SourceStatus::Complete)
                return ts::Error{std::string(ts::store::statusName(rep.status)) + ": " + rep.error};
            return {};
        });
    const double sec = secondsSince(t);
    if (!r) {
        std::fprintf(stderr, "import failed: %s\n", r.error().c_str());
        std::exit(1);
    }
    const double all = static_cast<double>(events) * static_cast<double>(files.size());
    std::printf("import on %d thread(s): %6.2f s  (%.2f M events/s)\n", threads, sec,
                all / sec / 1e6);
    return r.value();
}

void summarise(const std::vector<std::string>& sessions, int threads) {
    const auto t = Clock::now();
    auto s = ts::analysis::analyzeClusterPaths(sessions, threads, nullptr,
                                               ts::analysis::RankSummaries::Ignore);
    const double sec = secondsSince(t);
    if (!s) {
        std::fprintf(stderr, "summary failed: %s\n", s.error().c_str());
        std::exit(1);
    }
    int64_t slices = 0;
    for (const auto& r : s.value().ranks) slices += r.slices;
    std::printf(
        "summary on %d thread(s): %6.2f s  (%.1f M slices read; %zu ranks x %zu steps, slowest "
        "rank %lld, %zu straggler steps)\n",
        threads, sec, slices / 1e6, s.value().rankCount(), s.value().stepCount(),
        static_cast<long long>(s.value().slowestRank.value_or(-1)), s.value().stragglers.size());
}

}  // namespace

int main(int argc, char** argv) {
    const int ranks = argc > 1 ? std::atoi(argv[1]) : 64;
    const int64_t events = argc > 2 ? std::atoll(argv[2]) : 200'000;
    const fs::path dir = argc > 3 ? fs::path(argv[3]) : fs::path("/tmp/trainscope-bench-cluster");
    std::printf("cores: %u\n", std::thread::hardware_concurrency());
    const auto files = traces(dir, ranks, events);
    import(files, dir / "sessions-1", 1, events);
    const auto sessions = import(files, dir / "sessions-2", 2, events);
    summarise(sessions, 1);
    summarise(sessions, 2);
    return 0;
}
