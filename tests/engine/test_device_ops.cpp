// Every op of the engine on device tensors against the CPU op (which test_gradcheck.cpp
// checks against finite differences): the same outputs and the same gradients, the same ops
// seen by the dispatcher's observers, and the device tensor basics (copies, views, the pool's
// figures). On the CPU emulation here; on a GPU too where there is one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "core/engine/device/device_kernels.h"
#include "core/engine/ops/ops.h"
#include "core/engine/tensor/dispatcher.h"
#include "core/engine/train/optimizer.h"
#include "tests/engine/device_fixture.h"
#include "tests/engine/gradcheck_util.h"

using namespace ts::engine;

namespace ts::test {
namespace {

void expectSame(const std::string& what, const Tensor& cpu, const Tensor& dev, double tol) {
    ASSERT_TRUE(dev.defined()) << what;
    EXPECT_EQ(dev.device(), Device::CUDA) << what;
    ASSERT_EQ(cpu.shape(), dev.shape()) << what;
    const Tensor h = toHost(dev);
    int bad = 0;
    for (int64_t i = 0; i < cpu.numel() && bad < 5; ++i) {
        const double a = cpu.f32()[i], b = h.f32()[i];
        if (std::isnan(a) && std::isnan(b)) continue;
        if (std::fabs(a - b) > tol * std::max(1.0, std::fabs(a))) {
            ++bad;
            ADD_FAILURE() << what << " element " << i << ": cpu " << a << ", device " << b;
        }
    }
}

/// f on CPU tensors and on device copies: outputs, the loss MSE(f, target) and the gradient
/// of every float input agree.
void compareOnDevice(const std::string& name, const std::vector<Tensor>& inputs,
                     const std::function<Tensor(std::vector<Tensor>&)>& f, double tol = 2e-5) {
    std::vector<Tensor> c, d;
    for (const Tensor& t : inputs) {
        c.push_back(t.clone());
        d.push_back(toDevice(t, Device::CUDA));
        if (t.dtype() == DType::Float32) {
            c.back().setRequiresGrad(true);
            d.back().setRequiresGrad(true);
        }
    }
    Tensor yc = f(c), yd = f(d);
    expectSame(name + " output", yc, yd, tol);
    auto lossOf = [](const Tensor& y, Device dev) {
        if (y.numel() == 1 && y.rank() == 0) return y;
        return ops::mseLoss(y, toDevice(randn(y.shape(), 99), dev));
    };
    Tensor lc = lossOf(yc, Device::CPU), ld = lossOf(yd, Device::CUDA);
    EXPECT_NEAR(lc.item(), ld.item(), tol * std::max(1.f, std::fabs(lc.item()))) << name;
    lc.backward();
    ld.backward();
    for (size_t k = 0; k < inputs.size(); ++k) {
        if (inputs[k].dtype() != DType::Float32) continue;
        ASSERT_TRUE(d[k].grad().defined()) << name << ": no gradient for input " << k;
        expectSame(name + " gradient of input " + std::to_string(k), c[k].grad(), d[k].grad(),
                   tol * 10);
    }
}

class DeviceOps : public DeviceTest {};

TEST_P(DeviceOps, TensorsCopiesViewsAndThePoolsFigures) {
    Tensor h = Tensor::fromVector({2, 3}, {1, 2, 3, 4, 5, 6});
    const int64_t before = pool().bytesInUse();
    Tensor d = toDevice(h, Device::CUDA);
    EXPECT_EQ(d.device(), Device::CUDA);
    EXPECT_EQ(pool().bytesInUse() - before, static_cast<int64_t>(MemoryPool::roundSize(24)));
    EXPECT_FLOAT_EQ(d.item(4), 5.f);
    Tensor v = d.view({3, 2});
    EXPECT_EQ(v.device(), Device::CUDA);
    EXPECT_EQ(v.raw(), d.raw());
    Tensor c = d.clone();
    EXPECT_EQ(c.device(), Device::CUDA);
    EXPECT_NE(c.raw(), d.raw());
    EXPECT_EQ(toHost(c).f32()[5], 6.f);
    Tensor half = d.to(DType::Float16);
    EXPECT_EQ(half.device(), Device::CUDA);
    EXPECT_FLOAT_EQ(toHost(half.to(DType::Float32)).f32()[2], 3.f);
    Tensor z = zerosOn(Device::CUDA, {4});
    EXPECT_EQ(toHost(z).f32()[3], 0.f);
    // In place: every handle of the tensor sees the device copy.
    Tensor p = Tensor::fromVector({2}, {7, 8});
    Tensor alias = p;
    moveTo(p, Device::CUDA);
    EXPECT_EQ(alias.device(), Device::CUDA);
    EXPECT_FLOAT_EQ(alias.item(1), 8.f);
    EXPECT_THROW(ops::add(h, d), std::invalid_argument);  // cpu + cuda: named, not a crash
    EXPECT_EQ(sumOfSquares(d), 91.0);
    EXPECT_EQ(nonFiniteCount(d), 0);
}

TEST_P(DeviceOps, MatMulBiasAndElementwise) {
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb)
            compareOnDevice("MatMul",
                            {randn(ta ? Shape{4, 3} : Shape{3, 4}, 1),
                             randn(tb ? Shape{5, 4} : Shape{4, 5}, 2)},
                            [ta, tb](auto& in) { return ops::matmul(in[0], in[1], ta, tb); });
    compareOnDevice("BiasAdd", {randn({3, 4}, 3), randn({4}, 4)},
                    [](auto& in) { return ops::biasAdd(in[0], in[1]); });
    compareOnDevice("BiasAdd4d", {randn({2, 3, 2, 2}, 5), randn({3}, 6)},
                    [](auto& in) { return ops::biasAdd(in[0], in[1]); });
    compareOnDevice("Add", {randn({2, 3}, 7), randn({2, 3}, 8)},
                    [](auto& in) { return ops::add(in[0], in[1]); });
    compareOnDevice("Sub", {randn({2, 3}, 9), randn({2, 3}, 10)},
                    [](auto& in) { return ops::sub(in[0], in[1]); });
    compareOnDevice("Mul", {randn({2, 3}, 11), randn({2, 3}, 12)},
                    [](auto& in) { return ops::mul(in[0], in[1]); });
    compareOnDevice("Div", {randn({2, 3}, 13), randn({2, 3}, 14, 0.3f, 2.f)},
                    [](auto& in) { return ops::div(in[0], in[1]); });
    compareOnDevice("Scale", {randn({2, 3}, 38)}, [](auto& in) { return ops::scale(in[0], 2.5f); });
}

TEST_P(DeviceOps, ActivationsSoftmaxAndLosses) {
    compareOnDevice("ReLU", {randn({3, 4}, 15)}, [](auto& in) { return ops::relu(in[0]); });
    compareOnDevice("Sigmoid", {randn({3, 4}, 16)}, [](auto& in) { return ops::sigmoid(in[0]); });
    compareOnDevice("Tanh", {randn({3, 4}, 17)}, [](auto& in) { return ops::tanh(in[0]); });
    compareOnDevice("Reshape", {randn({2, 6}, 18)}, [](auto& in) {
        return ops::reshape(in[0], {3, -1});
    });
    compareOnDevice("Flatten", {randn({2, 2, 3}, 19)},
                    [](auto& in) { return ops::flatten(in[0]); });
    compareOnDevice("Softmax", {randn({3, 5}, 20)}, [](auto& in) { return ops::softmax(in[0]); });
    compareOnDevice("LogSoftmax", {randn({3, 5}, 21)},
                    [](auto& in) { return ops::logSoftmax(in[0]); });
    Tensor labels = Tensor::empty({3}, DType::Int32);
    labels.i32()[0] = 1, labels.i32()[1] = 4, labels.i32()[2] = 0;
    compareOnDevice("SoftmaxCrossEntropyWithLogits", {randn({3, 5}, 22), labels},
                    [](auto& in) { return ops::softmaxCrossEntropy(in[0], in[1]); });
    compareOnDevice("MSELoss", {randn({3, 2}, 23), randn({3, 2}, 24)},
                    [](auto& in) { return ops::mseLoss(in[0], in[1]); });
    compareOnDevice("Cast", {randn({2, 3}, 39)}, [](auto& in) { return ops::castFp16(in[0]); });
    compareOnDevice("Dropout", {randn({4, 4}, 37)},
                    [](auto& in) { return ops::dropout(in[0], 0.3f, true, 7); });
    // A label out of range is refused as on the CPU, with the CPU's message: the kernel finds
    // it, and the backend raises it at its next synchronisation (the loss read back), as CUDA
    // raises a device assertion; the backend is usable after.
    Tensor bad = Tensor::empty({3}, DType::Int32);
    bad.i32()[0] = 0, bad.i32()[1] = 9, bad.i32()[2] = 0;
    try {
        ops::softmaxCrossEntropy(toDevice(randn({3, 5}, 22), Device::CUDA),
                                 toDevice(bad, Device::CUDA))
            .item();
        ADD_FAILURE() << "a label out of range was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()),
                  "SparseSoftmaxCrossEntropyWithLogits: label 9 out of range [0, 5)");
    }
    EXPECT_THROW(ops::softmaxCrossEntropy(randn({3, 5}, 22), bad), std::invalid_argument);
    EXPECT_FLOAT_EQ(toDevice(Tensor::full({2}, 3.f), Device::CUDA).item(1), 3.f);
    // NaN stays NaN through ReLU (the overflow checks rely on it).
    Tensor nan = Tensor::fromVector({2}, {std::nanf(""), -1.f});
    EXPECT_TRUE(std::isnan(ops::relu(toDevice(nan, Device::CUDA)).item(0)));
}

