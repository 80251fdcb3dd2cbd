// Child processes of command runs: start errors, exit status, process groups.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/run/child_process.h"
#include "tests/common/test_support.h"

using namespace ts::run;

namespace {

std::string readAll(ChildProcess& c) {
    std::string out;
    char buf[4096];
    for (int i = 0; i < 500 && c.stdoutFd() >= 0; ++i) {
        const ssize_t n = ::read(c.stdoutFd(), buf, sizeof buf);
        if (n > 0) {
            out.append(buf, static_cast<size_t>(n));
        } else if (n == 0) {
            c.closeStdout();
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
    return out;
}

void waitEnd(ChildProcess& c) {
    for (int i = 0; i < 500 && !c.poll(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

bool alive(pid_t pid) {
    return ts::test::processRunning(pid);
}

}  // namespace

TEST(ChildProcess, OutputExitCodeAndEnvironment) {
    auto c = ChildProcess::spawn({"sh",
                                  {"-c", "echo $GREETING; pwd; exit 7"},
                                  "/tmp",
                                  {{"GREETING", "hi"}, {"PATH", "/usr/bin:/bin"}}});
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(readAll(*c.value()), "hi\n/tmp\n");
    waitEnd(*c.value());
    EXPECT_EQ(c.value()->exitCode(), 7);
    EXPECT_FALSE(c.value()->termSignal());
    EXPECT_EQ(c.value()->describeEnd(), "exit code 7");
}

TEST(ChildProcess, StartErrorsAreErrorsNotExitCodes) {
    auto missing =
        ChildProcess::spawn({"no-such-program-xyz", {}, "", {{"PATH", "/usr/bin:/bin"}}});
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("not found on the PATH"), std::string::npos) << missing.error();
    auto badCwd =
        ChildProcess::spawn({"sh", {"-c", "true"}, "/no/such/folder", {{"PATH", "/bin"}}});
    ASSERT_FALSE(badCwd);
    EXPECT_NE(badCwd.error().find("does not exist"), std::string::npos) << badCwd.error();
    const auto dir = ts::test::tempDir("child");
    const std::string notExec = (dir / "script.sh").string();
    std::ofstream(notExec) << "echo hi\n";
    auto noX = ChildProcess::spawn({notExec, {}, "", {}});
    ASSERT_FALSE(noX);
    EXPECT_EQ(resolveProgram("sh", {{"PATH", "/nonexistent:/bin"}}, ""), "/bin/sh");
    EXPECT_EQ(resolveProgram("./script.sh", {}, dir.string()), "");  // not executable
}

TEST(ChildProcess, SignalReachesTheWholeGroup) {
    const auto dir = ts::test::tempDir("child_group");
    const std::string pidFile = (dir / "grandchild.pid").string();
    // The shell starts a grandchild and waits; SIGTERM to the group ends both.
    auto c = ChildProcess::spawn({"sh",
                                  {"-c", "sleep 60 & echo $! > " + pidFile + "; wait"},
                                  "",
                                  {{"PATH", "/usr/bin:/bin"}}});
    ASSERT_TRUE(c) << c.error();
    pid_t grandchild = 0;
    for (int i = 0; i < 200 && grandchild == 0; ++i) {
        std::ifstream in(pidFile);
        in >> grandchild;
        if (grandchild == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_GT(grandchild, 0);
    EXPECT_EQ(::getpgid(c.value()->pid()), c.value()->pid());  // its own group
    EXPECT_TRUE(c.value()->signalGroup(SIGTERM));
    waitEnd(*c.value());
    EXPECT_EQ(c.value()->termSignal(), SIGTERM);
    EXPECT_NE(c.value()->describeEnd().find("SIGTERM"), std::string::npos);
    for (int i = 0; i < 200 && alive(grandchild); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(alive(grandchild));
    EXPECT_FALSE(c.value()->signalGroup(SIGTERM));  // reaped: nothing to signal
}

TEST(ChildProcess, DestructorKillsARunningChild) {
    pid_t pid = 0;
    {
        auto c = ChildProcess::spawn({"sleep", {"60"}, "", {{"PATH", "/usr/bin:/bin"}}});
        ASSERT_TRUE(c);
        pid = c.value()->pid();
        EXPECT_TRUE(alive(pid));
    }
    EXPECT_FALSE(alive(pid));  // killed and reaped
}
