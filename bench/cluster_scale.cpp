// Benchmark: what one rank of a large job costs, and the cluster read from per-rank summaries
// against the cluster read from every slice (docs/DISTRIBUTED.md, "A 1,024-rank job").
//   1. One big rank: a Kineto-style trace of BIG_EVENTS events (~140 bytes an event: 1.4 M
//      events ~ 200 MB) imported into its own session (MB/s, peak RSS), its summary computed
//      from its slices (time) and stored (bytes), the session's size on disk.
//   2. RANKS small ranks of EVENTS events imported in parallel (importRankTraces, which
//      stores each rank's summary), then the cluster from the summaries and from the slices,
//      both on 2 threads, 3 runs each; the two summaries compared (their JSON).
// Prints figures; not a test.
//   cluster_scale [RANKS=128] [EVENTS=20000] [BIG_EVENTS=1400000] [DIR=/tmp/trainscope-bench-scale]
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "bench/rank_trace_gen.h"
#include "core/analysis/cluster/cluster_analysis.h"
#include "core/analysis/cluster/cluster_import.h"
#include "core/analysis/cluster/cluster_json.h"
#include "core/analysis/cluster/rank_summary.h"
#include "core/store/trace_store.h"
#include "importers/registry.h"

namespace fs = std::filesystem;
using bench_cluster::Clock;
using bench_cluster::secondsSince;
using ts::analysis::RankSummaries;

namespace {

/// CPU seconds of the process, every thread.
double cpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    auto sec = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return sec(u.ru_utime) + sec(u.ru_stime);
}

double peakRssMb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "%s\n", what.c_str());
    std::exit(1);
}

ts::Status importOne(const std::string& file, ts::store::TraceStore& s, ts::JobControl& jc) {
    const auto rep = ts::importers::importFile(file, s, jc);
    if (rep.status != ts::store::SourceStatus::Complete)
        return ts::Error{std::string(ts::store::statusName(rep.status)) + ": " + rep.error};
    return {};
}

void bigRank(const fs::path& dir, int64_t events) {
    const auto files = bench_cluster::traces(dir, 1, events);
    const double mb = static_cast<double>(fs::file_size(files.front())) / 1e6;
    const fs::path session = dir / "big.tscope";
    fs::remove(session);
    fs::remove(session.string() + "-wal");
    auto store = ts::store::TraceStore::open(session.string(), ts::store::TraceStore::Mode::Create);
    if (!store) fail(store.error());
    ts::JobControl jc;
    auto t = Clock::now();
    double cpu = cpuSeconds();
    if (auto st = importOne(files.front(), *store.value(), jc); !st) fail(st.error());
    const double importS = secondsSince(t), importCpu = cpuSeconds() - cpu;
    std::printf(
        "one rank: %.0f MB, %lld events imported in %.2f s (%.0f MB/s), %.2f s of CPU; peak RSS "
        "%.0f MB\n",
        mb, static_cast<long long>(events), importS, mb / importS, importCpu, peakRssMb());
    t = Clock::now();
    cpu = cpuSeconds();
    auto n = ts::analysis::summarizeSessionRanks(*store.value(), session.string());
    const double sumS = secondsSince(t), sumCpu = cpuSeconds() - cpu;
    if (!n) fail(n.error());
    auto bytesQuery =
        store.value()->db().queryInt("SELECT COALESCE(sum(length(data)), 0) FROM rank_summaries");
    const int64_t bytes = bytesQuery ? bytesQuery.value() : -1;
    const int64_t steps = events / bench_cluster::kEventsPerStep;
    store.value().reset();
    std::error_code ec;
    const double diskMb = static_cast<double>(fs::file_size(session, ec)) / 1e6;
    std::printf(
        "one rank: summary computed from its slices and stored in %.2f s (%.2f s of CPU); %lld "
        "bytes for %lld steps; session %.0f MB on disk (%.2f x the JSON); peak RSS %.0f MB\n",
        sumS, sumCpu, static_cast<long long>(bytes), static_cast<long long>(steps), diskMb,
        diskMb / mb, peakRssMb());
    // The rank as `cluster` reads it: from its slices, and from its summary.
    for (const auto mode : {RankSummaries::Ignore, RankSummaries::Read}) {
        double best = 1e9;
        for (int run = 0; run < 3; ++run) {
            t = Clock::now();
            auto c = ts::analysis::analyzeClusterPaths({session.string()}, 1, nullptr, mode);
            if (!c) fail(c.error());
            best = std::min(best, secondsSince(t));
        }
        std::printf("one rank: cluster of it from its %-9s %.4f s (best of 3)\n",
                    mode == RankSummaries::Read ? "summary:" : "slices:", best);
    }
}

void cluster(const fs::path& dir, int ranks, int64_t events) {
    const auto files = bench_cluster::traces(dir, ranks, events);
    const fs::path sessionsDir = dir / "sessions";
    fs::remove_all(sessionsDir);
    std::vector<std::vector<std::string>> groups;
    for (const auto& f : files) groups.push_back({f});
    auto t = Clock::now();
    auto sessions = ts::analysis::importRankTraces(groups, sessionsDir.string(), 2, &importOne);
    if (!sessions) fail(sessions.error());
    std::printf("%d ranks imported with their summaries on 2 threads in %.2f s\n", ranks,
                secondsSince(t));
    std::string fromSlices, fromSummaries;
    for (const auto mode : {RankSummaries::Ignore, RankSummaries::Read}) {
        const bool summaries = mode == RankSummaries::Read;
        double best = 1e9, worst = 0;
        for (int run = 0; run < 3; ++run) {
            t = Clock::now();
            auto s = ts::analysis::analyzeClusterPaths(sessions.value(), 2, nullptr, mode);
            const double sec = secondsSince(t);
            if (!s) fail(s.error());
            best = std::min(best, sec);
            worst = std::max(worst, sec);
            if (s.value().ranksFromSummaries != (summaries ? static_cast<size_t>(ranks) : 0))
                fail("ranks read from summaries: " + std::to_string(s.value().ranksFromSummaries));
            (summaries ? fromSummaries : fromSlices) = ts::analysis::clusterSummaryJson(s.value());
        }
        std::printf("cluster of %d ranks from %-9s on 2 threads: %.3f-%.3f s (3 runs)\n", ranks,
                    summaries ? "summaries" : "slices", best, worst);
    }
    std::printf("the two cluster summaries are %s\n",
                fromSlices == fromSummaries ? "identical" : "DIFFERENT");
}

}  // namespace

int main(int argc, char** argv) {
    const int ranks = argc > 1 ? std::atoi(argv[1]) : 128;
    const int64_t events = argc > 2 ? std::atoll(argv[2]) : 20'000;
    const int64_t bigEvents = argc > 3 ? std::atoll(argv[3]) : 1'400'000;
    const fs::path dir = argc > 4 ? fs::path(argv[4]) : fs::path("/tmp/trainscope-bench-scale");
    std::printf("cores: %u\n", std::thread::hardware_concurrency());
    bigRank(dir, bigEvents);
    cluster(dir, ranks, events);
    return 0;
}