TEST_P(DeviceOps, ConvolutionPoolingAndBatchNorm) {
    ops::Conv2dOptions plain;
    compareOnDevice("Conv2D", {randn({2, 2, 5, 5}, 25), randn({3, 2, 3, 3}, 26), randn({3}, 27)},
                    [plain](auto& in) { return ops::conv2d(in[0], in[1], in[2], plain); });
    ops::Conv2dOptions strided;
    strided.strideH = strided.strideW = 2;
    strided.padH = strided.padW = 1;
    compareOnDevice("Conv2D stride 2 pad 1", {randn({1, 2, 5, 5}, 28), randn({2, 2, 3, 3}, 29)},
                    [strided](auto& in) { return ops::conv2d(in[0], in[1], Tensor(), strided); });
    ops::Conv2dOptions same;
    same.padSame = true;
    same.strideH = same.strideW = 2;
    compareOnDevice("Conv2D same", {randn({1, 1, 6, 6}, 30), randn({2, 1, 5, 5}, 31)},
                    [same](auto& in) { return ops::conv2d(in[0], in[1], Tensor(), same); });
    ops::Conv2dOptions same1;
    same1.padSame = true;
    compareOnDevice(
        "Conv2D 16 channels",
        {randn({2, 3, 6, 5}, 44), randn({16, 3, 3, 3}, 45, 0.3f), randn({16}, 46)},
        [same1](auto& in) { return ops::conv2d(in[0], in[1], in[2], same1); }, 1e-4);
    compareOnDevice("MaxPool", {randn({2, 2, 4, 4}, 32)},
                    [](auto& in) { return ops::maxPool2d(in[0], 2, 2); });
    compareOnDevice("MaxPool 3x3 stride 2", {randn({1, 2, 7, 7}, 40)},
                    [](auto& in) { return ops::maxPool2d(in[0], 3, 2); });
    compareOnDevice("AvgPool", {randn({1, 2, 5, 5}, 33)},
                    [](auto& in) { return ops::avgPool2d(in[0], 3, 2); });
    for (bool training : {true, false}) {
        Tensor rmC = Tensor::zeros({2}), rvC = Tensor::full({2}, 1.f);
        Tensor rmD = toDevice(rmC, Device::CUDA), rvD = toDevice(rvC, Device::CUDA);
        compareOnDevice(training ? "BatchNorm train" : "BatchNorm eval",
                        {randn({3, 2, 2, 2}, 34), randn({2}, 35, 0.2f, 1.f), randn({2}, 36)},
                        [&](auto& in) {
                            const bool dev = onDevice(in[0]);
                            return ops::batchNorm2d(in[0], in[1], in[2], dev ? rmD : rmC,
                                                    dev ? rvD : rvC, training, 0.9f, 1e-5f);
                        });
        expectSame("BatchNorm running mean", rmC, rmD, 1e-5);
        expectSame("BatchNorm running var", rvC, rvD, 1e-5);
    }
}

