// The environment of a command run's processes: the frameworks' own switches.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "core/run/launch_env.h"
#include "tests/common/test_support.h"

using namespace ts::run;

namespace {

std::map<std::string, std::string> asMap(const EnvList& l) {
    return {l.begin(), l.end()};
}

RunPaths paths() {
    RunPaths p = runPathsFor("/data/exp.tscope", 7, "/opt/trainscope/python");
    return p;
}

}  // namespace

TEST(LaunchEnv, RunPathsBesideTheSession) {
    const RunPaths p = paths();
    EXPECT_EQ(p.runDir, "/data/exp-runs/run-7");
    EXPECT_EQ(p.profileDir, "/data/exp-runs/run-7/profile");
    EXPECT_EQ(p.eventsPattern(3), "/data/exp-runs/run-7/events.rank3.{pid}.jsonl");
}

TEST(LaunchEnv, LogLevelsBecomeTheFrameworksVariables) {
    LaunchSpec s;
    s.program = "python3";
    for (const char* l :
         {"GLOBAL=INFO", "KERNEL=DEBUG", "DEVICE=3", "ASCEND:SLOG=ERROR", "EVENT=on"})
        s.logLevels.push_back(parseLogLevelSetting(l).value());
    auto e = buildProcessEnvironment(s, {{"HOME", "/root"}}, paths(), 0, 0);
    ASSERT_TRUE(e) << e.error();
    auto m = asMap(e->full);
    EXPECT_EQ(m["GLOG_v"], "1");
    EXPECT_EQ(m["GLOG_stderrthreshold"], "1");
    EXPECT_EQ(m["GLOG_logtostderr"], "1");
    EXPECT_EQ(m["ASCEND_GLOBAL_LOG_LEVEL"], "1");
    EXPECT_EQ(m["ASCEND_SLOG_PRINT_TO_STDOUT"], "1");
    EXPECT_EQ(m["ASCEND_GLOBAL_EVENT_ENABLE"], "1");
    EXPECT_EQ(m["ASCEND_MODULE_LOG_LEVEL"], "SLOG=3");
    EXPECT_EQ(m["TORCH_CPP_LOG_LEVEL"], "INFO");
    EXPECT_EQ(m["MS_SUBMODULE_LOG_v"], "{KERNEL:0,DEVICE:3}");
    EXPECT_EQ(m["PYTHONUNBUFFERED"], "1");
    EXPECT_EQ(m["HOME"], "/root");
    // The same mapping is shown beside the levels before anything starts.
    auto vars = logLevelVariables(s.logLevels);
    std::map<std::string, std::string> shown;
    for (const EnvChange& c : vars) shown[c.name] = c.value;
    EXPECT_EQ(shown["MS_SUBMODULE_LOG_v"], "{KERNEL:0,DEVICE:3}");
    EXPECT_EQ(shown.count("PYTHONUNBUFFERED"), 0u);

    s.logLevels = {parseLogLevelSetting("GLOBAL=CRITICAL").value(),
                   parseLogLevelSetting("TORCH=DEBUG").value()};
    m = asMap(buildProcessEnvironment(s, {}, paths(), 0, 0)->full);
    EXPECT_EQ(m["GLOG_v"], "4");
    EXPECT_EQ(m["ASCEND_GLOBAL_LOG_LEVEL"], "3");  // Ascend has no CRITICAL: ERROR
    EXPECT_EQ(m["TORCH_CPP_LOG_LEVEL"], "INFO");   // the later TORCH setting wins
    s.logLevels = {parseLogLevelSetting("GLOBAL=DEBUG").value()};
    m = asMap(buildProcessEnvironment(s, {}, paths(), 0, 0)->full);
    EXPECT_EQ(m["TORCH_DISTRIBUTED_DEBUG"], "INFO");
}

TEST(LaunchEnv, RanksPerScheme) {
    LaunchSpec s;
    s.program = "python3";
    s.nproc = 4;
    s.ranks = RankScheme::Torch;
    auto m = asMap(buildProcessEnvironment(s, {}, paths(), 2, 29511)->full);
    EXPECT_EQ(m["RANK"], "2");
    EXPECT_EQ(m["LOCAL_RANK"], "2");
    EXPECT_EQ(m["WORLD_SIZE"], "4");
    EXPECT_EQ(m["MASTER_ADDR"], "127.0.0.1");
    EXPECT_EQ(m["MASTER_PORT"], "29511");
    EXPECT_EQ(m["TRAINSCOPE_RANK"], "2");
    EXPECT_EQ(m.count("RANK_ID"), 0u);
    s.ranks = RankScheme::MindSpore;
    m = asMap(buildProcessEnvironment(s, {}, paths(), 3, 0)->full);
    EXPECT_EQ(m["RANK_ID"], "3");
    EXPECT_EQ(m["RANK_SIZE"], "4");
    EXPECT_EQ(m["DEVICE_ID"], "3");
    EXPECT_EQ(m.count("RANK"), 0u);
}

