// The training step on a device (docs/GPU.md, "The step on a device"): ResNet-8 and ShuffleNet
// V2 follow the CPU's curve; the step recorded as a CUDA Graph gives the curve of the step run
// op by op; per step, after the warm-up, nothing is allocated, the host never waits for the
// device and the step is a handful of launches (the backend's counters); step ends one step
// late see the same losses; a run the graph cannot serve says why and runs op by op.
#include <gtest/gtest.h>

#include <cmath>

#include "core/engine/device/device.h"
#include "core/engine/model/models.h"
#include "core/engine/ops/ops.h"
#include "core/engine/train/callbacks.h"
#include "core/engine/train/trainer.h"
#include "tests/engine/device_fixture.h"

using namespace ts::engine;

namespace ts::test {
namespace {

TrainConfig config(const std::string& model, const std::string& device, int64_t batch,
                   int64_t steps) {
    TrainConfig c;
    c.model = model;
    c.dataset = "synthetic";
    c.syntheticSamples = batch * steps;
    c.batchSize = batch;
    c.epochs = 1;
    c.lr = 0.02;
    c.seed = 11;
    c.evalLimit = 16;
    c.device = device;
    return c;
}

/// Records the losses and step numbers its stepEnd sees; `late`: it allows late step ends.
struct Steps : Callback {
    explicit Steps(bool late) : late(late) {}
    bool late;
    std::vector<double> losses;
    std::vector<int64_t> steps;
    void stepEnd(RunContext& ctx) override {
        losses.push_back(ctx.originalArgs().net_outputs);
        steps.push_back(ctx.originalArgs().cur_step_num);
    }
    bool lateStepEnd() const override { return late; }
};

struct Outcome {
    TrainResult result;
    std::vector<double> losses;
    std::vector<int64_t> steps;
};

Outcome train(const TrainConfig& c, bool late = true, std::shared_ptr<Cell> net = nullptr) {
    Trainer t(c);
    if (net) {
        EXPECT_TRUE(t.prepare().ok());
        t.setNetwork(std::move(net));
    }
    auto cb = std::make_shared<Steps>(late);
    t.addCallback(cb);
    Outcome r{t.run(), cb->losses, cb->steps};
    EXPECT_EQ(r.result.status, "completed") << r.result.reason;
    return r;
}

void expectCurve(const std::vector<double>& a, const std::vector<double>& b, double tol,
                 const std::string& what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    ASSERT_FALSE(a.empty()) << what;
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << what << " step " << i + 1;
}

class DeviceStep : public DeviceTest {};

TEST_P(DeviceStep, ResNet8AndShuffleNetFollowTheCpuCurve) {
    for (const char* model : {"resnet8", "shufflenetv2"}) {
        const Outcome cpu = train(config(model, "cpu", 8, 3));
        const Outcome dev = train(config(model, "cuda", 8, 3));
        // ShuffleNet's curve drifts a little faster: see EveryModelsGradientsMatchTheCpu.
        expectCurve(cpu.losses, dev.losses, std::string(model) == "resnet8" ? 5e-4 : 1e-2, model);
        EXPECT_TRUE(dev.result.device.deviceData) << dev.result.device.hostDataReason;
        EXPECT_TRUE(dev.result.device.graph) << model << ": " << dev.result.device.graphReason;
        EXPECT_NEAR(cpu.result.eval.at("loss"), dev.result.eval.at("loss"), 2e-2) << model;
    }
}

/// One forward and backward of each model on both backends from the same weights and batch:
/// the loss and every parameter's gradient agree (tighter than a loss curve, which a few
/// steps of training amplify). The models with batch norm get wider tolerances: some of their
/// pre-ReLU values lie within rounding of 0 (ShuffleNet has 98,304 after conv5's batch norm
/// alone), the two backends' batch norms round differently (the CPU sums in 8 lanes, the
/// device in slices), so a few ReLU masks differ and every gradient upstream moves by a
/// fraction of a percent — more on a GPU, whose sums run in yet another order. A wrong kernel
/// moves them by their whole size (each op is checked tightly in test_device_ops.cpp).
TEST_P(DeviceStep, EveryModelsGradientsMatchTheCpu) {
    const struct {
        const char* model;
        double tol;  // of the gradient's largest magnitude
    } cases[] = {{"mlp", 1e-4}, {"lenet5", 1e-4}, {"resnet8", 2e-3}, {"shufflenetv2", 0.15}};
    for (const auto& [model, tol] : cases) {
        const ArrayDataset data = syntheticImages(6, 10, 28, 28, 5, 0);
        std::vector<std::vector<Tensor>> grads(2);
        std::vector<float> losses(2);
        for (int d = 0; d < 2; ++d) {
            const Device dev = d ? Device::CUDA : Device::CPU;
            auto net = makeModel(model, 3, 784, 10);
            net->setTraining(true);
            for (NamedParam& p : net->parameters()) moveTo(p.tensor, dev);
            Tensor x = data.columns()[0].data.to(DType::Float32);
            scaleInPlace(x, 1.f / 255.f);
            Tensor labels = data.columns()[1].data.to(DType::Int32);
            Tensor loss = ops::softmaxCrossEntropy((*net)(toDevice(x, dev)), toDevice(labels, dev));
            loss.backward();
            losses[static_cast<size_t>(d)] = loss.item();
            for (const NamedParam& p : net->parameters())
                if (p.trainable) grads[static_cast<size_t>(d)].push_back(toHost(p.tensor.grad()));
        }
        EXPECT_NEAR(losses[0], losses[1], 1e-5) << model;
        ASSERT_EQ(grads[0].size(), grads[1].size());
        for (size_t i = 0; i < grads[0].size(); ++i) {
            const Tensor &a = grads[0][i], &b = grads[1][i];
            double scale = 0;
            for (int64_t k = 0; k < a.numel(); ++k)
                scale = std::max(scale, std::fabs(static_cast<double>(a.f32()[k])));
            for (int64_t k = 0; k < a.numel(); ++k)
                ASSERT_NEAR(a.f32()[k], b.f32()[k], tol * std::max(scale, 1e-5))
                    << model << " parameter " << i << " " << shapeString(a.shape()) << " value "
                    << k;
        }
    }
}

TEST_P(DeviceStep, TheGraphRunsTheStepsOpByOpWouldRun) {
    for (const char* model : {"mlp", "lenet5", "resnet8", "shufflenetv2"}) {
        TrainConfig on = config(model, "cuda", 8, 5), off = on;
        off.cudaGraph = false;
        const Outcome a = train(on), b = train(off);
        expectCurve(a.losses, b.losses, 1e-6, model);
        EXPECT_TRUE(a.result.device.graph) << model << ": " << a.result.device.graphReason;
        EXPECT_EQ(a.result.device.graphSteps, 4) << model;  // step 1 warms up
        EXPECT_FALSE(b.result.device.graph);
        EXPECT_EQ(b.result.device.graphReason, "off (cuda_graph false)");
        EXPECT_EQ(a.steps, (std::vector<int64_t>{1, 2, 3, 4, 5})) << model;
    }
}

/// After the warm-up a step allocates nothing and never waits for the device; as a graph it
/// is five launches: two batch gathers, the graph, the SGD update of every parameter, and the
/// loss's readback.
TEST_P(DeviceStep, AStepAllocatesNothingWaitsForNothingAndIsFiveLaunches) {
    const Outcome g = train(config("mlp", "cuda", 16, 8));
    const DeviceRunStats& s = g.result.device;
    EXPECT_TRUE(s.deviceData);
    EXPECT_TRUE(s.graph) << s.graphReason;
    EXPECT_TRUE(s.lateStepEnds);
    EXPECT_EQ(s.steps, 6);
    EXPECT_EQ(s.enqueuedPerStep, 5.0);
    EXPECT_EQ(s.allocations, 0);
    EXPECT_EQ(s.hostWaits, 0);
    EXPECT_EQ(s.readbacks, 8);  // one per step

    TrainConfig c = config("lenet5", "cuda", 16, 8);
    c.cudaGraph = false;
    const Outcome e = train(c);
    const DeviceRunStats& o = e.result.device;
    EXPECT_FALSE(o.graph);
    EXPECT_EQ(o.allocations, 0) << "the pool serves every step after the first";
    EXPECT_EQ(o.hostWaits, 0);
    EXPECT_EQ(o.readbacks, 8);
    EXPECT_GT(o.enqueuedPerStep, 30.0);  // every op of LeNet-5, forward and backward
}

/// A callback that needs the step as it ends keeps every step end in place (the host then
/// waits for each step's loss); the losses are the same either way.
TEST_P(DeviceStep, LateStepEndsSeeTheSameLosses) {
    const TrainConfig c = config("lenet5", "cuda", 8, 5);
    const Outcome late = train(c, true), inPlace = train(c, false);
    EXPECT_TRUE(late.result.device.lateStepEnds);
    EXPECT_FALSE(inPlace.result.device.lateStepEnds);
    expectCurve(late.losses, inPlace.losses, 0, "late vs in place");
    EXPECT_EQ(late.steps, inPlace.steps);
    const Outcome cpu = train(config("lenet5", "cpu", 8, 5));
    expectCurve(cpu.losses, late.losses, 2e-4, "cpu vs device");
}

/// A model with Dropout (its mask is drawn on the host), or a last batch of another size,
/// runs op by op where the graph cannot serve it, on the same curve.
TEST_P(DeviceStep, WhatTheGraphCannotServeRunsOpByOp) {
    auto dropoutNet = [] {
        std::mt19937_64 rng(3);
        auto net = std::make_shared<SequentialCell>("DropNet");
        net->append("flatten", std::make_shared<Flatten>());
        net->append("fc1", std::make_shared<Dense>(784, 32, rng));
        net->append("drop", std::make_shared<Dropout>(0.8f, 5));
        net->append("fc2", std::make_shared<Dense>(32, 10, rng));
        return net;
    };
    const Outcome d = train(config("mlp", "cuda", 8, 4), true, dropoutNet());
    EXPECT_FALSE(d.result.device.graph);
    EXPECT_NE(d.result.device.graphReason.find("Dropout (drop) draws its mask on the host"),
              std::string::npos)
        << d.result.device.graphReason;
    const Outcome dc = train(config("mlp", "cpu", 8, 4), true, dropoutNet());
    expectCurve(dc.losses, d.losses, 2e-4, "dropout");

    TrainConfig ragged = config("mlp", "cuda", 8, 4);
    ragged.syntheticSamples = 8 * 4 + 3;  // a last batch of 3
    ragged.dropRemainder = false;
    TrainConfig raggedOff = ragged;
    raggedOff.cudaGraph = false;
    const Outcome r = train(ragged), ro = train(raggedOff);
    EXPECT_EQ(r.losses.size(), 5u);
    expectCurve(r.losses, ro.losses, 1e-6, "ragged");
    EXPECT_EQ(r.result.device.graphSteps, 3);  // steps 2-4; step 5's batch is another size
}

/// A cell that reads its input on the host (a wait for the device) cannot be recorded: the
/// recording fails, the run says why and goes on op by op, on the same curve.
class Peek : public Cell {
public:
    Peek() : Cell("Peek") {}
    Tensor forward(const Tensor& x) override {
        seen += toHost(x).numel();
        return x;
    }
    int64_t seen = 0;
};

TEST_P(DeviceStep, ARecordingThatFailsFallsBackOpByOp) {
    auto net = [](std::shared_ptr<Peek>* peek) {
        std::mt19937_64 rng(4);
        auto n = std::make_shared<SequentialCell>("PeekNet");
        n->append("flatten", std::make_shared<Flatten>());
        *peek = n->append("peek", std::make_shared<Peek>());
        n->append("fc", std::make_shared<Dense>(784, 10, rng));
        return n;
    };
    std::shared_ptr<Peek> p1, p2;
    const Outcome a = train(config("mlp", "cuda", 8, 4), true, net(&p1));
    TrainConfig off = config("mlp", "cuda", 8, 4);
    off.cudaGraph = false;
    const Outcome b = train(off, true, net(&p2));
    EXPECT_FALSE(a.result.device.graph);
    EXPECT_NE(a.result.device.graphReason.find("the recording failed"), std::string::npos)
        << a.result.device.graphReason;
    bool warned = false;
    for (const std::string& w : a.result.warnings) warned |= w.rfind("CUDA Graph: ", 0) == 0;
    EXPECT_TRUE(warned);
    expectCurve(a.losses, b.losses, 1e-6, "fallback");
}

/// An observer (a profile, dumps, overflow checks) sees every op: no graph, no late ends.
TEST_P(DeviceStep, AnObservedRunLaunchesItsOpsOneByOne) {
    struct Count : OpObserver {
        int ops = 0;
        void onOpEnd(const OpEvent&) override { ++ops; }
    } count;
    Trainer t(config("mlp", "cuda", 8, 3));
    t.dispatcher().addObserver(&count);
    auto cb = std::make_shared<Steps>(true);
    t.addCallback(cb);
    const TrainResult r = t.run();
    ASSERT_EQ(r.status, "completed") << r.reason;
    EXPECT_FALSE(r.device.graph);
    EXPECT_NE(r.device.graphReason.find("observed"), std::string::npos);
    EXPECT_FALSE(r.device.lateStepEnds);
    EXPECT_GT(count.ops, 3 * 10);
}

TS_DEVICE_TESTS(DeviceStep);

}  // namespace
}  // namespace ts::test