/// All an observer sees of an op but its timing and data: type, direction, the inputs, the
/// outputs (shape and device), the attributes.
struct OpTrace : OpObserver {
    std::vector<std::string> ops;
    void onOpEnd(const OpEvent& op) override {
        std::string s = std::string(op.opType) + (op.backward ? "/bwd" : "") + " (" +
                        std::to_string(op.inputs->size()) + " in) ->";
        for (const Tensor& t : *op.outputs)
            s += " " + (t.defined() ? shapeString(t.shape()) + "@" + deviceName(t.device()) : "-");
        ops.push_back(s + " {" + std::string(op.attrs) + "}");
    }
};

/// One step of a small network through every op that has a device form, its gradients and
/// both optimizers: each op is written once (ops/kernel_table.h), so the dispatcher sees the
/// same calls on either backend, op for op, with the same attributes and outputs.
TEST_P(DeviceOps, EveryOpIsTheSameOpOnBothBackends) {
    auto step = [](Device d) {
        Dispatcher dispatcher;
        OpTrace log;
        dispatcher.addObserver(&log);
        Dispatcher* prev = Dispatcher::install(&dispatcher);
        auto param = [d](const Shape& s, uint64_t seed) {
            return toDevice(randn(s, seed, 0.3f), d).setRequiresGrad(true);
        };
        Tensor w1 = param({4, 1, 3, 3}, 71), b1 = param({4}, 72), beta = param({4}, 73);
        Tensor gamma = toDevice(Tensor::full({4}, 1.f), d).setRequiresGrad(true);
        Tensor w2 = param({4, 3}, 74), b2 = param({3}, 75);
        Tensor rm = zerosOn(d, {4}), rv = toDevice(Tensor::full({4}, 1.f), d);
        ops::Conv2dOptions same;
        same.padSame = true;
        Tensor h = ops::conv2d(toDevice(randn({2, 1, 8, 8}, 70), d), w1, b1, same);
        h = ops::batchNorm2d(h, gamma, beta, rm, rv, true, 0.9f, 1e-5f);
        h = ops::maxPool2d(ops::relu(h), 2, 2);
        h = ops::flatten(ops::avgPool2d(h, 4, 4));
        h = ops::dropout(h, 0.25f, true, 3);
        Tensor logits = ops::biasAdd(ops::matmul(h, w2), b2);
        Tensor t = ops::tanh(ops::sigmoid(logits));
        Tensor two = toDevice(Tensor::full({2, 3}, 2.f), d);
        Tensor mixed = ops::div(ops::mul(ops::sub(t, ops::scale(logits, 0.5f)), logits),
                                ops::add(ops::castFp16(t), two));
        Tensor labels = Tensor::empty({2}, DType::Int32);
        labels.i32()[0] = 0, labels.i32()[1] = 2;
        Tensor loss = ops::add(ops::softmaxCrossEntropy(mixed, toDevice(labels, d)),
                               ops::mseLoss(ops::softmax(logits), ops::logSoftmax(logits)));
        loss.backward();
        Sgd({{"w1", w1}, {"b1", b1}, {"gamma", gamma}}, SgdOptions{0.9, true, 1e-4}).step(0.1);
        Adam({{"beta", beta}, {"w2", w2}, {"b2", b2}}, AdamOptions{}).step(0.01);
        ops::batchNorm2d(toDevice(randn({1, 4, 2, 2}, 76), d), gamma, beta, rm, rv, false, 0.9f,
                         1e-5f);
        Dispatcher::install(prev);
        return log.ops;
    };
    const std::vector<std::string> cpu = step(Device::CPU), dev = step(Device::CUDA);
    ASSERT_EQ(cpu.size(), dev.size());
    ASSERT_GT(cpu.size(), 40u);
    for (size_t i = 0; i < cpu.size(); ++i) {
        std::string expected = cpu[i];
        for (size_t p = expected.find("@cpu"); p != std::string::npos; p = expected.find("@cpu"))
            expected.replace(p, 4, "@cuda");
        EXPECT_EQ(dev[i], expected) << "op " << i;
    }
}

