// trainscope-cli analyze end to end: JSON figures, text output and errors.
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include "tests/analysis/profile_fixture.h"
#include "tests/common/test_support.h"

TEST(CliAnalyze, JsonTextAndErrors) {
    const auto path = ts::test::tempDir("an_cli") / "s.tscope";
    const auto bal = ts::test::writeProfileFixture(path, false);
    const auto slow = ts::test::writeProfileFixture(path, true);
    auto r = ts::test::runCli({"analyze", path.string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    rapidjson::Document doc;
    ASSERT_FALSE(doc.Parse(r.out.c_str()).HasParseError()) << r.out;
    EXPECT_EQ(doc["source_id"].GetInt64(), slow.sourceId);  // newest profile by default
    EXPECT_STREQ(doc["split"].GetString(), "phases");
    ASSERT_EQ(doc["steps"].Size(), 5u);
    EXPECT_EQ(doc["steps"][0]["dur"].GetInt64(), 800);
    EXPECT_TRUE(doc["steps"][0]["warmup"].GetBool());
    EXPECT_TRUE(doc["steps"][3]["slow"].GetBool());
    EXPECT_EQ(doc["steps"][1]["iteration_gap"].GetInt64(), 60);
    EXPECT_EQ(doc["memory"]["peak_ts"].GetInt64(), 1150);
    EXPECT_EQ(doc["memory"]["top_allocations"][0]["op"].GetString(), std::string("MatMul"));
    ASSERT_EQ(doc["advice"].Size(), 4u);
    EXPECT_STREQ(doc["advice"][0]["kind"].GetString(), "first_step_warmup");
    EXPECT_EQ(doc["advice"][0]["evidence"][0].GetInt64(), slow.stepIds[0]);
    // The overview names the biggest cost whatever the thresholds.
    EXPECT_STREQ(doc["overview"]["kind"].GetString(), "biggest_cost");
    EXPECT_EQ(doc["overview"]["evidence"].Size(), 5u);
    // The op bottleneck names the op's costliest input shapes (op stats by input shape).
    EXPECT_STREQ(doc["advice"][1]["kind"].GetString(), "op_bottleneck");
    ASSERT_TRUE(doc["advice"][1]["figures"].HasMember("input shapes #1"));
    EXPECT_EQ(std::string(doc["advice"][1]["figures"]["input shapes #1"].GetString())
                  .rfind("[[64,128]]: ", 0),
              0u);

    r = ts::test::runCli({"analyze", path.string(), "--run", std::to_string(bal.runId), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    ASSERT_FALSE(doc.Parse(r.out.c_str()).HasParseError());
    EXPECT_EQ(doc["source_id"].GetInt64(), bal.sourceId);
    EXPECT_EQ(doc["advice"].Size(), 0u);

    r = ts::test::runCli({"analyze", path.string(), "--source", std::to_string(slow.sourceId)});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("warm-up"), std::string::npos);
    EXPECT_NE(r.out.find("[op_bottleneck, engine]"), std::string::npos);
    EXPECT_NE(r.out.find("Memory peak: 900 bytes"), std::string::npos);

    r = ts::test::runCli({"analyze", path.string(), "--run", "77", "--json"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.out.find("\"error\""), std::string::npos);
    r = ts::test::runCli({"analyze", path.string(), "--source", "x"});
    EXPECT_EQ(r.exitCode, 1);
    r = ts::test::runCli({"analyze", (path.parent_path() / "missing.tscope").string()});
    EXPECT_EQ(r.exitCode, 1);
}
