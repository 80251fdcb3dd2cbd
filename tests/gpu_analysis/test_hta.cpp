// HTA's analyses against a reference written from HTA's definitions (hta_reference.py, the
// standard library on the same trace file), on HTA's own test traces, a 2021 Kineto trace
// and a PyTorch 2.11 trace from an H200; and against the numbers HTA's own test suite
// states for its ns-resolution trace.
#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/gpu/hta.h"
#include "tests/gpu_analysis/gpu_fixture.h"

using namespace ts::analysis::gpu;

namespace {

int64_t us(int64_t ns) {
    return ns / 1000;
}

void expectDistribution(const rapidjson::Value& ref, const Distribution& d, double scale,
                        const std::string& what) {
    ASSERT_TRUE(ref.IsObject()) << what;
    EXPECT_EQ(ref["count"].GetInt64(), d.count) << what;
    if (d.count == 0) return;
    for (const auto& [key, v] : {std::pair<const char*, double>{"mean", d.mean},
                                 {"std", d.std},
                                 {"min", d.min},
                                 {"p25", d.p25},
                                 {"p50", d.p50},
                                 {"p75", d.p75},
                                 {"max", d.max}})
        EXPECT_NEAR(ref[key].GetDouble(), v / scale, 1e-6 * std::max(1.0, std::fabs(v / scale)))
            << what << " " << key;
}

/// Every figure of computeHta against the reference on `file`.
void compareWithReference(const std::filesystem::path& file, bool includeLast = false) {
    const GpuTrace g = ts::test::loadTrace(file);
    HtaOptions opt;
    opt.includeLastProfilerStep = includeLast;
    const HtaResult h = computeHta(g, opt);
    const auto ref =
        ts::test::htaReference(file, includeLast ? std::vector<std::string>{"--include-last-step"}
                                                 : std::vector<std::string>{});
    const std::string f = file.filename().string();
    EXPECT_EQ(h.profilerSteps, ref["profiler_steps"].GetInt64()) << f;
    EXPECT_EQ(h.filtered, ref["filtered"].GetBool()) << f;
    if (h.filtered) {
        EXPECT_EQ(us(h.lastStepStartNs), ref["last_step_start_us"].GetInt64()) << f;
    }
    ASSERT_EQ(h.gpuRowsKept, ref["gpu_rows_kept"].GetInt64()) << f;
    if (h.gpuRowsKept == 0) return;
    const auto& t = ref["temporal"];
    EXPECT_EQ(us(h.temporal.kernelTimeNs), t["kernel_time"].GetInt64()) << f;
    EXPECT_EQ(us(h.temporal.idleNs), t["idle"].GetInt64()) << f;
    EXPECT_EQ(us(h.temporal.computeNs), t["compute"].GetInt64()) << f;
    EXPECT_EQ(us(h.temporal.nonComputeNs), t["non_compute"].GetInt64()) << f;
    EXPECT_DOUBLE_EQ(h.temporal.idlePct, t["idle_pctg"].GetDouble()) << f;
    EXPECT_DOUBLE_EQ(h.temporal.computePct, t["compute_pctg"].GetDouble()) << f;
    EXPECT_DOUBLE_EQ(h.temporal.nonComputePct, t["non_compute_pctg"].GetDouble()) << f;
    if (ref.HasMember("comm_comp_overlap_pctg") && !ref["comm_comp_overlap_pctg"].IsNull()) {
        ASSERT_TRUE(h.commCompOverlapPct) << f;
        EXPECT_DOUBLE_EQ(*h.commCompOverlapPct, ref["comm_comp_overlap_pctg"].GetDouble()) << f;
    } else {
        EXPECT_FALSE(h.commCompOverlapPct) << f;
    }
    ASSERT_EQ(h.idle.size(), ref["idle"].MemberCount()) << f;
    for (const HtaIdleStream& s : h.idle) {
        const auto& r = ref["idle"][std::to_string(s.stream).c_str()];
        EXPECT_EQ(us(s.hostWaitNs), r["host_wait"].GetInt64()) << f << " stream " << s.stream;
        EXPECT_EQ(us(s.kernelWaitNs), r["kernel_wait"].GetInt64()) << f << " stream " << s.stream;
        EXPECT_EQ(us(s.otherNs), r["other"].GetInt64()) << f << " stream " << s.stream;
    }
    ASSERT_EQ(h.queue.size(), ref["queue"].MemberCount()) << f;
    for (const HtaQueueStream& q : h.queue)
        expectDistribution(ref["queue"][std::to_string(q.stream).c_str()], q.length, 1.0,
                           f + " queue " + std::to_string(q.stream));
    EXPECT_EQ(h.launch.launches, ref["launch"]["launches"].GetInt64()) << f;
    expectDistribution(ref["launch"]["cpu"], h.launch.cpuDurationNs, 1000.0, f + " launch cpu");
    expectDistribution(ref["launch"]["gpu"], h.launch.gpuDurationNs, 1000.0, f + " launch gpu");
    expectDistribution(ref["launch"]["delay"], h.launch.launchDelayNs, 1000.0, f + " launch delay");
    ASSERT_EQ(h.memory.size(), ref["memory_bw"].MemberCount()) << f;
    for (const HtaMemoryBandwidth& m : h.memory)
        expectDistribution(ref["memory_bw"][m.name.c_str()], m.gbps, 1.0, f + " " + m.name);
    ASSERT_EQ(h.annotations.size(), ref["annotations"].MemberCount()) << f;
    for (const HtaAnnotation& a : h.annotations)
        EXPECT_EQ(a.kernels, ref["annotations"][a.name.c_str()].GetInt64()) << f << " " << a.name;
}

std::filesystem::path hta(const char* name) {
    return ts::test::corpusFile(std::string("real/hta/") + name);
}

}  // namespace

