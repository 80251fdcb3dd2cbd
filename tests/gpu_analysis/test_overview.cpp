// The GPU overview (TensorBoard plugin's definitions) and the step join on a real PyTorch
// 2.11 trace from an H200: four steps (each written by PyTorch both as a CPU annotation and
// as a gpu_user_annotation), compared with plugin_reference.py (the plugin's definitions on
// the same file, standard library only); and the analyze report built on them.
#include <gtest/gtest.h>

#include <fstream>

#include "core/analysis/gpu/gpu_overview.h"
#include "core/analysis/gpu/gpu_report.h"
#include "core/analysis/profile/profile_report.h"
#include "tests/gpu_analysis/gpu_fixture.h"

using namespace ts::analysis::gpu;

namespace {

rapidjson::Document pluginReference(const std::filesystem::path& file) {
    const auto r = ts::test::runProgram(
        "/usr/bin/python3",
        {std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/gpu_analysis/plugin_reference.py",
         file.string()});
    rapidjson::Document doc;
    EXPECT_EQ(r.exitCode, 0) << r.err;
    doc.Parse(r.out.c_str());
    EXPECT_FALSE(doc.HasParseError()) << r.out;
    return doc;
}

void writeText(const std::filesystem::path& file, const std::string& text) {
    std::ofstream(file, std::ios::binary) << text;
}

}  // namespace

TEST(GpuOverview, TorchH200StepsJoinedAndPluginFigures) {
    const auto file = ts::test::torch211Trace();
    if (!std::filesystem::exists(file)) GTEST_SKIP() << "no " << file;
    const GpuTrace g = ts::test::loadTrace(file);
    EXPECT_EQ(g.vendor, Vendor::Nvidia);
    const GpuOverview o = computeGpuOverview(g);
    const auto ref = pluginReference(file);
    ASSERT_EQ(o.steps.size(), 4u);  // not 8: the GPU-side copies are joined, not counted
    ASSERT_EQ(ref["steps"].Size(), 4u);
    for (size_t i = 0; i < 4; ++i) {
        const auto& r = ref["steps"][static_cast<rapidjson::SizeType>(i)];
        const GpuStep& s = o.steps[i];
        EXPECT_EQ(s.number, r["number"].GetInt64());
        EXPECT_EQ(s.start, r["start"].GetInt64());
        EXPECT_EQ(s.end, r["end"].GetInt64());
        EXPECT_EQ(s.deviceStart, r["device_start"].GetInt64());
        EXPECT_EQ(s.deviceEnd, r["device_end"].GetInt64());
        EXPECT_EQ(s.launched, r["launched"].GetInt64());
        EXPECT_EQ(s.inOverview, r["in_overview"].GetBool());
        // PyTorch's GPU-side copy of the step is joined by number.
        EXPECT_GT(s.annotationStart, 0);
        EXPECT_GE(s.annotationStart, s.deviceStart - 1);
    }
    for (size_t i = 0; i < kSplitRoles; ++i) {
        const char* key = splitRoleKey(static_cast<SplitRole>(i));
        EXPECT_EQ(o.splitTotal[i], ref["split"][key].GetInt64()) << key;
    }
    ASSERT_EQ(o.devices.size(), 1u);
    EXPECT_NEAR(o.devices[0].utilization, ref["utilization"]["0"].GetDouble(), 1e-12);
    EXPECT_LT(o.devices[0].utilization, 0.2);  // the host does not keep the H200 busy
    ASSERT_TRUE(o.devices[0].occupancy);
    ASSERT_TRUE(o.devices[0].smEfficiency);
    EXPECT_GT(*o.devices[0].smEfficiency, 0.0);
    EXPECT_LE(*o.devices[0].smEfficiency, o.devices[0].utilization + 1e-12);
    // Tensor Cores: the GEMMs (nvjet) and cuDNN's flash attention (wgmma) use them.
    EXPECT_GT(o.tensorCores.tensorCoreTime, 0);
    EXPECT_GT(o.tensorCores.eligibleOpTcTime, 0);
    EXPECT_LE(o.tensorCores.eligibleOpTcTime, o.tensorCores.eligibleOpTime);
    // The studio's per-step figures are inside each step and add up.
    for (const GpuStep& s : o.steps) {
        EXPECT_EQ(s.device.busy + s.device.idle, s.duration());
        EXPECT_EQ(s.device.compute + s.device.nonCompute, s.device.busy);
        int64_t sum = 0;
        for (int64_t v : s.split) sum += v;
        EXPECT_EQ(sum, s.duration());
    }
}

