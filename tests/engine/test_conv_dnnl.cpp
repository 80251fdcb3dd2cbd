// Conv2D through oneDNN (conv_dnnl.h) against the engine's own kernels: the forward and both
// gradients on a set of geometries, and a short ResNet-8 training whose observers see the same
// ops either way. Skipped when the build has no oneDNN (TRAINSCOPE_WITH_DNNL).
#include <gtest/gtest.h>

#include <cmath>

#include "core/engine/ops/conv_dnnl.h"
#include "core/engine/ops/cpu_kernels.h"
#include "core/engine/tensor/dispatcher.h"
#include "core/engine/tensor/parallel.h"
#include "core/engine/train/callbacks.h"
#include "core/engine/train/trainer.h"
#include "tests/engine/gradcheck_util.h"

using namespace ts::engine;
using detail::ConvGeom;

namespace {

#define SKIP_WITHOUT_DNNL() \
    if (!dnnlconv::built()) \
    GTEST_SKIP() << "built without oneDNN (TRAINSCOPE_WITH_DNNL; apt-get install libdnnl-dev)"

/// Restores the mode and the thread count a test changed.
struct ModeGuard {
    dnnlconv::Mode saved = dnnlconv::mode();
    int threads = intraOpThreads();
    ~ModeGuard() {
        dnnlconv::setMode(saved);
        setIntraOpThreads(threads);
    }
};

/// Largest |a - b| relative to the largest |a| (at least 1).
double relativeError(const Tensor& a, const Tensor& b) {
    EXPECT_EQ(a.shape(), b.shape());
    double diff = 0, scale = 1;
    for (int64_t i = 0; i < a.numel(); ++i) {
        diff = std::max(diff, static_cast<double>(std::fabs(a.f32()[i] - b.f32()[i])));
        scale = std::max(scale, static_cast<double>(std::fabs(a.f32()[i])));
    }
    return diff / scale;
}

bool identical(const Tensor& a, const Tensor& b) {
    return a.shape() == b.shape() &&
           std::equal(a.f32(), a.f32() + a.numel(), b.f32(), b.f32() + b.numel());
}

struct Case {
    int64_t n, c, h, w, o, k;
    int stride, pad;
    bool same = false;
};

struct Results {
    Tensor y, dw, dx;
};

Results runAll(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& dy,
               const ConvGeom& g) {
    return {cpu::conv2d(x, w, bias, g), cpu::conv2dFilter(dy, x, g), cpu::conv2dInput(dy, w, g)};
}

}  // namespace

TEST(ConvDnnl, ForwardAndBothGradientsMatchTheEngineKernels) {
    SKIP_WITHOUT_DNNL();
    ModeGuard guard;
    const std::vector<Case> cases{
        {64, 16, 28, 28, 16, 3, 1, 1},  // ResNet-8's layer1
        {64, 16, 28, 28, 32, 3, 2, 1},  // its stride-2 downsampling
        {64, 32, 14, 14, 32, 3, 1, 1},      {64, 1, 28, 28, 16, 3, 1, 1},  // the stem: one channel
        {1, 3, 7, 7, 4, 3, 1, 1},           {2, 5, 9, 11, 7, 3, 2, 0},     // odd sizes
        {3, 8, 13, 13, 16, 1, 2, 0},     // 1x1 stride 2 (a shortcut)
        {4, 16, 10, 10, 24, 1, 1, 0},    // 1x1 stride 1
        {5, 6, 12, 12, 16, 5, 1, 2},     // LeNet-like: the engine's direct kernels
        {3, 4, 8, 9, 8, 2, 1, 0, true},  // pad 'same' with an even kernel: padding below only
        {7, 12, 15, 15, 20, 3, 2, 1, true},
    };
    for (const int threads : {1, 2}) {
        setIntraOpThreads(threads);
        for (const Case& c : cases) {
            SCOPED_TRACE(::testing::Message()
                         << "threads " << threads << " N" << c.n << " C" << c.c << " " << c.h << "x"
                         << c.w << " O" << c.o << " k" << c.k << " s" << c.stride << " p" << c.pad
                         << (c.same ? " same" : ""));
            const Tensor x = ts::test::randn({c.n, c.c, c.h, c.w}, 1);
            const Tensor w = ts::test::randn({c.o, c.c, c.k, c.k}, 2);
            const Tensor bias = ts::test::randn({c.o}, 3);
            const ConvGeom g =
                detail::convGeometry("Conv2D", x, w, ts::test::convOpt(c.stride, c.pad, 1, c.same));
            const Tensor dy = ts::test::randn({c.n, c.o, g.OH, g.OW}, 4);
            dnnlconv::setMode(dnnlconv::Mode::Engine);
            const Results ref = runAll(x, w, bias, dy, g);
            dnnlconv::setMode(dnnlconv::Mode::Dnnl);
            const Results got = runAll(x, w, bias, dy, g);
            EXPECT_LT(relativeError(ref.y, got.y), 1e-5);
            // the filter gradient sums N*OH*OW products per weight (50,176 for the stem)
            EXPECT_LT(relativeError(ref.dw, got.dw), 5e-5);
            EXPECT_LT(relativeError(ref.dx, got.dx), 1e-5);
            // Without a bias too, and the same bits on a second run.
            EXPECT_LT(relativeError(cpu::conv2d(x, w, Tensor(), g),
                                    [&] {
                                        dnnlconv::setMode(dnnlconv::Mode::Engine);
                                        Tensor r = cpu::conv2d(x, w, Tensor(), g);
                                        dnnlconv::setMode(dnnlconv::Mode::Dnnl);
                                        return r;
                                    }()),
                      1e-5);
            const Results again = runAll(x, w, bias, dy, g);
            EXPECT_TRUE(identical(got.y, again.y));
            EXPECT_TRUE(identical(got.dw, again.dw));
            EXPECT_TRUE(identical(got.dx, again.dx));
        }
    }
}

