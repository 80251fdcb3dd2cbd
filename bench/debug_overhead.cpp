// Cost of the precision-debugging instrumentation on the MLP (784-256-128-10, batch 64, SGD):
//   1. step time with the overflow check (NaN/Inf count after every op) off and on;
//   2. dumping every op's inputs and outputs: bytes written per second of writer time and
//      the step time it costs.
// Runs alternate off/on several times and keep the best of each, so a noisy neighbour
// does not decide the figure. Usage: debug_overhead [steps=200] [rounds=5] [dataset=synthetic]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/debug/debug_job.h"
#include "core/engine/trainer.h"

namespace {

struct Outcome {
    double msPerStep = 0;
    uint64_t bytes = 0;
    double writeSeconds = 0;
};

Outcome runOnce(int64_t steps, const std::string& dataset, bool overflow,
                const std::string& dumpDir) {
    ts::engine::TrainConfig c;
    c.model = "mlp";
    c.dataset = dataset;
    c.syntheticSamples = 64 * (steps + 1);
    c.batchSize = 64;
    c.lr = 0.05;
    c.seed = 1;
    c.limitSteps = steps;
    c.evalAtEnd = false;
    ts::engine::Trainer t(c);
    if (!t.prepare()) std::exit(1);
    ts::debug::DebugJobOptions o;
    o.overflowCheck = overflow;
    if (!dumpDir.empty())
        o.dumpConfigJson = "{\"dump_path\": \"" + dumpDir + "\", \"file_per\": \"step\"}";
    auto job = ts::debug::DebugJob::attach(o, t, "", 0);
    if (!job) {
        std::fprintf(stderr, "%s\n", job.error().c_str());
        std::exit(1);
    }
    auto r = t.run();
    if (r.status == "failed") {
        std::fprintf(stderr, "run failed: %s\n", r.reason.c_str());
        std::exit(1);
    }
    Outcome out;
    out.msPerStep = r.trainSeconds * 1000.0 / static_cast<double>(r.steps);
    if (job.value()) {
        job.value()->finish(r);
        if (const auto* d = job.value()->dumper()) {
            out.bytes = d->summary().bytes;
            out.writeSeconds = d->summary().writeSeconds;
        }
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    const int64_t steps = argc > 1 ? std::atoll(argv[1]) : 200;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
    const std::string dataset = argc > 3 ? argv[3] : "synthetic";
    double off = 1e30, on = 1e30;
    for (int i = 0; i < rounds; ++i) {
        off = std::min(off, runOnce(steps, dataset, false, "").msPerStep);
        on = std::min(on, runOnce(steps, dataset, true, "").msPerStep);
    }
    std::printf(
        "mlp batch 64, %lld steps x %d rounds (best): step time overflow check off %.3f ms, "
        "on %.3f ms, overhead %+.1f%%\n",
        static_cast<long long>(steps), rounds, off, on, (on / off - 1.0) * 100.0);
    std::fflush(stdout);

    const auto dir = std::filesystem::temp_directory_path() / "ts_bench_dump";
    const int64_t dumpSteps = std::max<int64_t>(1, steps / 10);
    double best = 1e30, bestRate = 0;
    uint64_t bytes = 0;
    for (int i = 0; i < std::max(1, rounds / 2); ++i) {
        std::filesystem::remove_all(dir);
        const Outcome d = runOnce(dumpSteps, dataset, false, dir.string());
        best = std::min(best, d.msPerStep);
        if (d.writeSeconds > 0)
            bestRate = std::max(bestRate, static_cast<double>(d.bytes) / d.writeSeconds);
        bytes = d.bytes;
    }
    std::filesystem::remove_all(dir);
    std::printf(
        "dump of every op (inputs+outputs, file per step), %lld steps: %.1f MB/step, "
        "writer %.0f MB/s, step time %.3f ms (%.1fx the plain step)\n",
        static_cast<long long>(dumpSteps),
        static_cast<double>(bytes) / 1e6 / static_cast<double>(dumpSteps), bestRate / 1e6, best,
        best / off);
    return 0;
}
