// Two NCCL ranks written here (Kineto's layout: record_param_comms with its collective
// arguments, NCCL kernels launched from it, distributedInfo), rank 1 reaching the all-reduce
// 200 us after rank 0: the cluster analysis gives each rank HTA's figures and the studio's,
// and the collectives' wait and transfer across ranks; analyze gives the collective's sizes
// and bandwidths as NCCL's tests define them.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <fstream>
#include <sstream>

#include "tests/common/test_support.h"

namespace {

/// Rank `rank` of two: two steps of 1000 us, a GEMM and an all-reduce each; the all-reduce
/// kernel starts at 500 us into the step on rank 0 and 700 us on rank 1, both end at 900 us.
std::string rankTrace(int rank) {
    std::ostringstream o;
    o << R"({"schemaVersion":1,"distributedInfo":{"backend":"nccl","rank":)" << rank
      << R"(,"world_size":2},"traceEvents":[)";
    bool first = true;
    auto ev = [&](const std::string& e) {
        o << (first ? "" : ",") << e;
        first = false;
    };
    for (int k = 0; k < 2; ++k) {
        const int b = 1000 * k, corr = 100 * (k + 1);
        auto x = [&](const char* cat, const char* name, int pid, int tid, int ts, int dur,
                     const std::string& args) {
            std::ostringstream e;
            e << R"({"ph":"X","cat":")" << cat << R"(","name":")" << name << R"(","pid":)" << pid
              << R"(,"tid":)" << tid << R"(,"ts":)" << ts << R"(,"dur":)" << dur << R"(,"args":{)"
              << args << "}}";
            ev(e.str());
        };
        x("user_annotation", ("ProfilerStep#" + std::to_string(k + 1)).c_str(), 1, 1, b, 999, "");
        x("cpu_op", "aten::mm", 1, 1, b + 10, 90,
          R"("External id":1,"Input Dims":[[64,64],[64,64]])");
        x("cuda_runtime", "cudaLaunchKernel", 1, 1, b + 20, 10,
          "\"correlation\":" + std::to_string(corr + 1));
        x("kernel", "ampere_sgemm_64x64_nn", 0, 7, b + 50, 350,
          R"("device":0,"stream":7,"correlation":)" + std::to_string(corr + 1));
        x("cpu_op", "record_param_comms", 1, 1, b + 400, 50,
          R"("Collective name":"allreduce","dtype":"Float","In msg nelems":1048576,)"
          R"("Out msg nelems":1048576,"Group size":2,"Process Group Name":"0")");
        x("cuda_runtime", "cudaLaunchKernel", 1, 1, b + 410, 10,
          "\"correlation\":" + std::to_string(corr + 2));
        const int start = rank == 0 ? 500 : 700;
        x("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0, 20, b + start, 900 - start,
          R"("device":0,"stream":20,"correlation":)" + std::to_string(corr + 2));
    }
    o << "]}";
    return o.str();
}

}  // namespace