// The cases above pass trivially if oneDNN declined them all: ResNet-8's 3x3 layers must run
// a oneDNN JIT kernel, and the engine mode none.
TEST(ConvDnnl, ResNetLayersRunOneDnnJitKernels) {
    SKIP_WITHOUT_DNNL();
    ModeGuard guard;
    const ConvGeom g{64, 16, 28, 28, 16, 3, 3, 28, 28, 1, 1, 1, 1};
    const std::string impl = dnnlconv::forwardImplementation(g, false);
    EXPECT_FALSE(impl.empty());
    EXPECT_EQ(impl.find("ref"), std::string::npos) << impl;
    const Tensor x = ts::test::randn({64, 16, 28, 28}, 1), w = ts::test::randn({16, 16, 3, 3}, 2);
    dnnlconv::setMode(dnnlconv::Mode::Auto);
    EXPECT_TRUE(dnnlconv::conv2d(x, w, Tensor(), g).defined());
    dnnlconv::setMode(dnnlconv::Mode::Engine);
    EXPECT_FALSE(dnnlconv::conv2d(x, w, Tensor(), g).defined());
}

namespace {

struct OpNames : OpObserver {
    std::vector<std::string> names;
    void onOpBegin(OpEvent& ev) override { names.push_back(ev.scopeName); }
};

struct Losses : Callback {
    std::vector<double> values;
    void stepEnd(RunContext& ctx) override { values.push_back(ctx.originalArgs().net_outputs); }
};

struct TrainedRun {
    std::vector<std::string> ops;
    std::vector<double> losses;
};

TrainedRun trainResNet8(dnnlconv::Mode m) {
    dnnlconv::setMode(m);
    TrainConfig c;
    c.model = "resnet8";
    c.dataset = "synthetic";
    c.syntheticSamples = 96;
    c.batchSize = 32;
    c.epochs = 1;
    c.lr = 0.05;
    c.seed = 3;
    c.evalLimit = 32;
    Trainer t(c);
    OpNames names;
    t.dispatcher().addObserver(&names);
    auto losses = std::make_shared<Losses>();
    t.addCallback(losses);
    const auto r = t.run();
    EXPECT_EQ(r.status, "completed") << r.reason;
    return {names.names, losses->values};
}

}  // namespace

// Three steps of ResNet-8: the observers see the same ops under the same scopes whichever
// kernels run them, the loss curves agree, and oneDNN's runs are reproducible bit for bit.
TEST(ConvDnnl, ResNet8TrainsWithTheSameOpsAsTheEngineKernels) {
    SKIP_WITHOUT_DNNL();
    ModeGuard guard;
    const TrainedRun viaEngine = trainResNet8(dnnlconv::Mode::Engine);
    const TrainedRun viaDnnl = trainResNet8(dnnlconv::Mode::Dnnl);
    const TrainedRun again = trainResNet8(dnnlconv::Mode::Dnnl);
    ASSERT_EQ(viaEngine.losses.size(), 3u);
    EXPECT_EQ(viaEngine.ops, viaDnnl.ops);
    EXPECT_NE(std::find_if(viaDnnl.ops.begin(), viaDnnl.ops.end(),
                           [](const std::string& s) {
                               return s.find("Conv2DBackpropInput") != std::string::npos;
                           }),
              viaDnnl.ops.end());
    ASSERT_EQ(viaDnnl.losses.size(), viaEngine.losses.size());
    for (size_t i = 0; i < viaEngine.losses.size(); ++i)
        EXPECT_NEAR(viaDnnl.losses[i], viaEngine.losses[i],
                    1e-3 * std::max(1.0, viaEngine.losses[i]));
    EXPECT_EQ(viaDnnl.losses, again.losses);
}