/// The convolutions ResNet-8 and ShuffleNet V2 need beyond LeNet's: 1x1 (the input is its own
/// column matrix), depthwise (its own kernels), grouped (per-group GEMMs on strided slices),
/// and a batch large enough that the filter gradient's one GEMM spans several samples.
TEST_P(DeviceOps, PointwiseDepthwiseAndGroupedConvolutions) {
    struct Case {
        const char* name;
        Shape x, w;
        ops::Conv2dOptions opt;
        bool bias;
    } cases[] = {
        {"1x1 (pointwise)", {3, 4, 5, 6}, {6, 4, 1, 1}, convOpt(1, 0, 1), true},
        {"1x1 stride 2 (a ResNet shortcut)", {2, 3, 7, 7}, {5, 3, 1, 1}, convOpt(2, 0, 1), false},
        {"3x3 stride 2 pad 1, batch 5", {5, 3, 9, 8}, {4, 3, 3, 3}, convOpt(2, 1, 1), false},
        {"depthwise 3x3 pad 1", {2, 3, 5, 5}, {3, 1, 3, 3}, convOpt(1, 1, 3), false},
        {"depthwise 3x3 stride 2 pad 1 bias", {3, 2, 6, 5}, {2, 1, 3, 3}, convOpt(2, 1, 2), true},
        {"depthwise 3x2 stride 2 same", {1, 2, 7, 6}, {2, 1, 3, 2}, convOpt(2, 0, 2, true), false},
        {"depthwise 5x5 stride 3 no pad", {2, 2, 9, 8}, {2, 1, 5, 5}, convOpt(3, 0, 2), true},
        {"grouped 2 groups 3x3 stride 2 bias", {2, 4, 5, 5}, {6, 2, 3, 3}, convOpt(2, 1, 2), true},
        {"grouped 1x1, 3 groups", {2, 6, 3, 4}, {9, 2, 1, 1}, convOpt(1, 0, 3), false},
        {"depthwise with channel multiplier 2 (grouped path)",
         {2, 2, 4, 4},
         {4, 1, 3, 3},
         convOpt(1, 1, 2),
         false},
    };
    for (const Case& c : cases) {
        std::vector<Tensor> in{randn(c.x, 81), randn(c.w, 82, 0.5f)};
        if (c.bias) in.push_back(randn({c.w[0]}, 83));
        const ops::Conv2dOptions opt = c.opt;
        const bool bias = c.bias;
        compareOnDevice(
            c.name, in,
            [opt, bias](auto& v) { return ops::conv2d(v[0], v[1], bias ? v[2] : Tensor(), opt); },
            1e-4);
    }
    // A depthwise filter gradient over more values than one slice holds (4096 per slice).
    compareOnDevice(
        "depthwise 3x3 over 2 x 48 x 48", {randn({2, 2, 48, 48}, 84), randn({2, 1, 3, 3}, 85)},
        [](auto& v) { return ops::conv2d(v[0], v[1], Tensor(), convOpt(1, 1, 2)); }, 1e-4);
}

