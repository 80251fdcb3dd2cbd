// Training throughput of the engine on Fashion-MNIST, as bench/peer_torch_train.py (MLP,
// LeNet-5) and bench/peer_torch_models.py (ResNet-8, ShuffleNet V2) measure PyTorch: batch 64,
// SGD lr 0.05 momentum 0.9, pixels/255, shuffled every epoch, the last partial batch dropped.
// Prints samples/s over the training loop only (data batching, forward, backward, optimizer
// step; not the evaluation) and the test accuracy after the run.
// Usage: train_throughput [mlp|lenet5|resnet8|shufflenetv2|all] [epochs] [limit_steps] [seed]
// ("all": the MLP and LeNet-5). bench/run_train_bench.sh and bench/run_models_bench.sh run it
// beside the PyTorch peers and print both.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/engine/tensor/parallel.h"
#include "core/engine/train/trainer.h"

int main(int argc, char** argv) {
    const std::string which = argc > 1 ? argv[1] : "all";
    const int epochs = argc > 2 ? std::atoi(argv[2]) : 1;
    const long limit = argc > 3 ? std::atol(argv[3]) : 0;
    const unsigned long seed = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 1;
    const std::vector<std::string> models = which == "all"
                                                ? std::vector<std::string>{"mlp", "lenet5"}
                                                : std::vector<std::string>{which};
    for (const std::string& model : models) {
        ts::engine::TrainConfig c;
        c.model = model;
        c.dataset = "fashion-mnist";
        c.epochs = epochs;
        c.batchSize = 64;
        c.optimizer = "sgd";
        c.lr = 0.05;
        c.momentum = 0.9;
        c.seed = seed;
        c.limitSteps = limit;
        ts::engine::Trainer t(c);
        const auto r = t.run();
        if (r.status == "failed") {
            std::fprintf(stderr, "%s: %s\n", model.c_str(), r.reason.c_str());
            return 1;
        }
        std::printf(
            "trainscope %-12s seed=%lu epochs=%d steps=%lld threads=%d samples/s=%.0f "
            "train_s=%.2f final_loss=%.4f test_acc=%.4f\n",
            model.c_str(), seed, r.epochs, static_cast<long long>(r.steps),
            ts::engine::intraOpThreads(), r.samplesPerS, r.trainSeconds, r.finalLoss,
            r.eval.count("accuracy") ? r.eval.at("accuracy") : -1.0);
        if (std::getenv("TS_POOL_STATS")) {
            const auto s = ts::engine::poolStats();
            std::fprintf(
                stderr, "pool: %lld split, %lld backed off, %lld busy, %lld worker parts\n",
                static_cast<long long>(s.splitRuns), static_cast<long long>(s.backedOffRuns),
                static_cast<long long>(s.busyRuns), static_cast<long long>(s.workerParts));
        }
        std::fflush(stdout);
    }
    return 0;
}
