// Cell hooks (core/engine/model/hooks.h): a forward hook printing one layer's output statistics
// while the dump and overflow observers run on the same trainer; pre-hooks and forward hooks
// replacing values; backward hooks seeing the gradients autograd computes; removal.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core/debug/dump_config.h"
#include "core/debug/dump_observer.h"
#include "core/debug/overflow_observer.h"
#include "core/engine/model/models.h"
#include "core/engine/train/trainer.h"
#include "tests/common/test_support.h"
#include "tests/engine/gradcheck_util.h"

using namespace ts::engine;
using ts::test::randn;

namespace {

struct Stats {
    double min = 0, max = 0, mean = 0, std = 0;
};
Stats statsOf(const Tensor& t) {
    Stats s{t.f32()[0], t.f32()[0], 0, 0};
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < t.numel(); ++i) {
        const double v = t.f32()[i];
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
        sum += v;
        sq += v * v;
    }
    s.mean = sum / static_cast<double>(t.numel());
    s.std = std::sqrt(std::max(0.0, sq / static_cast<double>(t.numel()) - s.mean * s.mean));
    return s;
}

struct NoSink : ts::debug::OverflowSink {
    void add(const ts::debug::OverflowRecord&) override {}
};

}  // namespace

TEST(Hooks, ForwardHookPrintsLayerStatisticsBesideDumpAndOverflowObservers) {
    const auto dir = ts::test::tempDir("hooks");
    TrainConfig c;
    c.model = "resnet8";
    c.dataset = "synthetic";
    c.syntheticSamples = 64;
    c.batchSize = 16;
    c.limitSteps = 2;
    c.evalLimit = 32;
    Trainer t(c);
    ASSERT_TRUE(t.prepare().ok());
    auto dumpCfg = ts::debug::parseDumpConfig(R"({"dump_path": ")" + (dir / "dump").string() +
                                              R"(", "steps": "2"})");
    ASSERT_TRUE(dumpCfg.ok()) << dumpCfg.error();
    ts::debug::DumpObserver dump(dumpCfg.value());
    ASSERT_TRUE(dump.open().ok());
    NoSink sink;
    ts::debug::OverflowObserver overflow({}, &sink);
    t.dispatcher().addObserver(&dump);
    t.dispatcher().addObserver(&overflow);

    // The seeds' precision chapter: print a module's outputs with a forward hook.
    Cell* layer2 = t.network()->child("layer2");
    ASSERT_NE(layer2, nullptr);
    std::vector<std::string> lines;
    std::string scope;
    Shape shape;
    auto handle =
        layer2->registerForwardHook([&](const HookContext& ctx, const Tensor&, Tensor& out) {
            const Stats s = statsOf(out);
            char line[256];
            std::snprintf(line, sizeof line,
                          "[forward] %s step %lld %s: min %.4f max %.4f mean %.4f std %.4f",
                          ctx.training ? "train" : "eval", static_cast<long long>(ctx.step),
                          shapeString(out.shape()).c_str(), s.min, s.max, s.mean, s.std);
            std::printf("%s\n", line);
            lines.push_back(line);
            scope = ctx.scope;
            if (ctx.training) shape = out.shape();
            EXPECT_GE(s.min, 0.f);  // the block ends with a ReLU
            EXPECT_GT(s.std, 0.0);
        });
    const TrainResult r = t.run();
    ASSERT_EQ(r.status, "completed") << r.reason;
    // Two training steps, then the evaluation's one batch (64 synthetic test samples).
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_NE(lines[0].find("[forward] train step 1"), std::string::npos) << lines[0];
    EXPECT_NE(lines[2].find("[forward] eval"), std::string::npos) << lines[2];
    EXPECT_EQ(shape, (Shape{16, 32, 14, 14}));
    EXPECT_NE(scope.find("_backbone-ResNet8/layer2-BasicBlock"), std::string::npos) << scope;

    // The observers worked as without the hook: step 2 dumped, every output checked.
    const auto& ds = dump.finish();
    ASSERT_EQ(ds.files.size(), 1u);
    EXPECT_TRUE(std::filesystem::exists(ds.files[0].first));
    EXPECT_GT(ds.tensors, 100u);
    EXPECT_TRUE(ds.errors.empty());
    EXPECT_GT(overflow.summary().checkedTensors, 100u);
    EXPECT_EQ(overflow.summary().findings, 0u);

    handle.remove();
    EXPECT_FALSE(handle.active());
    ASSERT_TRUE(t.evaluate().ok());
    EXPECT_EQ(lines.size(), 3u);  // removed: not called again
    handle.remove();              // twice: nothing happens
}