/// Concat, Split, chunk, Transpose, the channel shuffle, Pad, global average pooling and the
/// broadcasting Add with its ReduceSum gradient: against the CPU ops, values and gradients.
TEST_P(DeviceOps, ShapeOpsPoolingAndBroadcasting) {
    compareOnDevice("Concat axis 1", {randn({2, 3, 2, 2}, 90), randn({2, 1, 2, 2}, 91)},
                    [](auto& v) {
                        return ops::concat({v[0], v[1]}, 1);
                    });
    compareOnDevice("Concat axis 0 of three",
                    {randn({1, 3}, 92), randn({2, 3}, 93), randn({1, 3}, 94)}, [](auto& v) {
                        return ops::concat({v[0], v[1], v[2]}, 0);
                    });
    compareOnDevice("Concat last axis", {randn({2, 2, 3}, 95), randn({2, 2, 1}, 96)}, [](auto& v) {
        return ops::concat({v[0], v[1]}, -1);
    });
    compareOnDevice("Split", {randn({2, 5, 3}, 97)}, [](auto& v) {
        const std::vector<Tensor> parts = ops::split(v[0], 1, {2, 0, 3});
        // Both pieces reach the loss; the empty one gets no gradient (zeros in SplitGrad).
        return ops::concat({ops::scale(parts[2], 2.f), parts[0]}, 1);
    });
    compareOnDevice("chunk, one half used", {randn({2, 4, 3, 3}, 98)},
                    [](auto& v) { return ops::chunk(v[0], 2, 1)[1]; });
    compareOnDevice("Transpose (0, 2, 1, 3)", {randn({2, 3, 4, 5}, 99)}, [](auto& v) {
        return ops::transpose(v[0], {0, 2, 1, 3});
    });
    compareOnDevice("Transpose (2, 0, 1)", {randn({3, 4, 5}, 100)}, [](auto& v) {
        return ops::transpose(v[0], {2, 0, 1});
    });
    compareOnDevice("channel shuffle", {randn({2, 6, 3, 3}, 101)},
                    [](auto& v) { return ops::channelShuffle(v[0], 2); });
    compareOnDevice("Pad", {randn({2, 3, 4, 5}, 102)},
                    [](auto& v) { return ops::pad2d(v[0], 1, 2, 0, 3); });
    compareOnDevice("GlobalAvgPool", {randn({3, 4, 5, 6}, 103)},
                    [](auto& v) { return ops::globalAvgPool(v[0]); });
    compareOnDevice("Add broadcast [2,3,4] + [4]", {randn({2, 3, 4}, 104), randn({4}, 105)},
                    [](auto& v) { return ops::add(v[0], v[1]); });
    compareOnDevice("Add broadcast [2,1,4] + [3,1]", {randn({2, 1, 4}, 106), randn({3, 1}, 107)},
                    [](auto& v) { return ops::add(v[0], v[1]); });
    compareOnDevice("Add broadcast [1,3,1,1] + [2,3,4,4]",
                    {randn({1, 3, 1, 1}, 108), randn({2, 3, 4, 4}, 109)},
                    [](auto& v) { return ops::add(v[0], v[1]); });
    compareOnDevice("MaxPool 3x3 stride 1 (overlapping windows)", {randn({2, 2, 5, 5}, 110)},
                    [](auto& v) { return ops::maxPool2d(v[0], 3, 1); });
    compareOnDevice("AvgPool 2x2 stride 1", {randn({1, 2, 4, 5}, 111)},
                    [](auto& v) { return ops::avgPool2d(v[0], 2, 1); });
    // Batch norm over more values per channel than one slice (4096): sums over slices.
    for (bool training : {true, false}) {
        Tensor rmC = Tensor::full({3}, 0.1f), rvC = Tensor::full({3}, 2.f);
        Tensor rmD = toDevice(rmC, Device::CUDA), rvD = toDevice(rvC, Device::CUDA);
        compareOnDevice(
            training ? "BatchNorm train, 3 slices" : "BatchNorm eval, 3 slices",
            {randn({3, 3, 64, 70}, 112, 2.f, 0.5f), randn({3}, 113, 0.2f, 1.f), randn({3}, 114)},
            [&](auto& in) {
                const bool dev = onDevice(in[0]);
                return ops::batchNorm2d(in[0], in[1], in[2], dev ? rmD : rmC, dev ? rvD : rvC,
                                        training, 0.9f, 1e-5f);
            },
            1e-4);
        expectSame("BatchNorm running mean", rmC, rmD, 1e-5);
        expectSame("BatchNorm running var", rvC, rvD, 1e-5);
    }
}