TEST(LaunchEnv, PythonPackageAndUserVariables) {
    LaunchSpec s;
    s.program = "python3";
    s.cwd = "/work/exp";
    s.profile = true;
    s.profileSchedule = {0, 1, 2, 3, 1};
    s.profileMemory = false;
    s.dumpConfig = "cfg/dump.json";
    s.stopOnOverflow = true;
    s.env = {{"PYTHONUNBUFFERED", "0"}, {"EXTRA", "x"}};
    auto e = buildProcessEnvironment(s, {{"PYTHONPATH", "/mine"}}, paths(), 0, 0);
    ASSERT_TRUE(e);
    auto m = asMap(e->full);
    EXPECT_EQ(m["PYTHONPATH"], "/opt/trainscope/python:/mine");
    EXPECT_EQ(m["TRAINSCOPE_HOOKS"], "1");
    EXPECT_EQ(m["TRAINSCOPE_EVENTS"], "/data/exp-runs/run-7/events.rank0.{pid}.jsonl");
    EXPECT_EQ(m["TRAINSCOPE_LOSS"], "1");
    EXPECT_EQ(m["TRAINSCOPE_PROFILE"], "skip_first=0,wait=1,warmup=2,active=3,repeat=1");
    EXPECT_EQ(m["TRAINSCOPE_PROFILE_DIR"], "/data/exp-runs/run-7/profile");
    EXPECT_EQ(m["TRAINSCOPE_PROFILE_OPTIONS"], "record_shapes");
    EXPECT_EQ(m["TRAINSCOPE_DUMP_CONFIG"], "/work/exp/cfg/dump.json");
    EXPECT_EQ(m["TRAINSCOPE_OVERFLOW"], "stop");
    EXPECT_EQ(m["PYTHONUNBUFFERED"], "0");  // the user's value wins
    EXPECT_EQ(m["EXTRA"], "x");
    // The changes say where each variable came from; the user's last.
    ASSERT_FALSE(e->changes.empty());
    EXPECT_EQ(e->changes.back().origin, "user");
    // Without the package (or with hooks off) nothing of it is set.
    s.pythonHooks = false;
    m = asMap(buildProcessEnvironment(s, {{"PYTHONPATH", "/mine"}}, paths(), 0, 0)->full);
    EXPECT_EQ(m["PYTHONPATH"], "/mine");
    EXPECT_EQ(m.count("TRAINSCOPE_HOOKS"), 0u);
}

TEST(LaunchEnv, CrashRecordVariables) {
    const auto dir = ts::test::tempDir("launch_env");
    const std::string cfg = (dir / "rdr.json").string();
    std::ofstream(cfg) << R"({"rdr": {"enable": true, "mode": 2}})";
    LaunchSpec s;
    s.program = "python3";
    s.rdrConfig = cfg;
    auto e = buildProcessEnvironment(s, {}, paths(), 0, 0);
    ASSERT_TRUE(e) << e.error();
    auto m = asMap(e->full);
    EXPECT_EQ(m["MS_RDR_ENABLE"], "1");
    EXPECT_EQ(m["MS_RDR_MODE"], "2");
    EXPECT_EQ(m["MS_RDR_PATH"], "/data/exp-runs/run-7/rdr");  // none given: the run's folder
    EXPECT_EQ(e->rdrPath, "/data/exp-runs/run-7/rdr");
    std::ofstream(cfg) << R"({"rdr": {"enable": true, "mode": 3}})";
    auto bad = buildProcessEnvironment(s, {}, paths(), 0, 0);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().find("mode"), std::string::npos) << bad.error();
    s.rdrConfig = (dir / "missing.json").string();
    EXPECT_FALSE(buildProcessEnvironment(s, {}, paths(), 0, 0));
}

TEST(LaunchEnv, FreePortIsBindable) {
    const int p = pickFreePort("127.0.0.1");
    EXPECT_GT(p, 0);
    EXPECT_LT(p, 65536);
}
