// Cost of the precision-debugging instrumentation on the MLP (784-256-128-10, batch 64, SGD):
//   1. step time with the overflow check (NaN/Inf count after every op) off and on. Within
//      ONE run the check is attached on odd steps and detached on even ones, so a noisy
//      neighbour slows both kinds of step alike; medians of each kind are compared. An
//      observer that does nothing is measured the same way (the dispatcher's own cost).
//   2. dumping every op's inputs and outputs: bytes written per second of writer time and
//      the step time it costs (best of a few runs).
// Step times are the training thread's CPU time (CLOCK_THREAD_CPUTIME_ID), which other
// processes on a shared machine do not inflate; run with OPENBLAS_NUM_THREADS=1 so all of a
// step's work is on that thread.
// Usage: OPENBLAS_NUM_THREADS=1 debug_overhead [steps=400] [dataset=synthetic]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_clock.h"
#include "core/debug/debug_job.h"
#include "core/engine/train/trainer.h"

using ts::bench::threadCpuMs;

using ts::bench::median;

namespace {

ts::engine::TrainConfig mlp(int64_t steps, const std::string& dataset) {
    ts::engine::TrainConfig c;
    c.model = "mlp";
    c.dataset = dataset;
    c.syntheticSamples = 64 * (steps + 1);
    c.batchSize = 64;
    c.lr = 0.05;
    c.seed = 1;
    c.limitSteps = steps;
    c.evalAtEnd = false;
    return c;
}

// Attaches `obs` on odd steps, detaches it on even ones, and times every step.
struct Alternate final : ts::engine::Callback {
    ts::engine::Dispatcher* d = nullptr;
    ts::engine::OpObserver* obs = nullptr;
    double t0 = 0;
    std::vector<double> on, off;
    bool attached = false;
    void stepBegin(ts::engine::RunContext& ctx) override {
        const auto& a = ctx.originalArgs();
        const bool want = a.cur_step_num % 2 == 1;
        if (want && !attached) {
            d->addObserver(obs);
            obs->onStepBegin({a.cur_epoch_num, a.cur_step_num, a.step_in_epoch, 0, 1, false});
        } else if (!want && attached) {
            d->removeObserver(obs);
        }
        attached = want;
        t0 = threadCpuMs();
    }
    void stepEnd(ts::engine::RunContext& ctx) override {
        const double ms = threadCpuMs() - t0;
        if (ctx.originalArgs().cur_step_num > 10) (attached ? on : off).push_back(ms);  // warm-up
    }
};

struct NullObserver final : ts::engine::OpObserver {};

// Median step time with `obs` attached on odd steps vs detached on even steps.
std::pair<double, double> interleaved(int64_t steps, const std::string& dataset,
                                      ts::engine::OpObserver* obs) {
    ts::engine::Trainer t(mlp(steps, dataset));
    if (!t.prepare()) std::exit(1);
    auto alt = std::make_shared<Alternate>();
    alt->d = &t.dispatcher();
    alt->obs = obs;
    t.addCallback(alt);
    const auto r = t.run();
    if (r.status == "failed") {
        std::fprintf(stderr, "run failed: %s\n", r.reason.c_str());
        std::exit(1);
    }
    return {median(alt->off), median(alt->on)};
}

}  // namespace

int main(int argc, char** argv) {
    const int64_t steps = argc > 1 ? std::atoll(argv[1]) : 400;
    const std::string dataset = argc > 2 ? argv[2] : "synthetic";

    ts::debug::OverflowObserver check({}, nullptr);
    const auto [off, on] = interleaved(steps, dataset, &check);
    std::printf(
        "mlp batch 64, %lld steps, check on odd steps only (medians): step time overflow "
        "check off %.3f ms, on %.3f ms, overhead %+.1f%% (%llu tensors checked)\n",
        static_cast<long long>(steps), off, on, (on / off - 1.0) * 100.0,
        static_cast<unsigned long long>(check.summary().checkedTensors));
    NullObserver null;
    const auto [off2, on2] = interleaved(steps, dataset, &null);
    std::printf("  an observer doing nothing, same way: off %.3f ms, on %.3f ms, %+.1f%%\n", off2,
                on2, (on2 / off2 - 1.0) * 100.0);
    std::fflush(stdout);

    // Dumping: every op, inputs and outputs, one file per step.
    const auto dir = std::filesystem::temp_directory_path() / "ts_bench_dump";
    const int64_t dumpSteps = std::max<int64_t>(5, steps / 20);
    double bestMs = 1e30, bestRate = 0;
    uint64_t bytes = 0;
    for (int round = 0; round < 3; ++round) {
        std::filesystem::remove_all(dir);
        ts::engine::Trainer t(mlp(dumpSteps, dataset));
        if (!t.prepare()) return 1;
        ts::debug::DebugJobOptions o;
        o.dumpConfigJson = "{\"dump_path\": \"" + dir.string() + "\", \"file_per\": \"step\"}";
        auto job = ts::debug::DebugJob::attach(o, t, "", 0);
        if (!job) {
            std::fprintf(stderr, "%s\n", job.error().c_str());
            return 1;
        }
        auto r = t.run();
        job.value()->finish(r);
        const auto& s = job.value()->dumper()->summary();
        bestMs = std::min(bestMs, r.trainSeconds * 1000.0 / static_cast<double>(r.steps));
        if (s.writeSeconds > 0)
            bestRate = std::max(bestRate, static_cast<double>(s.bytes) / s.writeSeconds);
        bytes = s.bytes;
    }
    std::filesystem::remove_all(dir);
    std::printf(
        "dump of every op (inputs + outputs, file per step), %lld steps: %.1f MB/step, "
        "writer %.0f MB/s, step time %.2f ms (%.1fx the plain step)\n",
        static_cast<long long>(dumpSteps),
        static_cast<double>(bytes) / 1e6 / static_cast<double>(dumpSteps), bestRate / 1e6, bestMs,
        bestMs / off);
    return 0;
}
