// CSV export: header, one row per sample, quoting, non-finite values, smoothed column.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/curves/scalar_csv.h"
#include "tests/common/test_support.h"

using namespace ts::curves;

namespace {

RunScalars sampleRun() {
    RunScalars r;
    r.runId = 3;
    r.name = "mlp, \"fast\"";
    r.series.push_back({"train/loss", {{1, 1000, 1.0}, {2, 2000, 2.0}, {3, 3000, 3.0}}});
    r.series.push_back({"eval/accuracy", {{3, 3500, 0.875}, {6, 6500, std::nan("")}}});
    return r;
}

}  // namespace

TEST(ScalarCsv, WritesOneRowPerSample) {
    const std::vector<RunScalars> runs = {sampleRun()};
    const std::string csv = scalarsCsv(runs, 0.5);
    EXPECT_EQ(csv,
              "run_id,run,tag,step,wall_time_ns,value,smoothed\n"
              "3,\"mlp, \"\"fast\"\"\",train/loss,1,1000,1,1\n"
              "3,\"mlp, \"\"fast\"\"\",train/loss,2,2000,2,1.6666666666666667\n"
              "3,\"mlp, \"\"fast\"\"\",train/loss,3,3000,3,2.4285714285714284\n"
              "3,\"mlp, \"\"fast\"\"\",eval/accuracy,3,3500,0.875,0.875\n"
              "3,\"mlp, \"\"fast\"\"\",eval/accuracy,6,6500,nan,nan\n");
}

TEST(ScalarCsv, EmptyAndUnsmoothedTags) {
    EXPECT_EQ(scalarsCsv({}, 0.3), "run_id,run,tag,step,wall_time_ns,value,smoothed\n");
    RunScalars r;
    r.runId = 1;
    r.name = "a";
    r.series.push_back({"lr", {{5, 7, -std::numeric_limits<double>::infinity()}, {6, 8, 0.25}}});
    const std::vector<RunScalars> runs = {r};
    // lr is a setting, never smoothed, whatever the weight.
    EXPECT_EQ(scalarsCsv(runs, 0.9),
              "run_id,run,tag,step,wall_time_ns,value,smoothed\n1,a,lr,5,7,-inf,-inf\n1,a,lr,6,8,0."
              "25,0.25\n");
}

TEST(ScalarCsv, WritesAFileAndReportsUnwritablePaths) {
    const auto dir = ts::test::tempDir("csv");
    const std::vector<RunScalars> runs = {sampleRun()};
    const std::string path = (dir / "out.csv").string();
    ASSERT_TRUE(writeScalarsCsv(path, runs, 0).ok());
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    EXPECT_EQ(ss.str(), scalarsCsv(runs, 0));
    const auto bad = writeScalarsCsv((dir / "no/such/dir/out.csv").string(), runs, 0);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().find("cannot write"), std::string::npos);
}
