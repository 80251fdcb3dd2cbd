#pragma once
// Kineto-style rank traces of a synchronous data-parallel job for the cluster benchmarks
// (cluster_import, cluster_scale): ProfilerStep#N of ~1,000 events (333 cpu_ops with 2
// children each and args, c10d::allreduce_, gloo:all_reduce on gloo's thread), one rank
// slow every 4th step. Written once into a folder and reused.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace bench_cluster {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

inline constexpr int kSlowRank = 17;
inline constexpr int kEventsPerStep = 1000;

inline double secondsSince(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

/// One rank's trace: steps of ~1,000 events (333 ops with 2 children each, the all-reduce).
inline void writeRank(const fs::path& path, int rank, int ranks, int64_t events) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f) {
        std::perror(path.c_str());
        std::exit(1);
    }
    std::fprintf(f,
                 "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"gloo\", \"rank\": "
                 "%d, \"world_size\": %d}, \"traceEvents\": [\n",
                 rank, ranks);
    std::fprintf(f,
                 "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,"
                 "\"args\":{\"name\":\"python\"}}");
    const int64_t steps = std::max<int64_t>(1, events / kEventsPerStep);
    const double stepUs = 10'000;  // 10 ms a step
    int64_t id = 0;
    uint32_t rnd = 12345u + static_cast<uint32_t>(rank);
    for (int64_t s = 0; s < steps; ++s) {
        const double t0 = 1'000'000.0 + static_cast<double>(s) * stepUs;
        const bool slow = rank == kSlowRank && s % 4 == 0;  // every 4th step
        const double load = slow ? 4'000 : 200;             // data loading outside ops
        std::fprintf(f,
                     ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%lld\","
                     "\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":%.3f}",
                     static_cast<long long>(s + 1), t0, stepUs);
        double t = t0 + load;
        const double compute = 5'000;
        const int ops = (kEventsPerStep - 4) / 3;
        const double opUs = compute / ops;
        for (int o = 0; o < ops; ++o) {
            rnd = rnd * 1103515245u + 12345u;
            const int name = static_cast<int>((rnd >> 8) % 40);
            std::fprintf(f,
                         ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op%d\",\"pid\":1,"
                         "\"tid\":1,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"External id\":%lld}}",
                         name, t, opUs * 0.9, static_cast<long long>(++id));
            for (int c = 0; c < 2; ++c)
                std::fprintf(f,
                             ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::child%d\","
                             "\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"External "
                             "id\":%lld}}",
                             c, t + 0.05 + c * opUs * 0.4, opUs * 0.35,
                             static_cast<long long>(++id));
            t += opUs;
        }
        // The all-reduce: issued at the end of compute, done when the slowest rank gets there.
        const double slowest = t0 + (s % 4 == 0 ? 4'000 : 200) + compute;
        const double end = std::max(t, slowest) + 500;
        std::fprintf(f,
                     ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c10d::allreduce_\",\"pid\":1,"
                     "\"tid\":1,\"ts\":%.3f,\"dur\":5}",
                     t);
        std::fprintf(f,
                     ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"gloo:all_reduce\","
                     "\"pid\":1,\"tid\":2,\"ts\":%.3f,\"dur\":%.3f}",
                     t + 5, end - t - 5);
        std::fprintf(f,
                     ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"Optimizer.step\",\"pid\":1,"
                     "\"tid\":1,\"ts\":%.3f,\"dur\":%.3f}",
                     end + 10, std::min(2'000.0, t0 + stepUs - end - 20));
    }
    std::fprintf(f, "\n]}\n");
    std::fclose(f);
}

inline std::vector<std::string> traces(const fs::path& dir, int ranks, int64_t events) {
    const fs::path tdir = dir / ("traces-" + std::to_string(ranks) + "x" + std::to_string(events));
    fs::create_directories(tdir);
    std::vector<std::string> out;
    const auto t = Clock::now();
    int made = 0;
    for (int r = 0; r < ranks; ++r) {
        const fs::path p = tdir / ("rank" + std::to_string(r) + ".pt.trace.json");
        if (!fs::exists(p)) {
            writeRank(p, r, ranks, events);
            ++made;
        }
        out.push_back(p.string());
    }
    if (made) std::printf("generated %d traces in %.1f s\n", made, secondsSince(t));
    uintmax_t bytes = 0;
    for (const auto& p : out) bytes += fs::file_size(p);
    std::printf("%d rank traces, %.0f MB of JSON in %s\n", ranks, bytes / 1e6, tdir.c_str());
    return out;
}

}  // namespace bench_cluster
