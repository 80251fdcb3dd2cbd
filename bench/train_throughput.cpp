// Training throughput of the engine on Fashion-MNIST: MLP 784-256-128-10 and LeNet-5, batch
// 64, SGD lr 0.05 momentum 0.9, pixels/255, one epoch each, then test accuracy. Prints
// samples/s (training loop only). Usage: train_throughput [epochs] [limit_steps]
// With the PyTorch peer: bench/run_train_bench.sh prints both in one run.
#include <cstdio>
#include <cstdlib>

#include "core/engine/trainer.h"

int main(int argc, char** argv) {
    const int epochs = argc > 1 ? std::atoi(argv[1]) : 1;
    const long limit = argc > 2 ? std::atol(argv[2]) : 0;
    for (const char* model : {"mlp", "lenet5"}) {
        ts::engine::TrainConfig c;
        c.model = model;
        c.dataset = "fashion-mnist";
        c.epochs = epochs;
        c.batchSize = 64;
        c.optimizer = "sgd";
        c.lr = 0.05;
        c.momentum = 0.9;
        c.seed = 1;
        c.limitSteps = limit;
        ts::engine::Trainer t(c);
        const auto r = t.run();
        if (r.status == "failed") {
            std::fprintf(stderr, "%s: %s\n", model, r.reason.c_str());
            return 1;
        }
        std::printf(
            "trainscope %-7s epochs=%d steps=%lld samples/s=%.0f train_s=%.2f final_loss=%.4f "
            "test_acc=%.4f\n",
            model, r.epochs, static_cast<long long>(r.steps), r.samplesPerS, r.trainSeconds,
            r.finalLoss, r.eval.count("accuracy") ? r.eval.at("accuracy") : -1.0);
        std::fflush(stdout);
    }
    return 0;
}
