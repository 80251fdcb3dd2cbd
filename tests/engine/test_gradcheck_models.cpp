// Finite-difference gradient checks of the ops ResNet and ShuffleNet need: grouped and
// depthwise Conv2D, the 1x1 fast path, Concat, Split/chunk, Transpose and channel shuffle,
// Pad, global average pooling, broadcasting Add, batch norm on planes the 8-lane sums cover;
// and the autograd of an op with several outputs.
#include <gtest/gtest.h>

#include "core/engine/ops/conv_direct.h"
#include "core/engine/ops/ops.h"
#include "tests/engine/gradcheck_util.h"

using namespace ts::engine;
using ts::test::convOpt;
using ts::test::gradCheck;
using ts::test::randn;

TEST(GradCheck, DepthwiseConv2d) {
    struct Case {
        const char* name;
        Shape x, w;
        ops::Conv2dOptions opt;
        bool bias;
    } cases[] = {
        {"depthwise 3x3 pad 1", {2, 3, 5, 5}, {3, 1, 3, 3}, convOpt(1, 1, 3), false},
        {"depthwise 3x3 stride 2 pad 1 bias", {3, 2, 6, 5}, {2, 1, 3, 3}, convOpt(2, 1, 2), true},
        {"depthwise 3x2 stride 2 same", {1, 2, 7, 6}, {2, 1, 3, 2}, convOpt(2, 0, 2, true), false},
        {"depthwise 5x5 stride 3 no pad", {2, 2, 9, 8}, {2, 1, 5, 5}, convOpt(3, 0, 2), true},
    };
    for (const Case& c : cases) {
        std::vector<Tensor> in{randn(c.x, 50), randn(c.w, 51)};
        if (c.bias) in.push_back(randn({c.w[0]}, 52));
        const ops::Conv2dOptions opt = c.opt;
        const bool bias = c.bias;
        gradCheck(c.name, in, [opt, bias](auto& v) {
            return ops::conv2d(v[0], v[1], bias ? v[2] : Tensor(), opt);
        });
    }
}

TEST(GradCheck, DepthwiseMatchesPerChannelConvolutions) {
    // Each channel of a depthwise convolution is an ordinary one-channel convolution.
    NoGradGuard ng;
    const ops::Conv2dOptions dw = convOpt(2, 1, 4), one = convOpt(2, 1, 1);
    Tensor x = randn({3, 4, 9, 9}, 53), w = randn({4, 1, 3, 3}, 54), b = randn({4}, 55);
    Tensor y = ops::conv2d(x, w, b, dw);
    ASSERT_EQ(y.shape(), (Shape{3, 4, 5, 5}));
    const std::vector<Tensor> xs = ops::chunk(x, 4, 1), ws = ops::chunk(w, 4, 0),
                              bs = ops::chunk(b, 4, 0);
    for (int c = 0; c < 4; ++c) {
        Tensor yc = ops::conv2d(xs[static_cast<size_t>(c)], ws[static_cast<size_t>(c)],
                                bs[static_cast<size_t>(c)], one);
        for (int64_t n = 0; n < 3; ++n)
            for (int64_t i = 0; i < 25; ++i)
                EXPECT_NEAR(y.f32()[(n * 4 + c) * 25 + i], yc.f32()[n * 25 + i], 1e-5);
    }
}

TEST(GradCheck, GroupedConv2d) {
    gradCheck("grouped 2 groups 3x3 stride 2 bias",
              {randn({2, 4, 5, 5}, 56), randn({6, 2, 3, 3}, 57), randn({6}, 58)},
              [](auto& v) { return ops::conv2d(v[0], v[1], v[2], convOpt(2, 1, 2)); });
    gradCheck("grouped 1x1 (ShuffleNet v1's pointwise group conv)",
              {randn({2, 6, 3, 4}, 59), randn({9, 2, 1, 1}, 60)},
              [](auto& v) { return ops::conv2d(v[0], v[1], Tensor(), convOpt(1, 0, 3)); });
    gradCheck("depthwise with channel multiplier 2 (grouped path)",
              {randn({2, 2, 4, 4}, 61), randn({4, 1, 3, 3}, 62)},
              [](auto& v) { return ops::conv2d(v[0], v[1], Tensor(), convOpt(1, 1, 2)); });
    EXPECT_THROW(
        ops::conv2d(randn({1, 4, 5, 5}, 1), randn({6, 4, 3, 3}, 2), Tensor(), convOpt(1, 1, 2)),
        std::invalid_argument);
}

TEST(GradCheck, PointwiseConvFastPath) {
    // 1x1 stride-1 convolutions skip the column matrix; with 16 outputs the direct kernels
    // would otherwise apply. Both settings must agree.
    for (bool direct : {true, false}) {
        direct::setEnabled(direct);
        gradCheck("Conv2D 1x1",
                  {randn({3, 5, 4, 3}, 63), randn({16, 5, 1, 1}, 64), randn({16}, 65)},
                  [](auto& v) { return ops::conv2d(v[0], v[1], v[2], convOpt(1, 0, 1)); });
    }
    direct::setEnabled(true);
    gradCheck("Conv2D 1x1 stride 2", {randn({2, 3, 5, 5}, 66), randn({4, 3, 1, 1}, 67)},
              [](auto& v) { return ops::conv2d(v[0], v[1], Tensor(), convOpt(2, 0, 1)); });
}

