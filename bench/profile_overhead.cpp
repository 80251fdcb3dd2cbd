// Overhead of profiling a training run (issue 7): the MLP (784-256-128-10) on Fashion-MNIST at
// batch 64, SGD, trained the way `trainscope-cli train` does it (TrainingJob), with
//   off      — JobOptions::profile = false (no observer on the dispatcher),
//   window   — profile on, schedule outside the measured steps (observer attached, idle),
//   profiled — profile on, every step recorded with record_shapes and profile_memory.
// Runs of `steps` steps alternate off/window/profiled `rounds` times (so drift hits all
// three alike); the figure per mode is the median over rounds of the mean step time.
// A second part times the op dispatcher alone on a trivial op: ns per op with no observer,
// with the profiler attached but idle, and recording — what "off costs nothing" rests on.
// Usage: profile_overhead [steps=300] [rounds=7] [dataset=fashion-mnist|synthetic]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/engine/dispatcher.h"
#include "core/engine/memory_pool.h"
#include "core/profiler/profiler_observer.h"
#include "core/run/training_job.h"

namespace {

enum class Mode { Off, Window, Profiled };
const char* modeName(Mode m) {
    return m == Mode::Off ? "off" : m == Mode::Window ? "window" : "profiled";
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// Mean step time (ms) of one run of `steps` steps.
double runOnce(Mode mode, int64_t steps, const std::string& dataset, const std::string& dir,
               int index) {
    ts::run::JobOptions o;
    o.train.model = "mlp";
    o.train.dataset = dataset;
    o.train.syntheticSamples = 64 * steps;
    o.train.batchSize = 64;
    o.train.optimizer = "sgd";
    o.train.lr = 0.05;
    o.train.momentum = 0.9;
    o.train.limitSteps = steps;
    o.train.evalAtEnd = false;
    o.sessionPath = dir + "/run" + std::to_string(index) + ".tscope";
    o.profile = mode != Mode::Off;
    o.profiler.schedule = {};
    if (mode == Mode::Window) o.profiler.schedule.skipFirst = steps + 1;  // never reached
    o.profiler.schedule.active = steps;
    o.profiler.schedule.repeat = 1;
    ts::run::TrainingJob job(std::move(o));
    if (auto s = job.prepare(); !s) {
        std::fprintf(stderr, "prepare: %s\n", s.error().c_str());
        std::exit(1);
    }
    const auto r = job.run();
    if (r.status == "failed" || r.steps != steps) {
        std::fprintf(stderr, "run: %s %s\n", r.status.c_str(), r.reason.c_str());
        std::exit(1);
    }
    if (mode == Mode::Profiled && job.profileOutcome().steps != steps) {
        std::fprintf(stderr, "profiled run recorded %lld steps\n",
                     static_cast<long long>(job.profileOutcome().steps));
        std::exit(1);
    }
    return r.trainSeconds * 1e3 / static_cast<double>(r.steps);
}

/// ns per dispatch of a trivial op taking two small tensors.
double dispatchNs(Mode mode, int64_t ops) {
    using namespace ts::engine;
    MemoryPool pool;
    MemoryPool::install(&pool);
    Dispatcher d;
    Dispatcher::install(&d);
    ts::profiler::ProfilerOptions po;
    po.schedule.active = 1;
    po.schedule.repeat = 1;
    if (mode == Mode::Window) po.schedule.skipFirst = 1'000'000;
    ts::profiler::ProfilerObserver obs(po, &pool, 64);
    if (mode != Mode::Off) d.addObserver(&obs);
    const std::vector<Tensor> in = {Tensor::zeros({64, 8}), Tensor::zeros({8})};
    StepInfo info;
    info.step = 1;
    d.beginStep(1, 1);
    obs.onStepBegin(info);
    const auto t0 = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < ops; ++i) {
        auto out =
            d.run("Noop", in, [](std::vector<Tensor>& x) { return std::vector<Tensor>{x[0]}; });
        if (out.size() != 1) std::abort();
    }
    const auto t1 = std::chrono::steady_clock::now();
    obs.onStepEnd(info);
    Dispatcher::install(nullptr);
    MemoryPool::install(nullptr);
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(ops);
}

}  // namespace

int main(int argc, char** argv) {
    const int64_t steps = argc > 1 ? std::atoll(argv[1]) : 300;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
    const std::string dataset = argc > 3 ? argv[3] : "fashion-mnist";
    const auto dir = std::filesystem::temp_directory_path() / "trainscope_profile_overhead";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);

    const Mode modes[] = {Mode::Off, Mode::Window, Mode::Profiled};
    std::vector<double> ms[3];
    runOnce(Mode::Off, std::min<int64_t>(steps, 50), dataset, dir.string(), 999);  // warm caches
    int index = 0;
    for (int r = 0; r < rounds; ++r)
        for (int m = 0; m < 3; ++m) {
            // Rotate the order each round so no mode always runs first.
            const Mode mode = modes[(m + r) % 3];
            ms[static_cast<int>(mode)].push_back(
                runOnce(mode, steps, dataset, dir.string(), index++));
        }
    const double off = median(ms[0]);
    std::printf("MLP 784-256-128-10, %s, batch 64, SGD: %lld steps x %d rounds per mode\n",
                dataset.c_str(), static_cast<long long>(steps), rounds);
    for (int m = 0; m < 3; ++m) {
        const double v = median(ms[m]);
        std::printf("  %-9s median step %.4f ms  (%+.2f%% vs off; runs:", modeName(modes[m]), v,
                    (v / off - 1.0) * 100.0);
        for (double x : ms[m]) std::printf(" %.4f", x);
        std::printf(")\n");
    }

    const int64_t ops = 1'000'000;
    dispatchNs(Mode::Off, ops / 10);  // warm-up
    std::printf("Dispatcher, trivial op (2 inputs), %lld ops per mode:\n",
                static_cast<long long>(ops));
    for (Mode m : modes) std::printf("  %-9s %.1f ns/op\n", modeName(m), dispatchNs(m, ops));
    std::filesystem::remove_all(dir);
    return 0;
}
