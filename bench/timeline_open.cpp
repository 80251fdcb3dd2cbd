// Benchmark: open a 10-million-slice session into the timeline model and compute the
// level-of-detail items of full frames (no drawing). Prints figures; not a test.
//   timeline_open [SESSION] [--slices N]
// The session is generated under /tmp when missing.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <string>

#include "bench/bench_clock.h"
#include "core/timeline/synthetic_trace.h"
#include "core/timeline/timeline_query.h"

using namespace ts::timeline;
using ts::bench::Clock;
using ts::bench::msSince;

static double frameItems(const TimelineModel& m, double t0, double t1, double width,
                         size_t& items) {
    const auto start = Clock::now();
    std::vector<DrawItem> out;
    items = 0;
    for (const auto& track : m.tracks)
        for (const auto& lv : track.levels) {
            out.clear();
            levelItems(lv, t0, t1, (t1 - t0) / width, out);
            items += out.size();
        }
    return msSince(start);
}

int main(int argc, char** argv) {
    std::string path = "/tmp/trainscope_bench_10m.tscope";
    SyntheticTraceSpec spec;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--slices") && i + 1 < argc)
            spec.slices = std::atoll(argv[++i]);
        else
            path = argv[i];
    }
    if (!std::filesystem::exists(path)) {
        std::printf("generating %lld slices into %s ...\n", static_cast<long long>(spec.slices),
                    path.c_str());
        const auto t = Clock::now();
        auto n = writeSyntheticTrace(path, spec);
        if (!n) {
            std::fprintf(stderr, "error: %s\n", n.error().c_str());
            return 1;
        }
        const double ms = msSince(t);
        std::printf("generated %lld slices in %.0f ms (%.2f M slices/s)\n",
                    static_cast<long long>(n.value()), ms, n.value() / ms / 1e3);
    }
    auto open = [&](int threads) {
        const auto t = Clock::now();
        auto m = loadTimelineModel(path, nullptr, threads);
        const double ms = msSince(t);
        if (!m) {
            std::fprintf(stderr, "error: %s\n", m.error().c_str());
            std::exit(1);
        }
        std::printf("open (%d thread%s): %lld slices, %zu tracks in %.0f ms, model %.0f MiB\n",
                    threads, threads > 1 ? "s" : "", static_cast<long long>(m.value()->sliceCount),
                    m.value()->tracks.size(), ms, m.value()->memoryBytes() / 1048576.0);
        return m.value();
    };
    open(1);
    for (int pass = 0; pass < 1; ++pass) {
        auto m = std::make_optional(open(2));
        const TimelineModel& model = **m;
        size_t items = 0;
        const double full = frameItems(model, model.startNs, model.endNs, 1920, items);
        std::printf("LOD items, fully zoomed out: %.2f ms, %zu items\n", full, items);
        const double mid = (model.startNs + model.endNs) / 2.0;
        const double one = frameItems(model, mid, mid + 1e6, 1920, items);
        std::printf("LOD items, 1 ms window: %.2f ms, %zu items\n", one, items);
        std::mt19937_64 rng(1);
        std::vector<double> times;
        for (int i = 0; i < 100; ++i) {
            const double span = (model.endNs - model.startNs) / std::pow(10.0, (rng() % 70) / 10.0);
            const double a =
                model.startNs + (model.endNs - model.startNs - span) * ((rng() % 1000) / 1000.0);
            times.push_back(frameItems(model, a, a + span, 1920, items));
        }
        std::sort(times.begin(), times.end());
        std::printf("LOD items, 100 random windows: p50 %.2f ms, p95 %.2f ms, max %.2f ms\n",
                    times[50], times[94], times.back());
    }
    return 0;
}
