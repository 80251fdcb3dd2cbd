// Overhead of the Running Data Recorder on training: the same run (synthetic data, batch 64,
// SGD) without and with RDR attached as TrainingJob attaches it (op order, IR, allocations,
// NaN/Inf scan of op outputs, log tail, fatal-signal handlers). Prints ms/step for each,
// ops/step, and the added time per op. Rounds alternate plain/RDR; the best of each counts.
// Also times an empty observer: any observer makes the dispatcher build OpEvents and scope
// names, so "over an empty observer" is what the recorder itself costs.
// First the recorder's own cost per op measured without kernels, and the speed of the
// NaN/Inf scan: these do not drown in the run-to-run noise of a shared machine.
// Usage: rdr_overhead [steps] [rounds]   (default 60 steps, 3 rounds)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/debug/rdr/rdr_observer.h"
#include "core/debug/rdr/rdr_run.h"
#include "core/engine/tensor/dispatcher.h"
#include "core/engine/train/trainer.h"

namespace {

struct Timing {
    double msPerStep = 1e30;
    double opsPerStep = 0;
};

struct OpCounter : ts::engine::OpObserver {
    long ops = 0;
    void onOpBegin(ts::engine::OpEvent&) override { ++ops; }
};

// rdrConfig: "" = no observer; "null" = an observer that does nothing (the dispatcher's
// observed path alone: OpEvents and scope names); else the RDR config file.
void runOnce(const char* model, long steps, const std::string& rdrConfig, Timing& t) {
    ts::engine::TrainConfig c;
    c.model = model;
    c.dataset = "synthetic";
    c.syntheticSamples = 64 * (steps + 1);
    c.batchSize = 64;
    c.lr = 0.01;
    c.limitSteps = steps;
    c.evalAtEnd = false;
    ts::engine::Trainer trainer(c);
    if (!trainer.prepare()) std::exit(1);
    std::unique_ptr<ts::rdr::RdrRun> rdr;
    ts::engine::OpObserver nullObserver;
    if (rdrConfig == "null") {
        trainer.dispatcher().addObserver(&nullObserver);
    } else if (!rdrConfig.empty()) {
        ts::rdr::RdrRunOptions o;
        o.configPath = rdrConfig;
        o.useEnvironment = false;
        auto r = ts::rdr::RdrRun::attach(o, trainer);
        if (!r || !r.value()) std::exit(2);
        rdr = std::move(r.value());
    }
    const auto t0 = std::chrono::steady_clock::now();
    const auto result = trainer.run();
    const auto t1 = std::chrono::steady_clock::now();
    if (result.status != "completed") std::exit(3);
    const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count() / steps;
    if (ms < t.msPerStep) t.msPerStep = ms;
    if (t.opsPerStep == 0) {
        ts::engine::Trainer counted(c);
        OpCounter counter;
        counted.dispatcher().addObserver(&counter);
        counted.run();
        t.opsPerStep = static_cast<double>(counter.ops) / steps;
    }
}

// The recorder's own cost per op, without kernels: an RdrObserver fed OpEvents as the
// dispatcher sends them (a 2-input MatMul-like op with a 1-element output, so no scan
// time), with one allocation and one free per op. Returns ns per op.
double observerNsPerOp(const std::string& rdrConfig, long ops) {
    ts::engine::TrainConfig c;
    c.model = "mlp";
    c.dataset = "synthetic";
    c.syntheticSamples = 64;
    ts::engine::Trainer trainer(c);
    if (!trainer.prepare()) std::exit(1);
    auto cfg = ts::rdr::loadRdrConfig(rdrConfig);
    if (!cfg) std::exit(4);
    ts::rdr::RunningDataRecorder rec;
    rec.configure(cfg.value());
    ts::rdr::RdrObserver obs(rec, trainer);
    obs.onRunBegin(c.toJson());
    obs.onStepBegin({1, 1, 1, 0, 1, false});
    obs.onPhaseBegin(ts::engine::Phase::Forward);
    std::vector<ts::engine::Tensor> inputs = {ts::engine::Tensor::zeros({64, 784}),
                                              ts::engine::Tensor::zeros({256, 784})};
    const std::vector<ts::engine::Tensor> outputs = {ts::engine::Tensor::zeros({1})};
    const std::string scope = "Default/network-WithLossCell/_backbone-MLP/fc1-Dense/MatMul-op";
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < ops; ++i) {
        if (i % 64 == 0) obs.onStepBegin({1, 2 + i / 64, 1, 0, 1, false});
        ts::engine::OpEvent ev;
        ev.opType = "MatMul";
        ev.scopeName = scope + std::to_string(i % 64);
        ev.seqId = i % 64;
        ev.step = 2 + i / 64;
        ev.inputs = &inputs;
        obs.onOpBegin(ev);
        const auto block = static_cast<uintptr_t>(0x10000 + (i % 512) * 64);
        obs.onMemory({true, reinterpret_cast<const void*>(block), 65536, 1 << 20, 1 << 21, false});
        ev.outputs = &outputs;
        obs.onOpEnd(ev);
        obs.onMemory({false, reinterpret_cast<const void*>(block), 65536, 1 << 20, 1 << 21, false});
    }
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(ops);
}

// The NaN/Inf scan of forward outputs, in GB/s over a 1 MiB tensor (cache-resident, as an
// op's output is right after the op).
double scanGBs() {
    const ts::engine::Tensor t = ts::engine::Tensor::zeros({256, 1024});
    double best = 1e30;
    for (int r = 0; r < 500; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        if (!ts::rdr::tensorFinite(t)) std::exit(5);
        const auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
    }
    return static_cast<double>(t.nbytes()) / best / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
    const long steps = argc > 1 ? std::atol(argv[1]) : 60;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
    const auto dir = std::filesystem::temp_directory_path() / "trainscope_rdr_bench";
    std::filesystem::create_directories(dir);
    const std::string cfg = (dir / "rdr.json").string();
    std::ofstream(cfg) << R"({"rdr": {"enable": true, "mode": 1, "path": ")" << dir.string()
                       << "\"}}\n";
    double best = 1e30;
    for (int r = 0; r < 5; ++r) best = std::min(best, observerNsPerOp(cfg, 200000));
    std::printf("rdr per op (observer + recorder, no kernel, 1 alloc + 1 free): %.0f ns/op\n",
                best);
    std::printf("rdr NaN/Inf scan of forward outputs: %.1f GB/s\n", scanGBs());
    for (const char* model : {"mlp", "lenet5"}) {
        Timing plain, observed, withRdr;
        for (int r = 0; r < rounds; ++r) {
            runOnce(model, steps, "", plain);
            runOnce(model, steps, "null", observed);
            runOnce(model, steps, cfg, withRdr);
        }
        const double ops = plain.opsPerStep;
        std::printf(
            "rdr overhead %-7s steps=%ld ops/step=%.0f plain=%.3f ms/step "
            "empty-observer=%.3f ms/step rdr=%.3f ms/step: rdr +%.1f%% over plain, "
            "%.2f us/op over plain, %.2f us/op over an empty observer\n",
            model, steps, ops, plain.msPerStep, observed.msPerStep, withRdr.msPerStep,
            100.0 * (withRdr.msPerStep / plain.msPerStep - 1.0),
            (withRdr.msPerStep - plain.msPerStep) * 1000.0 / ops,
            (withRdr.msPerStep - observed.msPerStep) * 1000.0 / ops);
        std::fflush(stdout);
    }
    std::filesystem::remove_all(dir);
    return 0;
}
