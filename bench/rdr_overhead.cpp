// Overhead of the Running Data Recorder on training: the same run (synthetic data, batch 64,
// SGD) without and with RDR attached as TrainingJob attaches it (op order, IR, allocations,
// NaN/Inf scan of op outputs, log tail, fatal-signal handlers). Prints ms/step for each,
// ops/step, and the added time per op. Rounds alternate plain/RDR; the best of each counts.
// Usage: rdr_overhead [steps] [rounds]   (default 60 steps, 3 rounds)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/debug/rdr/rdr_run.h"
#include "core/engine/trainer.h"

namespace {

struct Timing {
    double msPerStep = 1e30;
    double opsPerStep = 0;
};

struct OpCounter : ts::engine::OpObserver {
    long ops = 0;
    void onOpBegin(ts::engine::OpEvent&) override { ++ops; }
};

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
    if (!rdrConfig.empty()) {
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

}  // namespace

int main(int argc, char** argv) {
    const long steps = argc > 1 ? std::atol(argv[1]) : 60;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
    const auto dir = std::filesystem::temp_directory_path() / "trainscope_rdr_bench";
    std::filesystem::create_directories(dir);
    const std::string cfg = (dir / "rdr.json").string();
    std::ofstream(cfg) << R"({"rdr": {"enable": true, "mode": 1, "path": ")" << dir.string()
                       << "\"}}\n";
    for (const char* model : {"mlp", "lenet5"}) {
        Timing plain, withRdr;
        for (int r = 0; r < rounds; ++r) {
            runOnce(model, steps, "", plain);
            runOnce(model, steps, cfg, withRdr);
        }
        const double perOpUs =
            (withRdr.msPerStep - plain.msPerStep) * 1000.0 / plain.opsPerStep;
        std::printf(
            "rdr overhead %-7s steps=%ld ops/step=%.0f plain=%.3f ms/step rdr=%.3f ms/step "
            "(+%.1f%%) added=%.2f us/op\n",
            model, steps, plain.opsPerStep, plain.msPerStep, withRdr.msPerStep,
            100.0 * (withRdr.msPerStep / plain.msPerStep - 1.0), perOpUs);
        std::fflush(stdout);
    }
    std::filesystem::remove_all(dir);
    return 0;
}
