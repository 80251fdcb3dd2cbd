// Real fatal signals in a forked child: SIGSEGV (null write), SIGFPE (integer division by
// zero) and SIGABRT (abort) each leave a complete export naming the op in flight, and the
// child still dies of the signal (default action re-raised).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>

#include "core/debug/rdr/rdr_reader.h"
#include "tests/common/test_support.h"
#include "tests/rdr/rdr_test_run.h"

namespace fs = std::filesystem;
using namespace ts::rdr;

namespace {

int* volatile g_null = nullptr;
volatile int g_zero = 0;
volatile int g_hundred = 100;
volatile int g_sink = 0;

void noCoreFile() {
    struct rlimit none {};
    setrlimit(RLIMIT_CORE, &none);
}

[[noreturn]] void crash(int sig) {
    if (sig == SIGSEGV) *g_null = 1;
    if (sig == SIGFPE) g_sink = g_hundred / g_zero;  // both volatile: a real idiv
    if (sig == SIGABRT) std::abort();
    _exit(3);  // the signal did not happen
}

// Forks a child that records a run, starts the op "Default/network/Crash-op9" and crashes;
// returns the child's wait status.
int runCrashingChild(const fs::path& root, int sig) {
    const pid_t pid = fork();
    if (pid == 0) {
        noCoreFile();
        RunningDataRecorder r;
        ts::rdr::test::recordSampleRun(r, root.string(), 1);
        r.installFatalSignalHandlers();
        r.recordOp(99, "Crash", "Default/network/Crash-op9", {{{4}, "int32"}}, {{4}});
        crash(sig);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

class RdrSignal : public ::testing::TestWithParam<int> {};

TEST_P(RdrSignal, ChildCrashLeavesCompleteExport) {
    const int sig = GetParam();
    const fs::path root = ts::test::tempDir("rdr_sig_" + std::to_string(sig));
    const int status = runCrashingChild(root, sig);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
    EXPECT_EQ(WTERMSIG(status), sig);

    auto e = readRdrExport(root.string());
    ASSERT_TRUE(e.ok()) << e.error();
    EXPECT_TRUE(e->problems.empty());
    EXPECT_EQ(e->signal, sig);
    const std::string name = sig == SIGSEGV ? "SIGSEGV" : sig == SIGFPE ? "SIGFPE" : "SIGABRT";
    EXPECT_EQ(e->reason, "signal " + name);
    EXPECT_EQ(e->failingOp, "Default/network/Crash-op9");
    EXPECT_EQ(e->failingSeqid, 99);
    ASSERT_EQ(e->current.rows.size(), 4u);
    EXPECT_EQ(e->failingRow(), 3);
    EXPECT_EQ(e->previous.rows.size(), 3u);
    EXPECT_NE(e->graphIr.find("Softmax-op2"), std::string::npos);
    EXPECT_EQ(e->allocations.size(), 6u);
    EXPECT_EQ(e->logLines.size(), 2u);
    EXPECT_EQ(e->runState["loss"], "2.25");
    EXPECT_EQ(e->step, 2);
    EXPECT_EQ(e->files.size(), 5u);
}

INSTANTIATE_TEST_SUITE_P(Fatal, RdrSignal, ::testing::Values(SIGSEGV, SIGFPE, SIGABRT),
                         [](const auto& info) {
                             return std::string(info.param == SIGSEGV  ? "SIGSEGV"
                                                : info.param == SIGFPE ? "SIGFPE"
                                                                       : "SIGABRT");
                         });

TEST(RdrSignalDisabled, CrashWithRdrOffWritesNothing) {
    const fs::path root = ts::test::tempDir("rdr_sig_off");
    const pid_t pid = fork();
    if (pid == 0) {
        noCoreFile();
        RunningDataRecorder r;
        r.configure({false, 1, root.string(), 0});
        r.installFatalSignalHandlers();
        crash(SIGSEGV);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(WTERMSIG(status), SIGSEGV);
    EXPECT_FALSE(fs::exists(root / "rank_0"));
}

TEST(RdrSignalDisabled, UninstallRestoresPreviousHandler) {
    struct sigaction before {};
    sigaction(SIGFPE, nullptr, &before);
    {
        RunningDataRecorder r;
        r.installFatalSignalHandlers();
        struct sigaction during {};
        sigaction(SIGFPE, nullptr, &during);
        EXPECT_NE(during.sa_handler, before.sa_handler);
    }
    struct sigaction after {};
    sigaction(SIGFPE, nullptr, &after);
    EXPECT_EQ(after.sa_handler, before.sa_handler);
}

}  // namespace
