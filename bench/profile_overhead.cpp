// Overhead of profiling a training run (issue 7): the MLP (784-256-128-10) on Fashion-MNIST at
// batch 64, SGD, trained the way `trainscope-cli train` does it (TrainingJob), with
//   off      — no observer on the dispatcher (JobOptions::profile = false),
//   window   — a profiler attached whose schedule records nothing (outside the window),
//   profiled — a profiler recording every step, record_shapes and profile_memory on.
// The three modes are interleaved step by step in one training run, in a random order (a
// callback switches the dispatcher's observers between steps), so the load of a shared
// machine hits all three alike. A step's time is the interval between consecutive step
// starts (the profiler's own step hooks are inside it), on the wall clock and as CPU time of
// the training thread (not inflated by other processes; with OPENBLAS_NUM_THREADS=1 all of a
// step's work is on that thread); the figures per mode are medians over its steps.
// A second part times the op dispatcher alone on a trivial op, in windows of 20 steps of 32
// ops with a fresh profiler each (scope names repeat per step as in training): ns per op with
// no observer, with the profiler attached but idle, and recording — what "off costs nothing"
// rests on.
// Usage: profile_overhead [steps=3000] [dataset=fashion-mnist|synthetic]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_clock.h"
#include "core/engine/tensor/dispatcher.h"
#include "core/engine/tensor/memory_pool.h"
#include "core/engine/train/callback.h"
#include "core/profiler/profiler_observer.h"
#include "core/run/training_job.h"

using ts::bench::threadCpuMs;

using ts::bench::median;

namespace {

enum class Mode { Off, Window, Profiled };
const char* modeName(Mode m) {
    return m == Mode::Off ? "off" : m == Mode::Window ? "window" : "profiled";
}

/// Step times of one mode: wall clock, and CPU time of the training thread (which a shared
/// machine's other processes do not inflate).
struct Samples {
    std::vector<double> wall, cpu;
};

/// Switches the dispatcher's observers between steps (off: none; window: a profiler whose
/// schedule never records; profiled: a profiler recording every step it sees) in a random
/// order (fixed seed), and files the interval between consecutive step starts (ms)
/// under the mode the step ran in. Switching happens in stepEnd (inside the Callbacks phase,
/// outside any observer loop of the trainer); the profilers tolerate the missed step ends.
class Interleave : public ts::engine::Callback {
public:
    Interleave(ts::engine::Dispatcher& d, ts::engine::OpObserver* idle, ts::engine::OpObserver* rec,
               Samples (&out)[3])
        : m_d(d), m_idle(idle), m_rec(rec), m_out(out) {}
    void stepBegin(ts::engine::RunContext&) override {
        const auto now = std::chrono::steady_clock::now();
        const double cpu = threadCpuMs();
        if (m_started) {
            m_out[m_mode].wall.push_back(
                std::chrono::duration<double, std::milli>(now - m_last).count());
            m_out[m_mode].cpu.push_back(cpu - m_lastCpu);
        }
        m_last = now;
        m_lastCpu = cpu;
        m_started = true;
        m_mode = m_next;
    }
    void stepEnd(ts::engine::RunContext&) override {
        m_next = static_cast<int>(m_rng() % 3);
        m_d.removeObserver(m_idle);
        m_d.removeObserver(m_rec);
        if (m_next == 1) m_d.addObserver(m_idle);
        if (m_next == 2) m_d.addObserver(m_rec);
    }

private:
    ts::engine::Dispatcher& m_d;
    ts::engine::OpObserver* m_idle;
    ts::engine::OpObserver* m_rec;
    Samples (&m_out)[3];
    std::chrono::steady_clock::time_point m_last;
    double m_lastCpu = 0;
    bool m_started = false;
    int m_mode = 2, m_next = 2;  // the first step runs profiled (so the pool listener is set)
    std::mt19937 m_rng{42};      // random order: no mode always follows the same one
};

/// Trains `steps` steps with the modes interleaved step by step; adds step times to `out`.
void runInterleaved(int64_t steps, const std::string& dataset, const std::string& session,
                    Samples (&out)[3]) {
    ts::run::JobOptions o;
    o.train.model = "mlp";
    o.train.dataset = dataset;
    o.train.syntheticSamples = 64 * (steps + 1);
    o.train.batchSize = 64;
    o.train.optimizer = "sgd";
    o.train.lr = 0.05;
    o.train.momentum = 0.9;
    o.train.limitSteps = steps;
    o.train.epochs = static_cast<int>(1 + steps / 900);  // an epoch is 937 batches
    o.train.evalAtEnd = false;
    o.sessionPath = session;
    ts::run::TrainingJob job(std::move(o));
    if (auto s = job.prepare(); !s) {
        std::fprintf(stderr, "prepare: %s\n", s.error().c_str());
        std::exit(1);
    }
    ts::engine::Trainer& t = job.trainer();
    ts::profiler::ProfilerOptions never = ts::profiler::defaultRunProfilerOptions();
    never.schedule.skipFirst = steps + 1;
    ts::profiler::ProfilerOptions all = ts::profiler::defaultRunProfilerOptions();
    all.schedule.active = steps + 1;
    ts::profiler::ProfilerObserver idle(never, &t.memoryPool(), 64);
    ts::profiler::ProfilerObserver rec(all, &t.memoryPool(), 64);
    t.dispatcher().addObserver(&rec);
    t.addCallback(std::make_shared<Interleave>(t.dispatcher(), &idle, &rec, out));
    const auto r = job.run();
    if (r.status == "failed" || r.steps != steps) {
        std::fprintf(stderr, "run: %s %s\n", r.status.c_str(), r.reason.c_str());
        std::exit(1);
    }
    if (rec.recorder().recordedSteps() < steps / 4) {
        std::fprintf(stderr, "profiled steps not recorded\n");
        std::exit(1);
    }
}

/// ns per dispatch of a trivial op taking two small tensors: windows of 20 steps of 32 ops
/// (the default profile window), each with a fresh profiler, repeated to reach `ops` ops.
double dispatchNs(Mode mode, int64_t ops) {
    using namespace ts::engine;
    MemoryPool pool;
    MemoryPool::install(&pool);
    Dispatcher d;
    Dispatcher::install(&d);
    const std::vector<Tensor> in = {Tensor::zeros({64, 8}), Tensor::zeros({8})};
    constexpr int64_t kOpsPerStep = 32, kStepsPerWindow = 20;
    const int64_t windows = std::max<int64_t>(1, ops / (kOpsPerStep * kStepsPerWindow));
    double ns = 0;
    for (int64_t w = 0; w < windows; ++w) {
        ts::profiler::ProfilerOptions po;
        po.schedule.active = kStepsPerWindow;
        po.schedule.repeat = 1;
        if (mode == Mode::Window) po.schedule.skipFirst = kStepsPerWindow;
        auto obs = std::make_unique<ts::profiler::ProfilerObserver>(po, &pool, 64);
        if (mode != Mode::Off) d.addObserver(obs.get());
        const auto t0 = std::chrono::steady_clock::now();
        for (int64_t step = 1; step <= kStepsPerWindow; ++step) {
            StepInfo info;
            info.step = step;
            d.beginStep(1, step);
            if (mode != Mode::Off) obs->onStepBegin(info);
            for (int64_t i = 0; i < kOpsPerStep; ++i) {
                auto out = d.run("Noop", in,
                                 [](std::vector<Tensor>& x) { return std::vector<Tensor>{x[0]}; });
                if (out.size() != 1) std::abort();
            }
            if (mode != Mode::Off) obs->onStepEnd(info);
        }
        ns +=
            std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
        d.removeObserver(obs.get());
    }
    Dispatcher::install(nullptr);
    MemoryPool::install(nullptr);
    return ns / static_cast<double>(windows * kStepsPerWindow * kOpsPerStep);
}

}  // namespace

