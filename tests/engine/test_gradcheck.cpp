// Finite-difference gradient checks for every differentiable op of the engine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "core/engine/ops/conv_direct.h"
#include "core/engine/ops/ops.h"
#include "core/engine/tensor/dispatcher.h"
#include "tests/engine/gradcheck_util.h"

using namespace ts::engine;

using ts::test::gradCheck;
using ts::test::randn;

TEST(GradCheck, MatMulAllTransposes) {
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
            Tensor a = randn(ta ? Shape{4, 3} : Shape{3, 4}, 1);
            Tensor b = randn(tb ? Shape{5, 4} : Shape{4, 5}, 2);
            gradCheck("MatMul", {a, b},
                      [ta, tb](auto& in) { return ops::matmul(in[0], in[1], ta, tb); });
        }
}

TEST(GradCheck, BiasAdd2dAnd4d) {
    gradCheck("BiasAdd", {randn({3, 4}, 3), randn({4}, 4)},
              [](auto& in) { return ops::biasAdd(in[0], in[1]); });
    gradCheck("BiasAdd4d", {randn({2, 3, 2, 2}, 5), randn({3}, 6)},
              [](auto& in) { return ops::biasAdd(in[0], in[1]); });
}

TEST(GradCheck, Elementwise) {
    gradCheck("Add", {randn({2, 3}, 7), randn({2, 3}, 8)},
              [](auto& in) { return ops::add(in[0], in[1]); });
    gradCheck("Sub", {randn({2, 3}, 9), randn({2, 3}, 10)},
              [](auto& in) { return ops::sub(in[0], in[1]); });
    gradCheck("Mul", {randn({2, 3}, 11), randn({2, 3}, 12)},
              [](auto& in) { return ops::mul(in[0], in[1]); });
    gradCheck("Div", {randn({2, 3}, 13), randn({2, 3}, 14, 0.3f, 2.f)},
              [](auto& in) { return ops::div(in[0], in[1]); });
}

TEST(GradCheck, Activations) {
    Tensor x = randn({3, 4}, 15);
    for (int64_t i = 0; i < x.numel(); ++i)
        if (std::fabs(x.f32()[i]) < 0.05f) x.f32()[i] = 0.3f;  // keep away from ReLU's kink
    gradCheck("ReLU", {x}, [](auto& in) { return ops::relu(in[0]); });
    gradCheck("Sigmoid", {randn({3, 4}, 16)}, [](auto& in) { return ops::sigmoid(in[0]); });
    gradCheck("Tanh", {randn({3, 4}, 17)}, [](auto& in) { return ops::tanh(in[0]); });
}

TEST(GradCheck, ReshapeFlatten) {
    gradCheck("Reshape", {randn({2, 6}, 18)}, [](auto& in) {
        return ops::reshape(in[0], {3, -1});
    });
    gradCheck("Flatten", {randn({2, 2, 3}, 19)}, [](auto& in) { return ops::flatten(in[0]); });
}

TEST(GradCheck, SoftmaxFamilyAndLosses) {
    gradCheck("Softmax", {randn({3, 5}, 20)}, [](auto& in) { return ops::softmax(in[0]); });
    gradCheck("LogSoftmax", {randn({3, 5}, 21)}, [](auto& in) { return ops::logSoftmax(in[0]); });
    Tensor labels = Tensor::empty({3}, DType::Int32);
    labels.i32()[0] = 1, labels.i32()[1] = 4, labels.i32()[2] = 0;
    gradCheck("SoftmaxCrossEntropyWithLogits", {randn({3, 5}, 22)},
              [labels](auto& in) { return ops::softmaxCrossEntropy(in[0], labels); });
    gradCheck("MSELoss", {randn({3, 2}, 23), randn({3, 2}, 24)},
              [](auto& in) { return ops::mseLoss(in[0], in[1]); });
}

TEST(GradCheck, Conv2dStridePaddingSame) {
    ops::Conv2dOptions plain;
    gradCheck("Conv2D", {randn({2, 2, 5, 5}, 25), randn({3, 2, 3, 3}, 26), randn({3}, 27)},
              [plain](auto& in) { return ops::conv2d(in[0], in[1], in[2], plain); });
    ops::Conv2dOptions strided;
    strided.strideH = strided.strideW = 2;
    strided.padH = strided.padW = 1;
    gradCheck("Conv2D stride 2 pad 1", {randn({1, 2, 5, 5}, 28), randn({2, 2, 3, 3}, 29)},
              [strided](auto& in) { return ops::conv2d(in[0], in[1], Tensor(), strided); });
    ops::Conv2dOptions same;
    same.padSame = true;
    same.strideH = same.strideW = 2;
    Tensor x = randn({1, 1, 6, 6}, 30);
    EXPECT_EQ(ops::conv2d(x, randn({2, 1, 5, 5}, 31), Tensor(), same).shape(), (Shape{1, 2, 3, 3}));
    gradCheck("Conv2D same", {x, randn({2, 1, 5, 5}, 31)},
              [same](auto& in) { return ops::conv2d(in[0], in[1], Tensor(), same); });
    // A batch of several samples, split over the intra-op pool, with bias and 'same' stride 1.
    ops::Conv2dOptions same1;
    same1.padSame = true;
    gradCheck("Conv2D batch", {randn({3, 2, 5, 4}, 41), randn({2, 2, 3, 3}, 42), randn({2}, 43)},
              [same1](auto& in) { return ops::conv2d(in[0], in[1], in[2], same1); });
}

