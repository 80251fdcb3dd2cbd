// The trainer on a device: the same loss curve as on the CPU (MLP and LeNet-5, SGD and Adam,
// loss scaling, gradient clipping), the device pool's memory figures, checkpoints written
// from device parameters, and clear refusals (unknown device, no device, data parallel).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "core/engine/train/callbacks.h"
#include "core/engine/train/checkpoint.h"
#include "core/engine/train/trainer.h"
#include "core/store/trace_store.h"
#include "tests/common/test_support.h"
#include "tests/engine/device_fixture.h"

using namespace ts::engine;

namespace ts::test {
namespace {

TrainConfig smallDeviceConfig(const std::string& model, const std::string& device) {
    TrainConfig c;
    c.model = model;
    c.dataset = "synthetic";
    c.syntheticSamples = 128;
    c.batchSize = 32;
    c.epochs = 1;
    c.limitSteps = 4;
    c.lr = 0.01;
    c.seed = 7;
    c.evalLimit = 64;
    c.device = device;
    return c;
}

struct DeviceLosses : Callback {
    std::vector<double> values;
    void stepEnd(RunContext& ctx) override { values.push_back(ctx.originalArgs().net_outputs); }
};

std::vector<double> curve(const TrainConfig& c, TrainResult* out = nullptr) {
    Trainer t(c);
    auto cb = std::make_shared<DeviceLosses>();
    t.addCallback(cb);
    TrainResult r = t.run();
    EXPECT_EQ(r.status, "completed") << r.reason;
    if (out) *out = r;
    return cb->values;
}

void expectSameCurve(const std::vector<double>& cpu, const std::vector<double>& dev, double tol) {
    ASSERT_EQ(cpu.size(), dev.size());
    ASSERT_FALSE(cpu.empty());
    for (size_t i = 0; i < cpu.size(); ++i) EXPECT_NEAR(cpu[i], dev[i], tol) << "step " << i + 1;
}

class DeviceTrainer : public DeviceTest {};

TEST_P(DeviceTrainer, MlpAndLenetFollowTheCpuCurve) {
    for (const char* model : {"mlp", "lenet5"}) {
        TrainResult cpuRun, devRun;
        const auto cpu = curve(smallDeviceConfig(model, "cpu"), &cpuRun);
        const auto dev = curve(smallDeviceConfig(model, "cuda"), &devRun);
        expectSameCurve(cpu, dev, 2e-4);
        EXPECT_NEAR(cpuRun.eval.at("accuracy"), devRun.eval.at("accuracy"), 0.02) << model;
        EXPECT_GT(devRun.peakBytes, 0);
    }
}

TEST_P(DeviceTrainer, AdamLossScalingAndClipping) {
    TrainConfig c = smallDeviceConfig("mlp", "cpu");
    c.optimizer = "adam";
    c.amp = "O1";  // fp16 rounding and a dynamic loss scale: the finite check and unscale
    c.clipNorm = 0.5;
    TrainConfig d = c;
    d.device = "cuda";
    expectSameCurve(curve(c), curve(d), 2e-4);
}

TEST_P(DeviceTrainer, RunsOnTheDeviceWithItsPoolsFigures) {
    Trainer t(smallDeviceConfig("mlp", "cuda"));
    ASSERT_TRUE(t.prepare()) << "prepare";
    EXPECT_EQ(t.device(), Device::CUDA);
    for (const NamedParam& p : t.network()->parameters())
        EXPECT_EQ(p.tensor.device(), Device::CUDA);
    for (const auto& [tag, s] : t.optimizer()->state()) EXPECT_EQ(s.device(), Device::CUDA) << tag;
    const int64_t params = t.memoryPool().bytesInUse();
    EXPECT_GT(params, 4 * 200000);  // the MLP's weights and momenta live in the device pool
    TrainResult r = t.run();
    ASSERT_EQ(r.status, "completed") << r.reason;
    EXPECT_GE(r.peakBytes, params);
    EXPECT_GT(t.progress().peakBytes, 0);
}

TEST_P(DeviceTrainer, CheckpointsOfDeviceParametersLoadOnTheCpu) {
    const std::string path = (tempDir("device_ckpt") / "mlp.ckpt").string();
    Trainer dev(smallDeviceConfig("mlp", "cuda"));
    ASSERT_EQ(dev.run().status, "completed");
    ASSERT_TRUE(dev.saveCheckpoint(path).ok());
    Trainer cpu(smallDeviceConfig("mlp", "cpu"));
    ASSERT_TRUE(cpu.prepare());
    auto rep = loadCheckpoint(path, *cpu.network(), cpu.optimizer());
    ASSERT_TRUE(rep.ok()) << rep.error();
    const auto a = dev.network()->parameters(), b = cpu.network()->parameters();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        const Tensor h = toHost(a[i].tensor);
        for (int64_t k = 0; k < h.numel(); ++k)
            ASSERT_EQ(h.f32()[k], b[i].tensor.f32()[k]) << a[i].name << " " << k;
    }
    // And back onto a device run (resume): the parameters arrive on the device.
    TrainConfig again = smallDeviceConfig("mlp", "cuda");
    again.resumeFrom = path;
    Trainer resumed(again);
    ASSERT_TRUE(resumed.prepare());
    EXPECT_EQ(resumed.network()->parameters()[0].tensor.device(), Device::CUDA);
    EXPECT_EQ(toHost(resumed.network()->parameters()[0].tensor).f32()[3], b[0].tensor.f32()[3]);
}

TS_DEVICE_TESTS(DeviceTrainer);

TEST(DeviceTrainerRefusals, UnknownOrMissingDeviceAndDataParallel) {
    setCudaBackendForTesting(nullptr);
    Trainer unknown(smallDeviceConfig("mlp", "tpu"));
    auto s = unknown.prepare();
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().find("unknown device 'tpu' (cpu or cuda)"), std::string::npos);
    if (auto b = cudaBackend(); !b) {  // this machine: no GPU, the reason is the run's
        Trainer none(smallDeviceConfig("mlp", "cuda"));
        auto e = none.prepare();
        ASSERT_FALSE(e.ok());
        EXPECT_EQ(e.error().rfind("no CUDA device: ", 0), 0u) << e.error();
        TrainResult r = none.run();
        EXPECT_EQ(r.status, "failed");
        EXPECT_EQ(r.reason, e.error());
    }
    setCudaBackendForTesting(emulatedDevice());
    TrainConfig dp = smallDeviceConfig("mlp", "cuda");
    dp.worldSize = 2;
    Trainer parallel(dp);
    auto p = parallel.prepare();
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.error().find("data-parallel training runs on the CPU only"), std::string::npos);
    setCudaBackendForTesting(nullptr);
}

}  // namespace
}  // namespace ts::test