TEST(ClusterGpu, CollectivesWaitAndTransferAcrossRanksAndHtaPerRank) {
    const auto dir = ts::test::tempDir("cluster_gpu");
    for (int r = 0; r < 2; ++r)
        std::ofstream(dir / ("rank" + std::to_string(r) + ".pt.trace.json")) << rankTrace(r);
    auto r = ts::test::runCli({"cluster", (dir / "rank0.pt.trace.json").string(),
                               (dir / "rank1.pt.trace.json").string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    rapidjson::Document doc;
    ASSERT_FALSE(doc.Parse(r.out.c_str()).HasParseError()) << r.out;
    ASSERT_EQ(doc["ranks"].Size(), 2u);
    const auto& r0 = doc["ranks"][0];
    const auto& r1 = doc["ranks"][1];
    EXPECT_EQ(r0["rank"].GetInt64(), 0);
    // Rank 0 waited 200 us in each of the two all-reduces, rank 1 not at all; both moved
    // data for 200 us each time.
    EXPECT_EQ(r0["collectives"]["matched"].GetInt64(), 2);
    EXPECT_NEAR(r0["collectives"]["wait_ms"].GetDouble(), 0.4, 1e-9);
    EXPECT_NEAR(r1["collectives"]["wait_ms"].GetDouble(), 0.0, 1e-9);
    EXPECT_NEAR(r0["collectives"]["transfer_ms"].GetDouble(), 0.4, 1e-9);
    EXPECT_NEAR(r1["collectives"]["transfer_ms"].GetDouble(), 0.4, 1e-9);
    // HTA's figures and the studio's, named apart: HTA drops step 2 (the last).
    EXPECT_TRUE(r0["hta"]["filtered"].GetBool());
    EXPECT_EQ(r0["hta"]["gpu_rows_kept"].GetInt64(), 2);  // step 1's GEMM and all-reduce
    // HTA's rule reads "ncclKernel": ncclDevKernel_* counts as computation to HTA.
    EXPECT_TRUE(r0["hta"]["comp_comm_overlap_pctg"].IsNull());
    EXPECT_EQ(r0["studio_per_step"]["steps"].GetInt64(), 2);
    // The studio counts ncclDevKernel_* as communication: 400 us of it in 2000 us of steps on
    // rank 0, none of it under the GEMM (50-400 us).
    EXPECT_NEAR(r0["studio_per_step"]["comm_comp_overlap_pct"].GetDouble(), 0.0, 1e-9);

    // The sessions kept: each stored its rank's summary after its import, and the cluster
    // read from those (collective kernels included) is the cluster read from the slices.
    const auto kept = dir / "kept";
    const std::string t0 = (dir / "rank0.pt.trace.json").string(),
                      t1 = (dir / "rank1.pt.trace.json").string();
    ASSERT_EQ(ts::test::runCli({"cluster", t0, t1, "--keep", kept.string()}).exitCode, 0);
    const std::string s0 = (kept / "0.rank0.pt.trace.json.tscope").string(),
                      s1 = (kept / "1.rank1.pt.trace.json.tscope").string();
    const auto fromSummaries = ts::test::runCli({"cluster", s0, s1, "--json"});
    const auto fromSlices = ts::test::runCli({"cluster", s0, s1, "--from-slices", "--json"});
    ASSERT_EQ(fromSummaries.exitCode, 0) << fromSummaries.err;
    EXPECT_EQ(fromSummaries.out, fromSlices.out);
    ASSERT_FALSE(doc.Parse(fromSummaries.out.c_str()).HasParseError());
    EXPECT_EQ(doc["ranks"][0]["collectives"]["matched"].GetInt64(), 2);
    EXPECT_NE(
        ts::test::runCli({"cluster", s0, s1}).out.find("ranks read from stored summaries: 2 of 2"),
        std::string::npos);

    // One rank's collective: 4 MiB a call, 400 us each on rank 0.
    const auto session = dir / "r0.tscope";
    ASSERT_EQ(
        ts::test::runCli({"import", "-o", session.string(), (dir / "rank0.pt.trace.json").string()})
            .exitCode,
        0);
    r = ts::test::runCli({"analyze", session.string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    ASSERT_FALSE(doc.Parse(r.out.c_str()).HasParseError());
    const auto& c = doc["gpu"]["communication"]["collectives"];
    ASSERT_EQ(c.Size(), 1u);
    EXPECT_STREQ(c[0]["collective"].GetString(), "allreduce");
    EXPECT_EQ(c[0]["bytes_per_call"].GetInt64(), 1048576 * 4);
    EXPECT_EQ(c[0]["calls"].GetInt64(), 2);
    EXPECT_EQ(c[0]["time_ns"].GetInt64(), 800000);
    const double algbw = 2.0 * 1048576 * 4 / 800000.0;  // bytes / ns = GB/s
    EXPECT_NEAR(c[0]["algbw_gbps"].GetDouble(), algbw, 1e-9);
    EXPECT_NEAR(c[0]["busbw_gbps"].GetDouble(), algbw * 2.0 * (2 - 1) / 2, 1e-9);
    // The GEMM is an FP32 SIMT kernel launched by an eligible op: not on Tensor Cores.
    EXPECT_EQ(doc["gpu"]["tensor_cores"]["tensor_core_ns"].GetInt64(), 0);
    EXPECT_GT(doc["gpu"]["tensor_cores"]["eligible_op_ns"].GetInt64(), 0);
}
