// LaunchSpec: its JSON form (runs.config of a command run), validation and --log-level.
#include <gtest/gtest.h>

#include "core/run/launch_spec.h"

using namespace ts::run;
using ts::log::Level;

TEST(LaunchSpec, JsonRoundTripKeepsEverySetting) {
    LaunchSpec s;
    s.name = "ddp";
    s.program = "python3";
    s.args = {"train.py", "--lr", "0.1 \"quoted\""};
    s.cwd = "/tmp/x";
    s.env = {{"A", "1"}, {"B", "two=2"}};
    s.watchDirs = {"runs", "/abs/traces"};
    s.logLevels = {parseLogLevelSetting("GLOBAL=INFO").value(),
                   parseLogLevelSetting("KERNEL=0").value(),
                   parseLogLevelSetting("EVENT=on").value()};
    s.lossRegex = "loss=(?P<loss>[0-9.]+)";
    s.pythonHooks = false;
    s.recordLoss = false;
    s.profile = true;
    s.profileSchedule = {2, 1, 1, 4, 3};
    s.recordShapes = false;
    s.dumpConfig = "dump.json";
    s.overflowCheck = true;
    s.stopOnOverflow = true;
    s.rdrConfig = "rdr.json";
    s.nproc = 4;
    s.ranks = RankScheme::MindSpore;
    s.masterAddr = "10.0.0.1";
    s.masterPort = 12345;
    s.graceSeconds = 2.5;
    auto back = launchSpecFromJson(launchSpecToJson(s));
    ASSERT_TRUE(back.ok()) << back.error();
    const LaunchSpec& b = back.value();
    EXPECT_EQ(b.name, s.name);
    EXPECT_EQ(b.program, s.program);
    EXPECT_EQ(b.args, s.args);
    EXPECT_EQ(b.cwd, s.cwd);
    EXPECT_EQ(b.env, s.env);
    EXPECT_EQ(b.watchDirs, s.watchDirs);
    ASSERT_EQ(b.logLevels.size(), 3u);
    EXPECT_EQ(b.logLevels[0].module, "");
    EXPECT_EQ(b.logLevels[0].level, Level::Info);
    EXPECT_EQ(b.logLevels[1].module, "KERNEL");
    EXPECT_EQ(b.logLevels[1].level, Level::Debug);
    EXPECT_TRUE(b.logLevels[2].eventsOn);
    EXPECT_EQ(b.lossRegex, s.lossRegex);
    EXPECT_FALSE(b.pythonHooks);
    EXPECT_FALSE(b.recordLoss);
    EXPECT_TRUE(b.profile);
    EXPECT_EQ(b.profileSchedule.skipFirst, 2);
    EXPECT_EQ(b.profileSchedule.active, 4);
    EXPECT_EQ(b.profileSchedule.repeat, 3);
    EXPECT_FALSE(b.recordShapes);
    EXPECT_TRUE(b.profileMemory);
    EXPECT_EQ(b.dumpConfig, "dump.json");
    EXPECT_TRUE(b.overflowCheck && b.stopOnOverflow);
    EXPECT_EQ(b.rdrConfig, "rdr.json");
    EXPECT_EQ(b.nproc, 4);
    EXPECT_EQ(b.ranks, RankScheme::MindSpore);
    EXPECT_EQ(b.masterAddr, "10.0.0.1");
    EXPECT_EQ(b.masterPort, 12345);
    EXPECT_DOUBLE_EQ(b.graceSeconds, 2.5);
    EXPECT_FALSE(launchSpecFromJson("[1,2]"));
    EXPECT_FALSE(launchSpecFromJson("{\"ranks\": \"mpi\"}"));
}

TEST(LaunchSpec, ValidationNamesWhatIsWrong) {
    LaunchSpec s;
    EXPECT_NE(validateLaunchSpec(s).error().find("no program"), std::string::npos);
    s.program = "python3";
    EXPECT_TRUE(validateLaunchSpec(s));
    s.nproc = 0;
    EXPECT_NE(validateLaunchSpec(s).error().find("1..1024"), std::string::npos);
    s.nproc = 2;
    s.masterPort = 70000;
    EXPECT_NE(validateLaunchSpec(s).error().find("port"), std::string::npos);
    s.masterPort = 0;
    s.env = {{"A=B", "x"}};
    EXPECT_NE(validateLaunchSpec(s).error().find("'='"), std::string::npos);
    s.env = {};
    s.lossRegex = "loss=([0-9.]+)";  // no named group
    EXPECT_NE(validateLaunchSpec(s).error().find("named group"), std::string::npos);
    s.lossRegex = "(?P<loss>[0-9.+)";
    EXPECT_NE(validateLaunchSpec(s).error().find("not a valid regular expression"),
              std::string::npos);
    s.lossRegex = "";
    s.graceSeconds = -1;
    EXPECT_FALSE(validateLaunchSpec(s));
}

TEST(LaunchSpec, LogLevelSettings) {
    auto g = parseLogLevelSetting("all=warning");
    ASSERT_TRUE(g);
    EXPECT_EQ(g->module, "");
    EXPECT_EQ(g->level, Level::Warning);
    EXPECT_EQ(formatLogLevelSetting(g.value()), "GLOBAL=WARNING");
    auto a = parseLogLevelSetting("ascend:slog=3");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->module, "ASCEND:SLOG");
    EXPECT_EQ(a->level, Level::Error);
    auto e = parseLogLevelSetting("EVENT=off");
    ASSERT_TRUE(e);
    EXPECT_FALSE(e->eventsOn);
    EXPECT_EQ(formatLogLevelSetting(e.value()), "EVENT=off");
    EXPECT_FALSE(parseLogLevelSetting("KERNEL"));
    EXPECT_FALSE(parseLogLevelSetting("KERNEL=loud"));
    EXPECT_FALSE(parseLogLevelSetting("EVENT=2"));
    EXPECT_FALSE(parseLogLevelSetting("a b=1"));
}

TEST(LaunchSpec, DisplayNameIsShort) {
    LaunchSpec s;
    s.program = "/usr/bin/python3";
    s.args = {"train.py", std::string(200, 'x')};
    const std::string n = s.displayName();
    EXPECT_EQ(n.rfind("python3 train.py ", 0), 0u) << n;
    EXPECT_LT(n.size(), 80u) << n;
    s.args = {"train.py"};
    s.nproc = 2;
    EXPECT_EQ(s.displayName(), "python3 train.py (2 processes)");
}