TEST(GpuOverview, AnalyzeGivesOneStepPerProfilerStepWithItsDeviceSide) {
    const auto file = ts::test::torch211Trace();
    if (!std::filesystem::exists(file)) GTEST_SKIP() << "no " << file;
    auto& store = ts::test::importedSession(file);
    auto r = ts::analysis::analyzeProfile(store, std::nullopt, std::nullopt);
    ASSERT_TRUE(r.ok()) << r.error();
    const auto& rep = r.value();
    ASSERT_EQ(rep.steps.steps.size(), 4u);
    EXPECT_EQ(rep.device, "cuda");
    ASSERT_TRUE(rep.gpu);
    for (const auto& s : rep.steps.steps) {
        EXPECT_GE(s.deviceStart, s.ts);
        EXPECT_LE(s.deviceEnd, s.joinedEnd);
        EXPECT_GE(s.gpuBusy, 0);
        EXPECT_LE(s.gpuBusy, s.joinedEnd - s.joinedStart);
    }
    // The cost is named on the device: the kernel with the most GPU time, not host self time.
    ASSERT_TRUE(rep.overview);
    EXPECT_EQ(rep.overview->title.rfind("Biggest cost: ", 0), 0u);
    EXPECT_NE(rep.overview->title.find("device kernel time"), std::string::npos);
    // CUDA advice on a CUDA trace, in plain English: the host-bound H200 is named.
    bool idle = false;
    for (const auto& f : rep.advice) {
        EXPECT_EQ(f.device, "cuda");
        // No CJK inline (UTF-8 lead bytes of U+3000..U+9FFF): the seeds' terms are a glossary.
        for (unsigned char c : f.title + f.explanation)
            EXPECT_FALSE(c >= 0xE3 && c <= 0xE9) << f.title;
        EXPECT_EQ(f.explanation.find("MindSpore"), std::string::npos);
        if (f.kind == ts::analysis::AdviceKind::GpuIdle) idle = true;
    }
    EXPECT_TRUE(idle);
    // The source lists four steps too, not eight (each step is also on the GPU stream).
    auto sources = ts::analysis::listProfileSources(store);
    ASSERT_TRUE(sources.ok());
    ASSERT_EQ(sources.value().size(), 1u);
    EXPECT_EQ(sources.value()[0].steps, 4);
    EXPECT_FALSE(sources.value()[0].deviceOnly);
}

TEST(GpuOverview, TraceWithOneProfilerStepAndATritonKernel) {
    TS_REQUIRE_CORPUS();
    const GpuTrace g = ts::test::loadTrace(ts::test::corpusFile("real/hta/triton_example.json.gz"));
    const GpuOverview o = computeGpuOverview(g);
    ASSERT_TRUE(o.hasGpu);
    ASSERT_EQ(o.steps.size(), 1u);
    EXPECT_TRUE(o.stepsFromProfilerSteps);
    EXPECT_EQ(o.steps[0].number, 1);
    // The kernel was launched by cuLaunchKernel (a driver call) inside the step.
    EXPECT_EQ(o.steps[0].launched, 1);
    EXPECT_GE(o.steps[0].end, o.steps[0].deviceEnd);
}

TEST(GpuOverview, TraceWithoutProfilerStepsIsOneStep) {
    TS_REQUIRE_CORPUS();
    const GpuTrace g =
        ts::test::loadTrace(ts::test::corpusFile("real/hta/simple_add_trace.json.gz"));
    const GpuOverview o = computeGpuOverview(g);
    ASSERT_TRUE(o.hasGpu);
    ASSERT_EQ(o.steps.size(), 1u);
    EXPECT_FALSE(o.stepsFromProfilerSteps);
    EXPECT_GT(o.steps[0].duration(), 0);
}

TEST(GpuOverview, DeviceCategoriesOnAHostThreadAreHostWork) {
    // A recorder's copy op tagged gpu_memcpy, nested in a cpu_op on its own thread, is host
    // work; the kernel on the stream's track (pid 0, tid 7) is the device's.
    const auto dir = ts::test::tempDir("gpu_mixed");
    const auto mixed = dir / "mixed.json", hostOnly = dir / "host_only.json";
    writeText(
        mixed,
        R"({"traceEvents":[)"
        R"({"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":10,"dur":20},)"
        R"({"ph":"X","cat":"gpu_memcpy","name":"Contiguous","pid":1,"tid":1,"ts":12,"dur":5},)"
        R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":40,"dur":4,)"
        R"("args":{"device":0,"stream":7}}]})");
    writeText(
        hostOnly,
        R"({"traceEvents":[)"
        R"({"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":10,"dur":20},)"
        R"({"ph":"X","cat":"gpu_memcpy","name":"Contiguous","pid":1,"tid":1,"ts":12,"dur":5}]})");
    const GpuTrace g = ts::test::loadTrace(mixed);
    ASSERT_EQ(g.activities.size(), 1u);
    EXPECT_EQ(g.str(g.activities[0].nameId), "k");
    ASSERT_EQ(g.host.size(), 2u);
    EXPECT_EQ(g.str(g.host[1].nameId), "Contiguous");
    EXPECT_EQ(g.host[1].kind, HostKind::Other);
    EXPECT_EQ(g.host[1].depth, 1);
    auto listed = listDeviceSources(ts::test::importedSession(mixed));
    ASSERT_TRUE(listed.ok());
    EXPECT_EQ(listed.value().size(), 1u);
    EXPECT_FALSE(computeGpuOverview(ts::test::loadTrace(hostOnly)).hasGpu);
    auto none = listDeviceSources(ts::test::importedSession(hostOnly));
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none.value().empty());
}
