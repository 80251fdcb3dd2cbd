// `train --profile` writes each profiled step as it ends, as scalars are written, so a run
// killed long after its profile window keeps the steps it profiled (issue 25, case 3: a run
// killed with SIGKILL at step ~260 kept no profile at all of steps 1-20).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using ts::store::TraceStore;

namespace {

int64_t value(const std::string& session, const std::string& sql) {
    auto s = TraceStore::open(session, TraceStore::Mode::ReadOnly);
    if (!s) return -1;
    auto v = s.value()->db().queryInt(sql);
    return v ? v.value() : -1;
}

}  // namespace

TEST(ProfileKill, AKilledRunKeepsTheStepsItProfiled) {
    const fs::path dir = ts::test::tempDir("profile_kill");
    const std::string session = (dir / "s.tscope").string();
    const std::string cli = ts::test::cliPath();
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        const int devNull = ::open("/dev/null", O_WRONLY);
        ::dup2(devNull, 1);
        ::dup2(devNull, 2);
        ::execl(cli.c_str(), cli.c_str(), "train", "--model", "mlp", "--dataset", "synthetic",
                "--synthetic-samples", "2048", "--batch-size", "8", "--epochs", "1000", "--profile",
                "--profile-schedule", "0,0,3,1", "-o", session.c_str(),
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // Long after the window (steps 1-3): the run has recorded 60 steps of loss.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    while (value(session, "SELECT coalesce(max(step), 0) FROM scalars") < 60 &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it was killed";
    ASSERT_GE(value(session, "SELECT max(step) FROM scalars"), 60);

    auto s = TraceStore::open(session, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(s) << s.error();
    auto runs = s.value()->runs().value();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].status, ts::store::RunStatus::Interrupted);
    ASSERT_TRUE(runs[0].profileSourceId) << "the killed run has no profile";
    auto sources = s.value()->sources().value();
    ASSERT_EQ(sources.size(), 1u);
    EXPECT_EQ(sources[0].id, *runs[0].profileSourceId);
    EXPECT_EQ(sources[0].kind, "profiler");
    EXPECT_EQ(sources[0].status, ts::store::SourceStatus::Incomplete);
    auto& db = s.value()->db();
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM slices s JOIN strings n ON n.id = s.name_id "
                          "WHERE n.str LIKE 'ProfilerStep#%'")
                  .value(),
              3);
    const int64_t ops = db.queryInt("SELECT count(*) FROM slices").value();
    EXPECT_GT(ops, 3 * 10) << "each profiled step holds its ops";
    EXPECT_EQ(sources[0].slices, ops) << "its count is its rows";
    EXPECT_GT(db.queryInt("SELECT count(*) FROM flows").value(), 0);
    EXPECT_GT(db.queryInt("SELECT count(*) FROM counters").value(), 0);
}
