// trainscope-cli launch: the --json contract, its exit code, and what happens when the CLI
// itself is killed (no orphan; the run is marked interrupted when the session next opens).
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/run/child_process.h"
#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using ts::test::runCli;

namespace {

rapidjson::Document parse(const std::string& out) {
    rapidjson::Document d;
    d.Parse(out.c_str());
    EXPECT_FALSE(d.HasParseError()) << out;
    return d;
}

bool launchedAlive(pid_t pid) {
    return ts::test::processRunning(pid);
}

}  // namespace

TEST(CliLaunch, JsonContractAndExitCode) {
    const fs::path dir = ts::test::tempDir("cli_launch");
    const std::string session = (dir / "s.tscope").string();
    auto r = runCli({"launch", "-o", session, "--json", "--name", "probe", "--", "sh", "-c",
                     "echo 'epoch: 1 step: 1, loss is 0.7'; echo oops >&2; exit 5"});
    EXPECT_EQ(r.exitCode, 5) << r.err;
    auto d = parse(r.out);
    ASSERT_TRUE(d.IsObject());
    for (const char* k : {"run", "status", "exit_code", "signal", "reason", "duration_s",
                          "log_lines", "scalars", "traces_imported", "dumps", "rdr"})
        EXPECT_TRUE(d.HasMember(k)) << k;
    EXPECT_EQ(d["run"].GetInt64(), 1);
    EXPECT_STREQ(d["status"].GetString(), "failed");
    EXPECT_EQ(d["exit_code"].GetInt(), 5);
    EXPECT_TRUE(d["signal"].IsNull());
    EXPECT_STREQ(d["reason"].GetString(), "exit code 5");
    EXPECT_EQ(d["log_lines"].GetInt64(), 2);
    EXPECT_EQ(d["scalars"]["train/loss"].GetInt64(), 1);
    EXPECT_TRUE(d["traces_imported"].IsArray());
    // The command's output still shows, on stderr with --json.
    EXPECT_NE(r.err.find("oops"), std::string::npos);
    EXPECT_NE(r.err.find("loss is 0.7"), std::string::npos);

    auto ok = runCli({"launch", "-o", session, "--", "sh", "-c", "echo fine"});
    EXPECT_EQ(ok.exitCode, 0);
    EXPECT_EQ(ok.out, "fine\n");
    EXPECT_NE(ok.err.find("run 2 completed"), std::string::npos) << ok.err;
}

TEST(CliLaunch, UsageErrors) {
    const fs::path dir = ts::test::tempDir("cli_launch_err");
    const std::string session = (dir / "s.tscope").string();
    auto noCmd = runCli({"launch", "-o", session, "--json"});
    EXPECT_NE(noCmd.exitCode, 0);
    EXPECT_NE(noCmd.out.find("no command to run"), std::string::npos) << noCmd.out;
    auto badLevel = runCli({"launch", "-o", session, "--log-level", "KERNEL=loud", "--", "true"});
    EXPECT_NE(badLevel.exitCode, 0);
    EXPECT_NE(badLevel.err.find("not a level"), std::string::npos) << badLevel.err;
    auto missing = runCli({"launch", "-o", session, "--json", "--", "no-such-trainer-xyz"});
    EXPECT_EQ(missing.exitCode, 1);
    auto d = parse(missing.out);
    EXPECT_STREQ(d["status"].GetString(), "failed");
    EXPECT_NE(std::string(d["reason"].GetString()).find("not found"), std::string::npos);
    auto notThere = runCli({"info", session, "--", "x"});
    EXPECT_EQ(notThere.exitCode, 2);
}

TEST(CliLaunch, KilledLauncherLeavesNoOrphanAndAnInterruptedRun) {
    const fs::path dir = ts::test::tempDir("cli_launch_kill");
    const std::string session = (dir / "s.tscope").string();
    const std::string pidFile = (dir / "child.pid").string();
    ts::run::EnvList env = ts::run::currentEnvironment();
    auto cli = ts::run::ChildProcess::spawn({ts::test::cliPath(),
                                             {"launch", "-o", session, "--quiet", "--", "sh", "-c",
                                              "echo $$ > " + pidFile + "; exec sleep 60"},
                                             "",
                                             env});
    ASSERT_TRUE(cli) << cli.error();
    pid_t child = 0;
    for (int i = 0; i < 500 && child == 0; ++i) {
        std::ifstream in(pidFile);
        in >> child;
        if (child == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_GT(child, 0);
    EXPECT_TRUE(launchedAlive(child));
    {  // While the launcher lives, the run is running for anyone who opens the session.
        auto s = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(s.ok()) << s.error();
        EXPECT_EQ(s.value()->runs().value().at(0).status, ts::store::RunStatus::Running);
    }
    ::kill(cli.value()->pid(), SIGKILL);
    for (int i = 0; i < 300 && !cli.value()->poll(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(cli.value()->ended());
    for (int i = 0; i < 300 && launchedAlive(child); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(launchedAlive(child)) << "the command outlived its launcher";
    auto s = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(s.ok()) << s.error();
    auto runs = s.value()->runs().value();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].status, ts::store::RunStatus::Interrupted);
    EXPECT_EQ(runs[0].kind, "command");
}
