// The bundled demo session the build makes (resources/demo/make_demo.sh) and `make run`
// opens: every view it is there for has data — two finished runs with curves and
// evaluations, a profile with ten ProfilerStep slices, and the runs' INFO log records.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/common/test_support.h"

namespace {

std::string demoPath() {
    return (std::filesystem::path(TS_BUILD_DIR) / "resources" / "demo.tscope").string();
}

int64_t count(const std::string& sql) {
    const auto r = ts::test::runCli({"query", demoPath(), sql});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    const auto nl = r.out.find('\n');  // header line, then the value
    return nl == std::string::npos ? -1 : std::stoll(r.out.substr(nl + 1));
}

}  // namespace

TEST(DemoSession, HoldsRunsCurvesProfileAndLogs) {
    if (!std::filesystem::exists(demoPath()))
        GTEST_SKIP() << "demo session not built (TRAINSCOPE_BUILD_GUI=OFF)";
    EXPECT_EQ(count("SELECT count(*) FROM runs WHERE status = 'completed'"), 2);
    EXPECT_GT(count("SELECT count(DISTINCT step) FROM scalars"), 200);
    EXPECT_EQ(count("SELECT count(*) FROM sources WHERE status = 'complete'"), 1);
    EXPECT_EQ(count("SELECT count(*) FROM slices s JOIN strings n ON n.id = s.name_id "
                    "WHERE n.str LIKE 'ProfilerStep#%'"),
              10);
    EXPECT_GT(count("SELECT count(*) FROM logs WHERE level = 1 AND module = 'ENGINE'"), 3);
}
