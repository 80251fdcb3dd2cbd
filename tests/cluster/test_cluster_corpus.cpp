// The cluster summary on real traces of the shared corpus: HTA's Kineto ranks (a GPU rank on
// NCCL, a CPU-only rank of a 300-rank gloo job, ranks from distributedInfo) and MindSpore /
// msprof timelines (an Ascend device with HCCL streams, Iteration steps, ranks from file
// names). Skips when the corpus is absent.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "tests/common/test_support.h"

using ts::test::corpusFile;
using ts::test::runCli;

namespace {

rapidjson::Document cluster(const std::vector<std::string>& files) {
    std::vector<std::string> args = {"cluster", "--json"};
    for (const auto& f : files) args.push_back(corpusFile(f).string());
    auto r = runCli(args);
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    rapidjson::Document d;
    d.Parse(r.out.c_str());
    EXPECT_FALSE(d.HasParseError()) << r.out;
    return d;
}

}  // namespace

TEST(ClusterCorpus, HtaRanksFromDistributedInfo) {
    TS_REQUIRE_CORPUS();
    auto d = cluster({"real/hta/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
                      "real/hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"});
    ASSERT_EQ(d["ranks"].Size(), 2u);
    const auto& gpu = d["ranks"][0];
    const auto& cpu = d["ranks"][1];
    EXPECT_EQ(gpu["rank"].GetInt(), 0);
    EXPECT_EQ(cpu["rank"].GetInt(), 34);
    EXPECT_STREQ(gpu["rank_from"].GetString(), "distributedInfo");
    EXPECT_EQ(cpu["world_size"].GetInt(), 300);
    // ProfilerStep#101..105 of a ResNet step on one A100: kernels are the compute.
    EXPECT_EQ(gpu["steps"].GetInt(), 5);
    EXPECT_STREQ(gpu["counted_on"].GetString(), "device");
    EXPECT_GT(gpu["compute_ms"].GetDouble(), 10);
    EXPECT_GT(gpu["step_ms_median"].GetDouble(), gpu["compute_ms"].GetDouble());
    // Its process group has one rank: NCCL launches no kernel, and the summary says why
    // communication is 0 despite nccl:all_reduce calls.
    EXPECT_DOUBLE_EQ(gpu["comm_ms"].GetDouble(), 0);
    bool explained = false;
    for (const auto& w : d["warnings"].GetArray())
        explained |= std::string(w.GetString()).find("host-side collective") != std::string::npos;
    EXPECT_TRUE(explained);
    // The CPU-only rank: gloo:all_reduce on gloo's threads, inside ProfilerStep#551.
    EXPECT_EQ(cpu["steps"].GetInt(), 1);
    EXPECT_STREQ(cpu["counted_on"].GetString(), "host");
    EXPECT_GT(cpu["comm_ms"].GetDouble(), 100);
    EXPECT_LE(cpu["comm_ms"].GetDouble(), cpu["step_ms_median"].GetDouble());
}

TEST(ClusterCorpus, MsprofDeviceWithHcclStreams) {
    TS_REQUIRE_CORPUS();
    auto d = cluster(
        {"real/mindspore/msprof_0_2_1.json", "real/mindspore/ascend_timeline_display_1.json"});
    ASSERT_EQ(d["ranks"].Size(), 2u);
    const auto& npu = d["ranks"][0];
    EXPECT_EQ(npu["rank"].GetInt(), 0);
    EXPECT_STREQ(npu["rank_from"].GetString(), "file name");
    EXPECT_STREQ(npu["counted_on"].GetString(), "device");
    EXPECT_STREQ(npu["step_markers"].GetString(), "Iteration N");
    EXPECT_EQ(npu["steps"].GetInt(), 1);
    EXPECT_GT(npu["comm_ms"].GetDouble(), 0);  // HCCL: Notify, Reduce, the AllReduce op
    EXPECT_GT(npu["compute_ms"].GetDouble(), 0);
    const double parts = npu["compute_ms"].GetDouble() +
                         npu["comm_ms"].GetDouble() * (1 - npu["overlap_pct"].GetDouble() / 100) +
                         npu["idle_ms"].GetDouble();
    EXPECT_NEAR(parts, npu["step_ms_median"].GetDouble(), 0.01);
    const auto& other = d["ranks"][1];
    EXPECT_EQ(other["rank"].GetInt(), 1);
    EXPECT_STREQ(other["step_markers"].GetString(), "whole trace");
}

TEST(ClusterCorpus, OneDevicesTimelinesAreOneRank) {
    TS_REQUIRE_CORPUS();
    // msprof's timeline and the HCCL one of device 0: both rank 0 by name, imported into one
    // session, measured together (the Iteration steps of one, the HCCL planes of the other).
    auto d = cluster({"real/mindspore/msprof_0_2_1.json", "real/mindspore/hccl_0_2_1.json"});
    ASSERT_EQ(d["ranks"].Size(), 1u);
    EXPECT_EQ(d["ranks"][0]["rank"].GetInt(), 0);
    EXPECT_STREQ(d["ranks"][0]["step_markers"].GetString(), "Iteration N");
    EXPECT_EQ(d["ranks"][0]["source_ids"].Size(), 2u);
    EXPECT_GT(d["ranks"][0]["comm_ms"].GetDouble(), 0);
    EXPECT_EQ(d["warnings"].Size(), 0u);
}
