// The CLI on the PyTorch 2.11 trace from an H200: analyze gives four steps, each with its
// device side, the GPU figures, HTA's and the studio's beside each other and CUDA advice;
// kernels prints the kernel table and writes its CSV; errors stay clear.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <fstream>

#include "tests/common/test_support.h"
#include "tests/gpu_analysis/gpu_fixture.h"

namespace {

std::string torchSessionPath() {
    static const std::string path = [] {
        const auto p = ts::test::tempDir("gpu_cli") / "t.tscope";
        const auto r =
            ts::test::runCli({"import", "-o", p.string(), ts::test::torch211Trace().string()});
        EXPECT_EQ(r.exitCode, 0) << r.err;
        return p.string();
    }();
    return path;
}

}  // namespace

TEST(CliGpu, AnalyzeGivesFourStepsWithTheirDeviceSide) {
    if (!std::filesystem::exists(ts::test::torch211Trace())) GTEST_SKIP() << "no trace";
    auto r = ts::test::runCli({"analyze", torchSessionPath(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    rapidjson::Document doc;
    ASSERT_FALSE(doc.Parse(r.out.c_str()).HasParseError());
    ASSERT_EQ(doc["steps"].Size(), 4u);  // not 8
    for (const auto& s : doc["steps"].GetArray()) {
        EXPECT_TRUE(s.HasMember("device_start"));
        EXPECT_LE(s["device_end"].GetInt64(), s["joined_end"].GetInt64());
    }
    EXPECT_STREQ(doc["device"].GetString(), "cuda");
    const auto& g = doc["gpu"];
    ASSERT_TRUE(g.IsObject());
    EXPECT_STREQ(g["vendor"].GetString(), "cuda");
    EXPECT_EQ(g["kernels"].GetInt64(), 252);
    EXPECT_EQ(g["devices"][0]["sms"].GetInt64(), 132);
    EXPECT_EQ(g["steps"].Size(), 4u);
    const auto& dev = g["overview"]["devices"][0];
    EXPECT_GT(dev["gpu_utilization"].GetDouble(), 0.0);
    EXPECT_TRUE(dev["est_sm_efficiency"].IsNumber());
    EXPECT_TRUE(dev["est_achieved_occupancy"].IsNumber());
    // HTA's figures and the studio's, named apart, with HTA's filter said.
    const auto& h = g["hta"];
    EXPECT_TRUE(h["filtered"].GetBool());
    EXPECT_EQ(h["gpu_rows_kept"].GetInt64(), 223);
    EXPECT_DOUBLE_EQ(h["temporal_breakdown"]["idle_time_pctg"].GetDouble(), 92.89);
    EXPECT_TRUE(g["studio_per_step"]["definition"].IsString());
    EXPECT_EQ(g["studio_per_step"]["steps"].GetInt64(), 4);
    // Tensor Cores in the kernel table.
    bool tc = false;
    for (const auto& k : g["kernel_table"].GetArray()) tc = tc || k["tensor_cores"].GetBool();
    EXPECT_TRUE(tc);
    // CUDA advice with a glossary object, no inline seeds' terms.
    ASSERT_GT(doc["advice"].Size(), 0u);
    for (const auto& f : doc["advice"].GetArray()) {
        EXPECT_STREQ(f["device"].GetString(), "cuda");
        EXPECT_TRUE(f["glossary"].IsObject());
    }
    // The text form names the GPU and HTA's filter.
    r = ts::test::runCli({"analyze", torchSessionPath()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("NVIDIA H200"), std::string::npos);
    EXPECT_NE(r.out.find("HTA (HTA's definitions"), std::string::npos);
    EXPECT_NE(r.out.find("studio per step"), std::string::npos);
    EXPECT_NE(r.out.find("[gpu_idle, cuda]"), std::string::npos);
}

TEST(CliGpu, KernelsTableJsonAndCsv) {
    if (!std::filesystem::exists(ts::test::torch211Trace())) GTEST_SKIP() << "no trace";
    const auto csv = ts::test::tempDir("gpu_cli_csv") / "k.csv";
    auto r = ts::test::runCli({"kernels", torchSessionPath(), "--by", "config", "--top", "5",
                               "--csv", csv.string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    rapidjson::Document doc;
    ASSERT_FALSE(doc.Parse(r.out.c_str()).HasParseError());
    EXPECT_STREQ(doc["grouping"].GetString(), "config");
    EXPECT_EQ(doc["calls"].GetInt64(), 252 + 16 + 28);
    ASSERT_EQ(doc["rows"].Size(), 5u);
    EXPECT_GE(doc["rows"][0]["total_ns"].GetInt64(), doc["rows"][1]["total_ns"].GetInt64());
    std::ifstream in(csv);
    std::string header;
    std::getline(in, header);
    EXPECT_EQ(header.rfind("name,kind,grid,block,registers per thread", 0), 0u);
    int lines = 0;
    for (std::string l; std::getline(in, l);) ++lines;
    EXPECT_EQ(lines, doc["groups"].GetInt64());
    r = ts::test::runCli({"kernels", torchSessionPath(), "--no-memory"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("nvjet_sm90"), std::string::npos);
    EXPECT_EQ(r.out.find("Memcpy DtoD"), std::string::npos);
    // Errors: a bad grouping, a session without device work.
    r = ts::test::runCli({"kernels", torchSessionPath(), "--by", "colour"});
    EXPECT_EQ(r.exitCode, 1);
    TS_REQUIRE_CORPUS();
    const auto cpu = ts::test::tempDir("gpu_cli_cpu") / "c.tscope";
    ASSERT_EQ(ts::test::runCli(
                  {"import", "-o", cpu.string(),
                   ts::test::corpusFile("real/hta/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")
                       .string()})
                  .exitCode,
              0);
    r = ts::test::runCli({"kernels", cpu.string(), "--json"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.out.find("no device work"), std::string::npos);
}