int main(int argc, char** argv) {
    const int64_t steps = argc > 1 ? std::atoll(argv[1]) : 3000;
    const std::string dataset = argc > 2 ? argv[2] : "fashion-mnist";
    const auto dir = std::filesystem::temp_directory_path() / "trainscope_profile_overhead";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);

    const Mode modes[] = {Mode::Off, Mode::Window, Mode::Profiled};
    Samples ms[3];
    Samples scratch[3];  // a first run warms caches and the page cache of the data
    runInterleaved(std::min<int64_t>(steps, 60), dataset, (dir / "warm.tscope").string(), scratch);
    runInterleaved(steps, dataset, (dir / "run.tscope").string(), ms);
    std::printf(
        "MLP 784-256-128-10, %s, batch 64, SGD: %lld steps, modes interleaved step by "
        "step; median step time (wall clock | training thread CPU)\n",
        dataset.c_str(), static_cast<long long>(steps));
    const double offWall = median(ms[0].wall), offCpu = median(ms[0].cpu);
    for (int m = 0; m < 3; ++m) {
        const double w = median(ms[m].wall), c = median(ms[m].cpu);
        std::printf("  %-9s %zu steps  wall %.4f ms (%+.2f%%)  |  cpu %.4f ms (%+.2f%%)\n",
                    modeName(modes[m]), ms[m].wall.size(), w, (w / offWall - 1.0) * 100.0, c,
                    (c / offCpu - 1.0) * 100.0);
    }

    const int64_t ops = 1'000'000;
    dispatchNs(Mode::Off, ops / 10);  // warm-up
    std::printf(
        "Dispatcher, trivial op (2 inputs), 20 steps x 32 ops per window, %lld ops per "
        "mode:\n",
        static_cast<long long>(ops));
    for (Mode m : modes) std::printf("  %-9s %.1f ns/op\n", modeName(m), dispatchNs(m, ops));
    std::filesystem::remove_all(dir);
    return 0;
}
