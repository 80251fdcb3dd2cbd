// Overflow scan and dump comparison on the corpus pair, plus the CLI JSON shapes.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <fstream>
#include <sstream>

#include "core/debug/dump_scan.h"
#include "tests/common/test_support.h"

namespace {

using ts::test::corpusFile;

std::string gpu() {
    return corpusFile("generated/hdf5/dump_gpu.h5").string();
}
std::string npu() {
    return corpusFile("generated/hdf5/dump_npu.h5").string();
}

TEST(DumpScan, ParsesDumpPaths) {
    std::string op, io;
    int64_t seq = 0;
    int slot = 0;
    ASSERT_TRUE(ts::debug::parseDumpPath("Conv2d/1/output/0", op, seq, io, slot));
    EXPECT_EQ(op, "Conv2d");
    EXPECT_EQ(seq, 1);
    EXPECT_EQ(io, "output");
    EXPECT_EQ(slot, 0);
    ASSERT_TRUE(ts::debug::parseDumpPath("model/fc/3/input/2", op, seq, io, slot));
    EXPECT_EQ(op, "model/fc");
    EXPECT_FALSE(ts::debug::parseDumpPath("curves/loss", op, seq, io, slot));
    EXPECT_FALSE(ts::debug::parseDumpPath("a/x/output/0", op, seq, io, slot));
}

TEST(DumpScan, FindsAllPlantedOverflowsFirstNamed) {
    TS_REQUIRE_CORPUS();
    auto f = ts::h5::File::open(gpu());
    ASSERT_TRUE(f.ok());
    auto rep = ts::debug::scanOverflow(f.value());
    ASSERT_TRUE(rep.ok()) << rep.error();
    EXPECT_EQ(rep->order, ts::debug::OrderSource::Creation);
    std::vector<std::string> paths;
    for (const auto& x : rep->findings) paths.push_back(x.tensor.path);
    EXPECT_EQ(paths, (std::vector<std::string>{"Linear/0/output/0", "Softmax/0/input/0",
                                               "Softmax/0/output/0", "CrossEntropyLoss/0/input/0",
                                               "CrossEntropyLoss/0/output/0", "Add/0/output/0"}));
    ASSERT_FALSE(rep->findings.empty());
    EXPECT_EQ(rep->findings[0].posinf, 1u);
    EXPECT_EQ(rep->findings[0].neginf, 1u);
    EXPECT_EQ(rep->findings[2].nan, 20u);
}

TEST(DumpScan, CompareNamesConv2d1AsFirstDivergent) {
    TS_REQUIRE_CORPUS();
    auto a = ts::h5::File::open(npu());
    auto b = ts::h5::File::open(gpu());
    ASSERT_TRUE(a.ok() && b.ok());
    auto rep = ts::debug::compareDumps(a.value(), b.value(), {});
    ASSERT_TRUE(rep.ok()) << rep.error();
    EXPECT_EQ(rep->pairs.size(), 35u);
    EXPECT_TRUE(rep->unmatchedA.empty());
    EXPECT_TRUE(rep->unmatchedB.empty());
    ASSERT_TRUE(rep->firstDivergent.has_value());
    const auto& p = rep->pairs[*rep->firstDivergent];
    EXPECT_EQ(p.tensor.path, "Conv2d/1/output/0");
    EXPECT_NEAR(p.figures.cosine, 0.8940764870647697, 1e-6);
    EXPECT_NEAR(p.figures.maxAbs, 5.1471734046936035, 1e-5);
    for (const auto& q : rep->pairs) EXPECT_EQ(q.figures.nonfiniteMismatch, 0u) << q.tensor.path;
    // Tighter thresholds move the first divergent pair earlier, without re-reading.
    ts::debug::CompareThresholds strict;
    strict.maxAbs = 1e-4;
    ts::debug::applyThresholds(rep.value(), strict);
    ASSERT_TRUE(rep->firstDivergent.has_value());
    EXPECT_EQ(rep->pairs[*rep->firstDivergent].tensor.path, "Conv2d/0/input/0");
    const std::string csv = ts::debug::compareCsv(rep.value());
    EXPECT_NE(csv.find("Conv2d/1/output/0"), std::string::npos);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 36);
}

rapidjson::Document parse(const std::string& s) {
    rapidjson::Document d;
    d.Parse(s.c_str());
    return d;
}

TEST(DumpCli, StatsOverflowCompareJson) {
    TS_REQUIRE_CORPUS();
    auto r = ts::test::runCli({"dump", "stats", gpu(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    auto d = parse(r.out);
    ASSERT_TRUE(d.HasMember("datasets"));
    ASSERT_EQ(d["datasets"].Size(), 35u);
    const auto& first = d["datasets"][0];
    EXPECT_STREQ(first["path"].GetString(), "Conv2d/0/input/0");
    for (const char* k : {"dtype", "shape", "count", "min", "max", "mean", "std", "nan", "posinf",
                          "neginf", "zeros"})
        EXPECT_TRUE(first.HasMember(k)) << k;

    r = ts::test::runCli({"dump", "stats", gpu(), "--path", "Add/0/output/0", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    d = parse(r.out);
    ASSERT_EQ(d["datasets"].Size(), 1u);
    EXPECT_STREQ(d["datasets"][0]["dtype"].GetString(), "float16");

    r = ts::test::runCli({"dump", "stats", gpu(), "--path", "No/such", "--json"});
    ASSERT_EQ(r.exitCode, 0);
    d = parse(r.out);
    EXPECT_TRUE(d["datasets"][0].HasMember("error"));

    r = ts::test::runCli({"dump", "overflow", gpu(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    d = parse(r.out);
    EXPECT_STREQ(d["first"].GetString(), "Linear/0/output/0");
    EXPECT_STREQ(d["order"].GetString(), "creation");
    EXPECT_EQ(d["findings"].Size(), 6u);
    EXPECT_STREQ(d["findings"][0]["op"].GetString(), "Linear");
    EXPECT_EQ(d["findings"][0]["seqid"].GetInt(), 0);

    auto dir = ts::test::tempDir("dumpcli");
    const auto csv = (dir / "cmp.csv").string();
    r = ts::test::runCli(
        {"dump", "compare", npu(), gpu(), "--cos", "0.99", "--csv", csv, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    d = parse(r.out);
    EXPECT_STREQ(d["first_divergent"].GetString(), "Conv2d/1/output/0");
    EXPECT_EQ(d["pairs"].Size(), 35u);
    EXPECT_TRUE(d["unmatched"].IsArray());
    for (const char* k :
         {"path", "cosine", "max_abs", "max_rel", "mean_abs", "rmse", "nonfinite_mismatch", "pass"})
        EXPECT_TRUE(d["pairs"][0].HasMember(k)) << k;
    EXPECT_TRUE(std::filesystem::exists(csv));

    r = ts::test::runCli(
        {"dump", "stats", corpusFile("real/hdf5/notahdf5file.h5").string(), "--json"});
    EXPECT_EQ(r.exitCode, 1);
    d = parse(r.out);
    ASSERT_TRUE(d.HasMember("error"));
}

}  // namespace