TEST(Hta, PyTorch211TraceFromAnH200MatchesTheReference) {
    const auto file = ts::test::torch211Trace();
    if (!std::filesystem::exists(file)) GTEST_SKIP() << "no " << file;
    compareWithReference(file);
    compareWithReference(file, true);
    // The definitional differences the studio's own figures do not share: HTA cuts at the
    // start of the last profiler step (here PyTorch 2.x's GPU-side copy of ProfilerStep#5,
    // which starts after the host's) and drops that step's kernels.
    const HtaResult h = computeHta(ts::test::loadTrace(file));
    EXPECT_TRUE(h.filtered);
    EXPECT_EQ(h.profilerSteps, 4);
    EXPECT_EQ(h.stepsKept, (std::vector<int64_t>{2, 3, 4, 5}));
    EXPECT_EQ(h.lastStepStartNs, 4886740170804000);  // ceil of the GPU copy's 170803.514 us
    EXPECT_LT(h.gpuRowsKept, 252 + 28 + 16);
    EXPECT_GT(h.gpuRowsDropped, 0);
}

TEST(Hta, HtasOwnTestTracesMatchTheReference) {
    TS_REQUIRE_CORPUS();
    for (const char* name : {"simple_add_trace.json.gz", "sampled_rank-0.json.gz", "base.json.gz",
                             "mi250_minitoy_train_ROCm6_2_kineto.json.gz", "triton_example.json.gz",
                             "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"}) {
        SCOPED_TRACE(name);
        compareWithReference(hta(name));
    }
}

TEST(Hta, KinetoTraceOf2021MatchesTheReference) {
    TS_REQUIRE_CORPUS();
    compareWithReference(
        ts::test::corpusFile("real/kineto/worker0.1623143089861.pt.trace.json.gz"));
}

TEST(Hta, NumbersHtasOwnTestSuiteStatesForItsNsResolutionTrace) {
    TS_REQUIRE_CORPUS();
    // HolisticTraceAnalysis tests/test_trace_analysis.py,
    // test_get_gpu_kernels_with_user_annotations on tests/data/ns_resolution_trace: 4876 GPU
    // kernels, 3 annotations and "none", 27 kernels under "Optimizer.step#SGD.step".
    const HtaResult h =
        computeHta(ts::test::loadTrace(hta("rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")));
    EXPECT_TRUE(h.rounded);
    EXPECT_EQ(h.gpuRowsKept, 4876);
    EXPECT_EQ(h.annotations.size(), 4u);
    int64_t sgd = -1;
    for (const auto& a : h.annotations)
        if (a.name == "Optimizer.step#SGD.step") sgd = a.kernels;
    EXPECT_EQ(sgd, 27);
}

TEST(Hta, CpuOnlyTraceHasNothingToSay) {
    TS_REQUIRE_CORPUS();
    const HtaResult h =
        computeHta(ts::test::loadTrace(hta("rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")));
    EXPECT_FALSE(h.applicable);
    EXPECT_EQ(h.gpuRowsKept, 0);
    EXPECT_FALSE(h.note.empty());
}

TEST(Hta, RoundingAndPercentagesAsHtaRoundsThem) {
    EXPECT_DOUBLE_EQ(roundPct(92.885), 92.89);  // 92.885 is 92.8850000000000051... in binary
    EXPECT_DOUBLE_EQ(roundPct(0.125), 0.12);    // exact tie: to even, as Python's round()
    EXPECT_DOUBLE_EQ(roundPct(2.675),
                     2.67);  // 2.67499999999999982236431605997495353221893310546875
    EXPECT_EQ(htaKernelType("ncclKernel_AllReduce_RING_LL_Sum_float"),
              HtaKernelType::Communication);
    // HTA's rule reads "ncclKernel": the newer "ncclDevKernel_*" names count as computation.
    EXPECT_EQ(htaKernelType("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), HtaKernelType::Computation);
    EXPECT_EQ(htaKernelType("Memcpy DtoD (Device -> Device)"), HtaKernelType::Memory);
    const Distribution d = describe({1, 2, 3, 4});
    EXPECT_DOUBLE_EQ(d.p25, 1.75);
    EXPECT_DOUBLE_EQ(d.p50, 2.5);
    EXPECT_NEAR(d.std, 1.2909944487358056, 1e-12);
}