TEST(GradCheck, ConcatSplitChunk) {
    gradCheck("Concat axis 1",
              {randn({2, 2, 3, 2}, 68), randn({2, 3, 3, 2}, 69), randn({2, 1, 3, 2}, 70)},
              [](auto& v) {
                  return ops::concat({v[0], v[1], v[2]}, 1);
              });
    gradCheck("Concat axis 0", {randn({1, 3}, 71), randn({2, 3}, 72)}, [](auto& v) {
        return ops::concat({v[0], v[1]}, -2);
    });
    // Both pieces used, differently: one backward call with both gradients.
    gradCheck("Split both pieces", {randn({2, 5, 2, 2}, 73), randn({2, 3, 2, 2}, 74)}, [](auto& v) {
        const auto parts = ops::split(v[0], 1, {2, 3});
        return ops::concat({ops::mul(parts[1], v[1]), ops::relu(parts[0])}, 1);
    });
    // One piece unused: its gradient is zero.
    gradCheck("Split one piece", {randn({3, 4}, 75)}, [](auto& v) {
        return ops::split(v[0], 1, {1, 3})[1];
    });
    gradCheck("chunk", {randn({2, 4, 3}, 76)}, [](auto& v) {
        const auto c = ops::chunk(v[0], 2, 1);
        return ops::add(c[0], ops::scale(c[1], 3.f));
    });
    EXPECT_THROW(ops::chunk(randn({2, 5}, 1), 2, 1), std::invalid_argument);
    EXPECT_THROW(ops::concat({randn({2, 3}, 1), randn({3, 3}, 2)}, 1), std::invalid_argument);
}

TEST(GradCheck, TransposeAndChannelShuffle) {
    gradCheck("Transpose 3-d", {randn({2, 3, 4}, 77)}, [](auto& v) {
        return ops::transpose(v[0], {2, 0, 1});
    });
    gradCheck("Transpose 5-d keeps the last dims", {randn({2, 2, 3, 2, 2}, 78)}, [](auto& v) {
        return ops::transpose(v[0], {0, 2, 1, 3, 4});
    });
    gradCheck("ChannelShuffle", {randn({2, 6, 2, 2}, 79)},
              [](auto& v) { return ops::channelShuffle(v[0], 2); });
    // Output channel k*g + i is input channel i*(C/g) + k (torchvision's channel_shuffle).
    NoGradGuard ng;
    Tensor x = randn({1, 6, 1, 2}, 80);
    Tensor y = ops::channelShuffle(x, 3);
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 2; ++k)
            for (int p = 0; p < 2; ++p)
                EXPECT_EQ(y.f32()[(k * 3 + i) * 2 + p], x.f32()[(i * 2 + k) * 2 + p]);
}

TEST(GradCheck, PadGlobalPoolBroadcastAdd) {
    gradCheck("Pad", {randn({2, 2, 3, 2}, 81)},
              [](auto& v) { return ops::pad2d(v[0], 2, 1, 0, 3); });
    gradCheck("GlobalAvgPool", {randn({2, 3, 3, 4}, 82)},
              [](auto& v) { return ops::globalAvgPool(v[0]); });
    gradCheck("Add same shape (residual)", {randn({2, 3, 2, 2}, 83)}, [](auto& v) {
        return ops::add(ops::sigmoid(v[0]), v[0]);  // the input reaches the sum twice
    });
    gradCheck("Add broadcast channel bias", {randn({2, 3, 2, 2}, 84), randn({3, 1, 1}, 85)},
              [](auto& v) { return ops::add(v[0], v[1]); });
    gradCheck("Add broadcast both ways", {randn({4, 1}, 86), randn({3}, 87)},
              [](auto& v) { return ops::add(v[0], v[1]); });
    EXPECT_EQ(ops::add(randn({4, 1}, 1), randn({3}, 2)).shape(), (Shape{4, 3}));
    EXPECT_THROW(ops::add(randn({2, 3}, 1), randn({2}, 2)), std::invalid_argument);
}

TEST(GradCheck, BatchNormLargerPlanes) {
    // Planes of 10 values: the 8-lane sums plus a remainder.
    for (bool training : {true, false}) {
        Tensor rm = randn({3}, 88, 0.1f), rv = randn({3}, 89, 0.1f, 1.f);
        gradCheck(
            training ? "BatchNorm train 2x5" : "BatchNorm eval 2x5",
            {randn({2, 3, 2, 5}, 90, 2.f, 0.5f), randn({3}, 91, 0.2f, 1.f), randn({3}, 92)},
            [&](auto& v) {
                return ops::batchNorm2d(v[0], v[1], v[2], rm, rv, training, 0.9f, 1e-5f);
            },
            3e-2);
    }
    // Running statistics follow MindSpore's momentum: new = m*old + (1-m)*batch (unbiased var).
    NoGradGuard ng;
    Tensor x = Tensor::fromVector({2, 1, 1, 2}, {1.f, 2.f, 3.f, 6.f});
    Tensor g = Tensor::full({1}, 1.f), b = Tensor::zeros({1});
    Tensor rm = Tensor::zeros({1}), rv = Tensor::full({1}, 1.f);
    Tensor y = ops::batchNorm2d(x, g, b, rm, rv, true, 0.9f, 0.f);
    EXPECT_NEAR(rm.item(), 0.1 * 3.0, 1e-6);
    EXPECT_NEAR(rv.item(), 0.9 + 0.1 * (14.0 / 3.0), 1e-5);
    EXPECT_NEAR(y.f32()[3], 3.0 / std::sqrt(3.5), 1e-5);
}
