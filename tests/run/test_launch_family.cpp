// A launched command's whole family ends with its run (issue 25, case 9): what it left
// running after it exited (a background job, a daemon that left its session), and after a
// stop the program a shell wrapper started (a background job ignores SIGINT), are ended, and
// the run is reported only once none of them runs.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using ts::test::runCli;

namespace {

std::vector<pid_t> pidsIn(const fs::path& file) {
    std::vector<pid_t> out;
    std::ifstream in(file);
    for (pid_t p = 0; in >> p;) out.push_back(p);
    return out;
}

}  // namespace

TEST(LaunchFamily, ACompletedRunEndsWhatItLeftRunning) {
    const fs::path dir = ts::test::tempDir("launch_leftovers");
    const std::string session = (dir / "s.tscope").string();
    const std::string pids = (dir / "pids").string();
    // A background job in the group, and one that left the session (setsid) and is
    // reparented to init at once: both outlive the command's own process.
    auto r = runCli({"launch", "-o", session, "--json", "--quiet", "--grace", "1", "--", "sh", "-c",
                     "sleep 300 & echo $! >> " + pids + "; setsid sleep 301 & echo $! >> " + pids +
                         "; sleep 0.5; exit 0"});
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("\"completed\""), std::string::npos) << r.out;
    const auto left = pidsIn(pids);
    ASSERT_EQ(left.size(), 2u);
    for (pid_t p : left) EXPECT_FALSE(ts::test::processRunning(p)) << "pid " << p << " runs on";
}

TEST(LaunchFamily, AStopEndsTheProgramItsShellWrapperLeftBehind) {
    const fs::path dir = ts::test::tempDir("launch_wrapper");
    const std::string session = (dir / "s.tscope").string();
    const std::string pids = (dir / "pids").string();
    const std::string cli = ts::test::cliPath();
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        // The background job of a non-interactive shell ignores SIGINT: the shell dies of the
        // stop's SIGINT, its program does not.
        ::execl(
            cli.c_str(), cli.c_str(), "launch", "-o", session.c_str(), "--quiet", "--grace", "1",
            "--", "sh", "-c",
            ("python3 -c 'import time; time.sleep(300)' & echo $! > " + pids + "; wait").c_str(),
            static_cast<char*>(nullptr));
        ::_exit(127);
    }
    std::vector<pid_t> program;
    for (int i = 0; i < 1000 && program.empty(); ++i) {
        program = pidsIn(pids);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(program.size(), 1u);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // python has started
    ASSERT_EQ(::kill(pid, SIGINT), 0);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            ::kill(program[0], SIGKILL);
            FAIL() << "launch did not end after Ctrl-C";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const bool programRuns = ts::test::processRunning(program[0]);
    if (programRuns) ::kill(program[0], SIGKILL);
    EXPECT_FALSE(programRuns) << "the run was reported stopped while its program ran on";
    auto q = runCli({"query", session, "SELECT status FROM runs"});
    EXPECT_NE(q.out.find("stopped"), std::string::npos) << q.out;
}