TEST(Hooks, PreHookAndForwardHookReplaceValues) {
    std::mt19937_64 rng(3);
    auto net = std::make_shared<SequentialCell>();
    auto fc = net->append("fc", std::make_shared<Dense>(4, 3, rng));
    NoGradGuard ng;
    const Tensor x = randn({2, 4}, 1);
    const Tensor before = (*net)(x);
    auto pre = fc->registerForwardPreHook(
        [](const HookContext&, Tensor& in) { in = ops::scale(in, 0.f); });
    const Tensor zeroIn = (*net)(x);  // bias only
    pre.remove();
    auto post = fc->registerForwardHook(
        [](const HookContext&, const Tensor&, Tensor& out) { out = ops::scale(out, 2.f); });
    const Tensor doubled = (*net)(x);
    post.remove();
    const Tensor bias = net->parameters()[1].tensor;
    for (int64_t n = 0; n < 2; ++n)
        for (int64_t j = 0; j < 3; ++j) {
            EXPECT_FLOAT_EQ(zeroIn.f32()[n * 3 + j], bias.f32()[j]);
            EXPECT_FLOAT_EQ(doubled.f32()[n * 3 + j], 2.f * before.f32()[n * 3 + j]);
        }
    EXPECT_EQ(net->namedCells().size(), 2u);
    EXPECT_EQ(net->child("fc"), fc.get());
}

TEST(Hooks, BackwardHookSeesInputAndOutputGradients) {
    std::mt19937_64 rng(4);
    auto net = std::make_shared<SequentialCell>();
    auto fc1 = net->append("fc1", std::make_shared<Dense>(4, 3, rng));
    auto fc2 = net->append("fc2", std::make_shared<Dense>(3, 2, rng));
    Tensor gin1, gout1, gin2, gout2;
    int calls1 = 0;
    fc1->registerBackwardHook([&](const HookContext& c, const Tensor& gi, const Tensor& go) {
        ++calls1;
        gin1 = gi;
        gout1 = go;
        EXPECT_EQ(c.scope.substr(c.scope.rfind('/') + 1), "fc1-Dense");
    });
    fc2->registerBackwardHook([&](const HookContext&, const Tensor& gi, const Tensor& go) {
        gin2 = gi;
        gout2 = go;
    });
    Tensor x = randn({5, 4}, 2);  // data: needs no gradient
    Tensor y = (*net)(x);
    Tensor loss = ops::mseLoss(y, randn({5, 2}, 3));
    loss.backward();
    EXPECT_EQ(calls1, 1);
    EXPECT_FALSE(gin1.defined());  // fc1's input is the data
    ASSERT_TRUE(gout1.defined() && gin2.defined() && gout2.defined());
    EXPECT_EQ(gout2.shape(), (Shape{5, 2}));
    // fc2's input gradient is fc1's output gradient: gout2 x W2.
    EXPECT_EQ(gin2.shape(), (Shape{5, 3}));
    const Tensor w2 = net->parameters()[2].tensor;
    for (int64_t n = 0; n < 5; ++n)
        for (int64_t j = 0; j < 3; ++j) {
            float e = 0;
            for (int64_t k = 0; k < 2; ++k) e += gout2.f32()[n * 2 + k] * w2.f32()[k * 3 + j];
            EXPECT_NEAR(gin2.f32()[n * 3 + j], e, 1e-5);
            EXPECT_FLOAT_EQ(gout1.f32()[n * 3 + j], gin2.f32()[n * 3 + j]);
        }
    // The hooks do not change the gradients the parameters get.
    auto plain = std::make_shared<SequentialCell>();
    std::mt19937_64 rng2(4);
    plain->append("fc1", std::make_shared<Dense>(4, 3, rng2));
    plain->append("fc2", std::make_shared<Dense>(3, 2, rng2));
    ops::mseLoss((*plain)(x), randn({5, 2}, 3)).backward();
    const auto a = net->parameters(), b = plain->parameters();
    for (size_t i = 0; i < a.size(); ++i)
        for (int64_t k = 0; k < a[i].tensor.numel(); ++k)
            EXPECT_FLOAT_EQ(a[i].tensor.grad().f32()[k], b[i].tensor.grad().f32()[k]) << a[i].name;
}
