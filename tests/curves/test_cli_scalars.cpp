// trainscope-cli scalars: JSON shape, filters, CSV output, errors.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "tests/curves/curves_fixture.h"

namespace {

rapidjson::Document parse(const std::string& text) {
    rapidjson::Document d;
    d.Parse(text.c_str());
    EXPECT_FALSE(d.HasParseError()) << text;
    return d;
}

}  // namespace

TEST(CliScalars, PrintsRunsSeriesAndPointsAsJson) {
    ts::test::CurvesSession s("cli_scalars");
    const int64_t a = s.beginRun("mlp");
    const int64_t b = s.beginRun("lenet5");
    s.fillRun(a, 5);
    s.scalar(b, "train/loss", 1, 2.5, 42);
    s.overflow(a, 2);
    s.finishRun(a);

    auto r = ts::test::runCli({"scalars", s.path(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto d = parse(r.out);
    ASSERT_TRUE(d.HasMember("runs"));
    const auto& runs = d["runs"];
    ASSERT_EQ(runs.Size(), 2u);
    EXPECT_EQ(runs[0]["id"].GetInt64(), a);
    EXPECT_STREQ(runs[0]["name"].GetString(), "mlp");
    EXPECT_STREQ(runs[0]["status"].GetString(), "completed");
    const auto& series = runs[0]["series"];
    ASSERT_EQ(series.Size(), 5u);
    EXPECT_STREQ(series[1]["tag"].GetString(), "eval/loss");  // display order
    EXPECT_STREQ(series[4]["tag"].GetString(), "loss_scale");
    EXPECT_STREQ(series[0]["tag"].GetString(), "train/loss");
    ASSERT_EQ(series[0]["points"].Size(), 5u);
    const auto& p = series[0]["points"][1];
    EXPECT_EQ(p[0].GetInt64(), 2);
    EXPECT_EQ(p[1].GetInt64(), 1'002'000'000);
    EXPECT_DOUBLE_EQ(p[2].GetDouble(), 1.0);
    ASSERT_EQ(runs[0]["overflow_steps"].Size(), 1u);
    EXPECT_EQ(runs[0]["overflow_steps"][0].GetInt64(), 2);
    EXPECT_STREQ(runs[1]["status"].GetString(), "running");
    EXPECT_EQ(runs[1]["series"][0]["points"][0][1].GetInt64(), 42);

    auto one = ts::test::runCli(
        {"scalars", s.path(), "--run", std::to_string(a), "--tag", "eval/accuracy", "--json"});
    ASSERT_EQ(one.exitCode, 0) << one.err;
    auto d1 = parse(one.out);
    ASSERT_EQ(d1["runs"].Size(), 1u);
    ASSERT_EQ(d1["runs"][0]["series"].Size(), 1u);
    EXPECT_STREQ(d1["runs"][0]["series"][0]["tag"].GetString(), "eval/accuracy");
    EXPECT_EQ(d1["runs"][0]["series"][0]["points"].Size(), 1u);
}

TEST(CliScalars, PrintsCsvWithoutJson) {
    ts::test::CurvesSession s("cli_scalars_csv");
    const int64_t a = s.beginRun("mlp");
    s.scalar(a, "train/loss", 1, 0.5, 10);
    s.scalar(a, "train/loss", 2, 0.25, 20);
    auto r = ts::test::runCli({"scalars", s.path(), "--smoothing", "0"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out,
              "run_id,run,tag,step,wall_time_ns,value,smoothed\n"
              "1,mlp,train/loss,1,10,0.5,0.5\n1,mlp,train/loss,2,20,0.25,0.25\n");
}

TEST(CliScalars, ReportsBadInputAsJsonErrors) {
    ts::test::CurvesSession s("cli_scalars_err");
    auto missingRun = ts::test::runCli({"scalars", s.path(), "--run", "7", "--json"});
    EXPECT_EQ(missingRun.exitCode, 1);
    EXPECT_NE(parse(missingRun.out)["error"].GetString(), std::string());
    EXPECT_NE(missingRun.out.find("no run with id 7"), std::string::npos);

    auto badRun = ts::test::runCli({"scalars", s.path(), "--run", "x1", "--json"});
    EXPECT_EQ(badRun.exitCode, 1);
    EXPECT_NE(badRun.out.find("--run needs an integer >= 1, got 'x1'"), std::string::npos)
        << badRun.out;

    auto badWeight = ts::test::runCli({"scalars", s.path(), "--smoothing", "1.5"});
    EXPECT_EQ(badWeight.exitCode, 1);

    auto noFile = ts::test::runCli({"scalars", "/nonexistent/x.tscope", "--json"});
    EXPECT_EQ(noFile.exitCode, 1);
    EXPECT_TRUE(parse(noFile.out).HasMember("error"));
}