/// The optimizers update every parameter in one launch per chunk of parameters on a device
/// when no observer needs one op per parameter: the same values as the CPU's per-parameter
/// updates, over more parameters than one chunk holds.
TEST_P(DeviceOps, MultiTensorUpdatesMatchTheCpu) {
    for (const bool adam : {false, true}) {
        int64_t launches = 0;
        auto run = [adam, &launches](Device d) {
            std::vector<NamedParam> params;
            for (int i = 0; i < kernels::TensorChunk::kMax + 20; ++i) {
                Tensor w = toDevice(randn({3 + i % 5}, 200 + static_cast<uint64_t>(i)), d);
                w.setRequiresGrad(true);
                w.setGrad(toDevice(randn({3 + i % 5}, 300 + static_cast<uint64_t>(i)), d));
                params.push_back({"p" + std::to_string(i), w, i % 9 != 4});
            }
            params[5].tensor.zeroGrad();  // no gradient: left alone
            std::unique_ptr<Optimizer> opt;
            if (adam)
                opt = std::make_unique<Adam>(params, AdamOptions{0.9, 0.99, 1e-8, 1e-3});
            else
                opt = std::make_unique<Sgd>(params, SgdOptions{0.9, true, 1e-3});
            const int64_t before = d == Device::CUDA ? backendOf(d).counters().enqueued : 0;
            for (int s = 0; s < 3; ++s) opt->step(0.05);
            if (d == Device::CUDA) launches = backendOf(d).counters().enqueued - before;
            std::vector<Tensor> out;
            for (const NamedParam& p : params) out.push_back(toHost(p.tensor));
            return out;
        };
        const auto cpu = run(Device::CPU), dev = run(Device::CUDA);
        // 59 parameters to update (8 frozen, one without a gradient): two chunks per step.
        EXPECT_EQ(launches, 3 * 2) << (adam ? "Adam" : "SGD");
        for (size_t i = 0; i < cpu.size(); ++i)
            for (int64_t k = 0; k < cpu[i].numel(); ++k)
                EXPECT_NEAR(cpu[i].f32()[k], dev[i].f32()[k], 1e-6)
                    << (adam ? "Adam" : "SGD") << " parameter " << i << " value " << k;
    }
}

TS_DEVICE_TESTS(DeviceOps);

}  // namespace
}  // namespace ts::test