TEST(GradCheck, Conv2dDirectKernels) {
    // 16 output channels take the direct (AVX2) kernels where the CPU has them; with them
    // off, the same conv goes through im2col + GEMM. Both pass the check and agree.
    ops::Conv2dOptions same;
    same.padSame = true;
    std::vector<Tensor> results;
    for (bool direct : {true, false}) {
        direct::setEnabled(direct);
        gradCheck(direct ? "Conv2D direct" : "Conv2D gemm",
                  {randn({2, 3, 6, 5}, 44), randn({16, 3, 3, 3}, 45, 0.3f), randn({16}, 46)},
                  [same](auto& in) { return ops::conv2d(in[0], in[1], in[2], same); });
        NoGradGuard ng;
        results.push_back(
            ops::conv2d(randn({3, 3, 7, 7}, 47), randn({20, 3, 3, 3}, 48), randn({20}, 49), same));
    }
    direct::setEnabled(true);
    for (int64_t i = 0; i < results[0].numel(); ++i)
        EXPECT_NEAR(results[0].f32()[i], results[1].f32()[i], 1e-4) << i;
}

TEST(GradCheck, Pooling) {
    gradCheck("MaxPool", {randn({1, 2, 4, 4}, 32)},
              [](auto& in) { return ops::maxPool2d(in[0], 2, 2); });
    // Overlapping windows: distinct values 0.25 apart, so no finite-difference nudge (at most
    // 1% of a value) changes which element is a window's maximum.
    Tensor distinct = Tensor::empty({1, 2, 7, 7});  // values in [-12, 12.25]
    std::vector<int> order(static_cast<size_t>(distinct.numel()));
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::shuffle(order.begin(), order.end(), std::mt19937(40));
    for (size_t i = 0; i < order.size(); ++i)
        distinct.f32()[i] = 0.25f * static_cast<float>(order[i]) - 12.f;
    gradCheck("MaxPool 3x3 stride 2", {distinct},
              [](auto& in) { return ops::maxPool2d(in[0], 3, 2); });
    gradCheck("AvgPool", {randn({1, 2, 5, 5}, 33)},
              [](auto& in) { return ops::avgPool2d(in[0], 3, 2); });
}

TEST(GradCheck, BatchNormTrainingAndEval) {
    for (bool training : {true, false}) {
        Tensor rm = Tensor::zeros({2}), rv = Tensor::full({2}, 1.f);
        gradCheck(
            training ? "BatchNorm train" : "BatchNorm eval",
            {randn({3, 2, 2, 2}, 34), randn({2}, 35, 0.2f, 1.f), randn({2}, 36)},
            [&](auto& in) {
                return ops::batchNorm2d(in[0], in[1], in[2], rm, rv, training, 0.9f, 1e-5f);
            },
            3e-2);
    }
}

TEST(GradCheck, DropoutAndCast) {
    gradCheck("Dropout", {randn({4, 4}, 37)},
              [](auto& in) { return ops::dropout(in[0], 0.3f, true, 7); });
    gradCheck("Scale", {randn({2, 3}, 38)}, [](auto& in) { return ops::scale(in[0], 2.5f); });
    gradCheck(
        "Cast", {randn({2, 3}, 39)}, [](auto& in) { return ops::castFp16(in[0]); }, 5e-2);
}

TEST(Ops, ShapeMismatchThrowsClearError) {
    try {
        ops::matmul(randn({2, 3}, 1), randn({4, 5}, 2));
        FAIL() << "no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("MatMul"), std::string::npos);
    }
    EXPECT_THROW(ops::add(randn({2, 3}, 1), randn({3, 2}, 2)), std::invalid_argument);
}

TEST(Tensor, HalfRoundTrip) {
    for (float f : {0.f, 1.f, -2.5f, 65504.f, 6.1e-5f, 1e-7f, 3.14159f}) {
        const float back = halfToFloat(floatToHalf(f));
        EXPECT_NEAR(back, f, std::fabs(f) * 1e-3 + 6e-8) << f;
    }
    EXPECT_TRUE(std::isinf(halfToFloat(floatToHalf(1e6f))));
    Tensor t = Tensor::fromVector({3}, {1.f, 2.f, 3.f});
    EXPECT_FLOAT_EQ(t.to(DType::Float16).to(DType::Float32).item(2), 3.f);
}
