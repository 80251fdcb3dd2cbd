// Where a training step's time goes: runs the engine on Fashion-MNIST (or synthetic data when
// the dataset is not installed) with an OpObserver that sums the wall time of every op by
// type, and the step phases, then prints them sorted. Also measures what the dispatcher costs
// per op with and without an observer attached.
// Usage: train_op_breakdown [mlp|lenet5] [steps] [cpu]
// With "cpu" the figures are the training thread's CPU time (run with TS_NUM_THREADS=1 on a
// busy machine to compare kernels), else wall time.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "core/engine/data/dataset.h"
#include "core/engine/ops/ops.h"
#include "core/engine/tensor/dispatcher.h"
#include "core/engine/train/trainer.h"

using namespace ts::engine;

namespace {

/// The calling thread's CPU time in ns: unlike wall time it does not count time the thread
/// waited for a core, so figures stay comparable on a shared machine (with TS_NUM_THREADS=1).
int64_t threadCpuNs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

struct Timing : OpObserver {
    struct Acc {
        int64_t ns = 0, calls = 0;
    };
    bool cpu = false;
    std::map<std::string, Acc> ops;
    std::map<std::string, Acc> phases;
    int64_t phaseStart = 0, opStart = 0;
    int64_t now() const { return cpu ? threadCpuNs() : Dispatcher::nowNs(); }
    void onOpBegin(OpEvent&) override { opStart = now(); }
    void onOpEnd(const OpEvent& op) override {
        Acc& a = ops[std::string(op.opType)];
        a.ns += now() - opStart;
        ++a.calls;
    }
    void onPhaseBegin(Phase) override { phaseStart = now(); }
    void onPhaseEnd(Phase p) override {
        Acc& a = phases[phaseName(p)];
        a.ns += now() - phaseStart;
        ++a.calls;
    }
};

struct Nothing : OpObserver {};

void print(const char* title, const std::map<std::string, Timing::Acc>& m, int64_t steps) {
    std::vector<std::pair<std::string, Timing::Acc>> v(m.begin(), m.end());
    std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.second.ns > b.second.ns; });
    int64_t total = 0;
    for (auto& [k, a] : v) total += a.ns;
    std::printf("%s (per step, %lld steps)\n", title, static_cast<long long>(steps));
    for (auto& [k, a] : v)
        std::printf(
            "  %-42s %9.1f us  %5.1f%%  x%lld\n", k.c_str(),
            static_cast<double>(a.ns) / 1e3 / static_cast<double>(steps),
            100.0 * static_cast<double>(a.ns) / static_cast<double>(std::max<int64_t>(1, total)),
            static_cast<long long>(a.calls / std::max<int64_t>(1, steps)));
    std::printf("  %-42s %9.1f us\n", "total",
                static_cast<double>(total) / 1e3 / static_cast<double>(steps));
}

double dispatchNs(bool observed) {
    Dispatcher d;
    Nothing obs;
    if (observed) d.addObserver(&obs);
    Dispatcher::install(&d);
    Tensor x = Tensor::full({4}, 1.f);
    constexpr int kOps = 200000;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kOps; ++i) x = ops::relu(x);
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    Dispatcher::install(nullptr);
    return ns / kOps;
}

}  // namespace

int main(int argc, char** argv) {
    TrainConfig c;
    c.model = argc > 1 ? argv[1] : "mlp";
    c.dataset = fashionMnistDir().empty() ? "synthetic" : "fashion-mnist";
    c.syntheticSamples = 60000;
    c.limitSteps = argc > 2 ? std::atol(argv[2]) : 300;
    c.batchSize = 64;
    c.lr = 0.05;
    c.momentum = 0.9;
    c.evalAtEnd = false;
    Trainer t(c);
    Timing timing;
    timing.cpu = argc > 3 && std::string(argv[3]) == "cpu";
    t.dispatcher().addObserver(&timing);
    const TrainResult r = t.run();
    if (r.status == "failed") {
        std::fprintf(stderr, "%s\n", r.reason.c_str());
        return 1;
    }
    std::printf("%s on %s: %lld steps, %.0f samples/s with the timing observer\n", c.model.c_str(),
                c.dataset.c_str(), static_cast<long long>(r.steps), r.samplesPerS);
    print("ops", timing.ops, r.steps);
    print("phases", timing.phases, r.steps);
    std::printf("dispatch of a 4-element ReLU: %.0f ns without an observer, %.0f ns with one\n",
                dispatchNs(false), dispatchNs(true));
    return 0;
}
