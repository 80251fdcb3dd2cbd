// Names across runs (core/analysis/name_map.h): fuzzy names ignore numbering only, the op map
// parses both spellings, substitutes groups and reports bad rules with their line.
#include <gtest/gtest.h>

#include <fstream>

#include "core/analysis/diff/name_map.h"
#include "tests/common/test_support.h"

using ts::analysis::fuzzyName;
using ts::analysis::NameKeys;
using ts::analysis::NameMap;

TEST(NameMap, FuzzyNamesIgnoreNumberingOnly) {
    EXPECT_EQ(fuzzyName("MatMul-op12"), "MatMul-op#");
    EXPECT_EQ(fuzzyName("Default/network/fc1-Dense/MatMul-op4"),
              "Default/network/fc1-Dense/MatMul-op#");
    EXPECT_EQ(fuzzyName("layers.3.mlp"), "layers.#.mlp");
    EXPECT_EQ(fuzzyName("Linear/0"), "Linear/#");
    EXPECT_EQ(fuzzyName("hcom_allReduce_2"), "hcom_allReduce_#");
    EXPECT_EQ(fuzzyName("ProfilerStep#12"), "ProfilerStep##");
    // Digits that are part of a word stay: conv1 is not conv2, Conv2D is Conv2D.
    EXPECT_EQ(fuzzyName("conv1"), "conv1");
    EXPECT_EQ(fuzzyName("Conv2D-op7"), "Conv2D-op#");
    EXPECT_EQ(fuzzyName("aten::addmm"), "aten::addmm");
    EXPECT_EQ(fuzzyName("sm80_xmma_gemm_128x64"), "sm80_xmma_gemm_128x64");
    EXPECT_EQ(fuzzyName("12"), "#");
}

TEST(NameMap, TextRulesFirstMatchWithGroups) {
    auto m = NameMap::parse(
        "# NPU -> GPU names\n"
        "\n"
        "^MatMulV2$ -> aten::mm\n"
        "  (fc\\d+)-Dense  ->  $1  \n"
        "Net/(fc\\d+)$ -> $1\n");
    ASSERT_TRUE(m) << m.error();
    EXPECT_EQ(m->size(), 3u);
    bool hit = false;
    EXPECT_EQ(m->apply("MatMulV2", &hit), "aten::mm");
    EXPECT_TRUE(hit);
    EXPECT_EQ(m->apply("fc2-Dense"), "fc2");
    EXPECT_EQ(m->apply("Net/fc1"), "fc1");
    EXPECT_EQ(m->apply("Relu", &hit), "Relu");
    EXPECT_FALSE(hit);
}

TEST(NameMap, JsonRulesAndErrors) {
    auto m = NameMap::parse(R"({"^Conv2D$": "aten::conv2d", "^BiasAdd$": "aten::add"})");
    ASSERT_TRUE(m) << m.error();
    EXPECT_EQ(m->apply("Conv2D"), "aten::conv2d");
    auto bad = NameMap::parse("ok -> fine\n([unclosed -> x\n");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().find("line 2"), std::string::npos) << bad.error();
    bad = NameMap::parse("no arrow here\n");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().find("REGEX -> NAME"), std::string::npos);
    bad = NameMap::parse(R"({"a": 3})");
    EXPECT_FALSE(bad);
    auto missing = NameMap::load("/nonexistent/op_map.txt");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("cannot read op map"), std::string::npos);
    const auto path = ts::test::tempDir("name_map") / "map.txt";
    std::ofstream(path) << "^a$ -> b\n";
    auto loaded = NameMap::load(path.string());
    ASSERT_TRUE(loaded) << loaded.error();
    EXPECT_EQ(loaded->apply("a"), "b");
}

TEST(NameMap, KeysShareIdsThroughMapAndFuzzyForm) {
    auto m = NameMap::parse("^MatMulV2-op(\\d+)$ -> MatMul-op$1\n");
    ASSERT_TRUE(m);
    NameKeys keys(&m.value());
    const uint32_t x = keys.key("MatMulV2-op3");
    EXPECT_EQ(keys.key("MatMul-op9"), x);
    EXPECT_NE(keys.key("Add-op3"), x);
    EXPECT_EQ(keys.keyText(x), "MatMul-op#");
    EXPECT_EQ(keys.mapped("MatMulV2-op3"), "MatMul-op3");
    NameKeys exact(nullptr, false);
    EXPECT_NE(exact.key("MatMul-op3"), exact.key("MatMul-op4"));
}
