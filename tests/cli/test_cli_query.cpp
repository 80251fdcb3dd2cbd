// trainscope-cli query: refusals (each case of store::UserQuery through the CLI), --timeout and
// Ctrl-C on a query that would run for ever.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <thread>

#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

namespace ts::test {
namespace {

constexpr const char* kEndless =
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n";

std::string makeSession(const std::string& tag) {
    const std::string path = (tempDir(tag) / "s.tscope").string();
    auto s = store::TraceStore::open(path, store::TraceStore::Mode::Create);
    EXPECT_TRUE(s) << s.error();
    return path;
}

TEST(CliQuery, RefusesWhatCouldWriteOrEscape) {
    const std::string session = makeSession("cliq_refuse");
    const std::string outside = (std::filesystem::path(session).parent_path() / "x.db").string();
    for (const std::string& sql :
         {std::string("ATTACH '") + outside + "' AS x",
          std::string("VACUUM INTO '") + outside + "'", std::string("PRAGMA writable_schema=1"),
          std::string("SELECT load_extension('x')"), std::string("SELECT 1; SELECT 2"),
          std::string("DELETE FROM sources")}) {
        auto r = runCli({"query", session, sql, "--json"});
        EXPECT_EQ(r.exitCode, 1) << sql;
        EXPECT_NE(r.out.find("\"error\""), std::string::npos) << sql << ": " << r.out;
    }
    EXPECT_FALSE(std::filesystem::exists(outside));
}

TEST(CliQuery, TimeoutStopsTheQuery) {
    const std::string session = makeSession("cliq_timeout");
    const auto t0 = std::chrono::steady_clock::now();
    auto r = runCli({"query", session, kEndless, "--timeout", "0.3", "--json"});
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.out.find("query timed out after 300 ms"), std::string::npos) << r.out;
    auto bad = runCli({"query", session, "SELECT 1", "--timeout", "soon", "--json"});
    EXPECT_EQ(bad.exitCode, 2);
}

TEST(CliQuery, CtrlCStopsTheQueryWithExit130) {
    const std::string session = makeSession("cliq_sigint");
    int out[2];
    ASSERT_EQ(::pipe(out), 0);
    const std::string cli = cliPath();
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::dup2(out[1], 1);
        ::close(out[0]);
        ::close(out[1]);
        ::execl(cli.c_str(), cli.c_str(), "query", session.c_str(), kEndless, "--json",
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(out[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    ::kill(pid, SIGINT);
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;)
        text.append(buf, static_cast<size_t>(n));
    ::close(out[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal instead of stopping the query";
    EXPECT_EQ(WEXITSTATUS(status), 130);
    EXPECT_NE(text.find("query cancelled"), std::string::npos) << text;
}

}  // namespace
}  // namespace ts::test