namespace ts::test {
namespace {

TEST(DeviceCli, TrainDeviceCudaWithoutADeviceIsAClearError) {
    if (auto b = cudaBackend(); b) GTEST_SKIP() << "a CUDA device is present";
    const std::string session = (tempDir("device_cli_none") / "s.tscope").string();
    auto r = runCli({"train", "--device", "cuda", "-o", session, "--json"});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(r.out.rfind("{\"error\":\"no CUDA device: ", 0), 0u) << r.out;
    auto plain = runCli({"train", "--device", "cuda", "-o", session});
    EXPECT_EQ(plain.exitCode, 1);
    EXPECT_NE(plain.err.find("no CUDA device: "), std::string::npos) << plain.err;
    auto bad = runCli({"train", "--device", "tpu", "-o", session, "--json"});
    EXPECT_EQ(bad.exitCode, 1);
    EXPECT_NE(bad.out.find("--device: cpu or cuda"), std::string::npos) << bad.out;
}

TEST(DeviceCli, TrainOnTheEmulatedDeviceWithProfileAndOverflowChecks) {
    const std::string session = (tempDir("device_cli_emu") / "s.tscope").string();
    ::setenv("TRAINSCOPE_DEVICE_EMULATION", "1", 1);
    auto r = runCli({"train", "--device", "cuda", "--model", "lenet5", "--dataset", "synthetic",
                     "--limit-steps", "3", "--eval-limit", "64", "--profile", "--overflow-check",
                     "-o", session, "--json"});
    ::unsetenv("TRAINSCOPE_DEVICE_EMULATION");
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("\"status\":\"completed\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"device\":\"cuda\",\"device_name\":\"emulated device"),
              std::string::npos)
        << r.out;
    auto s = store::TraceStore::open(session, store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(s.ok());
    auto& db = s.value()->db();
    EXPECT_EQ(
        db.queryInt("SELECT count(*) FROM runs WHERE config LIKE '%\"device\":\"cuda\"%'").value(),
        1);
    // The profile of the device run: its ops (forward and backward) as slices.
    EXPECT_GT(db.queryInt("SELECT count(*) FROM slices s JOIN strings n ON n.id = s.name_id "
                          "WHERE n.str IN ('Conv2D', 'Conv2DBackpropFilter', 'MaxPoolGrad')")
                  .value(),
              3 * 3);
}

}  // namespace
}  // namespace ts::test
