// The one-group Conv2D kernels of LeNet-5, ResNet-8 and ShuffleNet V2 x0.5 (batch 64), each run by
// the engine's own kernels (cpu_conv.cpp) and by oneDNN (conv_dnnl.h) in the same process,
// alternating: the median time per call of the forward, the filter gradient and the input
// gradient, and oneDNN's speed-up. The measurement behind TRAINSCOPE_CONV=auto's rule
// (docs/ENGINE.md, "CPU kernels and threads"; docs/PERFORMANCE.md).
// Usage: conv_kernels [reps]   (threads: TS_NUM_THREADS, else the engine's default)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "bench/bench_clock.h"
#include "core/engine/ops/conv_dnnl.h"
#include "core/engine/ops/cpu_kernels.h"
#include "core/engine/tensor/parallel.h"

using namespace ts::engine;

using ts::bench::median;

namespace {

struct Layer {
    const char* name;
    int64_t c, h, o, k;
    int stride, pad;
};

Tensor randomTensor(const Shape& shape, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    Tensor t = Tensor::empty(shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.f32()[i] = u(rng);
    return t;
}

}  // namespace

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 21;
    if (!dnnlconv::built()) {
        std::printf("built without oneDNN (TRAINSCOPE_WITH_DNNL; apt-get install libdnnl-dev)\n");
        return 0;
    }
    const int64_t N = 64;
    const std::vector<Layer> layers{
        {"lenet5 conv1 1->6 5x5 28x28", 1, 28, 6, 5, 1, 2},
        {"lenet5 conv2 6->16 5x5 14x14", 6, 14, 16, 5, 1, 0},
        {"resnet8 conv1 1->16 28x28", 1, 28, 16, 3, 1, 1},
        {"resnet8 layer1 16->16 28x28", 16, 28, 16, 3, 1, 1},
        {"resnet8 layer2 16->32 s2", 16, 28, 32, 3, 2, 1},
        {"resnet8 layer2 32->32 14x14", 32, 14, 32, 3, 1, 1},
        {"resnet8 layer2 shortcut 1x1 s2", 16, 28, 32, 1, 2, 0},
        {"resnet8 layer3 32->64 s2", 32, 14, 64, 3, 2, 1},
        {"resnet8 layer3 64->64 7x7", 64, 7, 64, 3, 1, 1},
        {"resnet8 layer3 shortcut 1x1 s2", 32, 14, 64, 1, 2, 0},
        {"shufflenet conv1 1->24 32x32", 1, 32, 24, 3, 1, 1},
        {"shufflenet 1x1 24->24 32x32", 24, 32, 24, 1, 1, 0},
        {"shufflenet 1x1 24->24 16x16", 24, 16, 24, 1, 1, 0},
        {"shufflenet 1x1 48->48 8x8", 48, 8, 48, 1, 1, 0},
        {"shufflenet 1x1 96->96 4x4", 96, 4, 96, 1, 1, 0},
        {"shufflenet conv5 192->1024 4x4", 192, 4, 1024, 1, 1, 0},
    };
    std::printf("threads=%d reps=%d batch=%lld; median us per call, engine / oneDNN (speed-up)\n",
                intraOpThreads(), reps, static_cast<long long>(N));
    std::printf("%-32s %24s %24s %24s  %s\n", "layer", "Conv2D", "BackpropFilter", "BackpropInput",
                "oneDNN kernel");
    double total[2] = {0, 0};
    for (const Layer& l : layers) {
        const Tensor x = randomTensor({N, l.c, l.h, l.h}, 1);
        const Tensor w = randomTensor({l.o, l.c, l.k, l.k}, 2);
        const Tensor bias;
        ops::Conv2dOptions opt;
        opt.strideH = opt.strideW = l.stride;
        opt.padH = opt.padW = l.pad;
        const detail::ConvGeom g = detail::convGeometry("Conv2D", x, w, opt);
        const Tensor dy = randomTensor({N, l.o, g.OH, g.OW}, 3);
        std::vector<double> t[3][2];
        for (int r = 0; r < reps + 2; ++r)
            for (int m = 0; m < 2; ++m) {
                dnnlconv::setMode(m == 0 ? dnnlconv::Mode::Engine : dnnlconv::Mode::Dnnl);
                for (int k = 0; k < 3; ++k) {
                    const auto t0 = ts::bench::Clock::now();
                    if (k == 0) cpu::conv2d(x, w, bias, g);
                    if (k == 1) cpu::conv2dFilter(dy, x, g);
                    if (k == 2) cpu::conv2dInput(dy, w, g);
                    if (r >= 2) t[k][m].push_back(ts::bench::msSince(t0) * 1e3);  // 2 warm-ups
                }
            }
        std::printf("%-32s", l.name);
        for (int k = 0; k < 3; ++k) {
            const double e = median(t[k][0]), d = median(t[k][1]);
            total[0] += e;
            total[1] += d;
            std::printf(" %9.0f / %6.0f (%4.2fx)", e, d, e / d);
        }
        std::printf("  %s\n", dnnlconv::forwardImplementation(g, false).c_str());
    }
    std::printf("all layers once: engine %.0f us, oneDNN %.0f us (%.2fx)\n", total[0], total[1],
                total[0] / total[1]);
    return 0;
}
