// trainscope-cli query: refusals (each case of store::UserQuery through the CLI), --timeout and
// Ctrl-C on a query that would run for ever.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <thread>

#include <rapidjson/document.h>

#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

namespace ts::test {
namespace {

constexpr const char* kEndless =
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n";

std::string makeQuerySession(const std::string& tag) {
    const std::string path = (tempDir(tag) / "s.tscope").string();
    auto s = store::TraceStore::open(path, store::TraceStore::Mode::Create);
    EXPECT_TRUE(s) << s.error();
    return path;
}

TEST(CliQuery, RefusesWhatCouldWriteOrEscape) {
    const std::string session = makeQuerySession("cliq_refuse");
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
    const std::string session = makeQuerySession("cliq_timeout");
    // The query never ends by itself: that it returns, saying why, is the timeout's doing.
    auto r = runCli({"query", session, kEndless, "--timeout", "0.3", "--json"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.out.find("query timed out after 300 ms"), std::string::npos) << r.out;
    auto bad = runCli({"query", session, "SELECT 1", "--timeout", "soon", "--json"});
    EXPECT_EQ(bad.exitCode, 2);
}

TEST(CliQuery, CtrlCStopsTheQueryWithExit130) {
    const std::string session = makeQuerySession("cliq_sigint");
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

// Issue 25, case 18: a PRAGMA as a table-valued function passed the allow-list.
TEST(CliQuery, TableValuedPragmasPassTheSameAllowList) {
    const std::string session = makeQuerySession("cliq_pragma_tvf");
    for (const char* sql :
         {"SELECT * FROM pragma_optimize(0x10002)", "SELECT * FROM pragma_foreign_key_check",
          "SELECT * FROM pragma_integrity_check", "SELECT * FROM main.pragma_optimize",
          "SELECT * FROM pragma_quick_check('slices')"}) {
        auto r = runCli({"query", session, sql, "--json"});
        EXPECT_EQ(r.exitCode, 1) << sql << ": " << r.out;
        EXPECT_NE(r.out.find("is not allowed in a query"), std::string::npos) << sql << r.out;
    }
    for (const char* sql :
         {"SELECT name FROM pragma_table_info('sources')", "SELECT * FROM pragma_user_version",
          "SELECT * FROM pragma_page_size"}) {
        auto r = runCli({"query", session, sql, "--json"});
        EXPECT_EQ(r.exitCode, 0) << sql << ": " << r.out << r.err;
    }
}

// Issue 25, case 7: without --timeout a runaway query ran until memory ran out. Every query
// now has a memory limit (and a time limit) unless lifted; this one takes memory fast (an
// ever longer string) and is stopped by the limit it was given.
TEST(CliQuery, AMemoryLimitStopsARunawayQuery) {
    const std::string session = makeQuerySession("cliq_memory");
    const std::string hungry =
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
        "SELECT length(group_concat(hex(zeroblob(100)))) FROM n";
    auto r = runCli({"query", session, hungry, "--memory-limit", "64", "--timeout", "0", "--json"});
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("query stopped: it took more than 64 MiB of memory"), std::string::npos)
        << r.out;
    auto bad = runCli({"query", session, "SELECT 1", "--memory-limit", "lots", "--json"});
    EXPECT_EQ(bad.exitCode, 1);
    EXPECT_NE(bad.out.find("--memory-limit"), std::string::npos) << bad.out;
}

// --json writes rows as they come: a query stopped midway still gives the rows it had, in one
// valid object that ends with the error.
TEST(CliQuery, JsonIsStreamedAndAStoppedQueryEndsItWithTheError) {
    const std::string session = makeQuerySession("cliq_stream");
    auto r = runCli({"query", session,
                     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i "
                     "FROM n",
                     "--timeout", "0.5", "--json"});
    EXPECT_EQ(r.exitCode, 1);
    ASSERT_FALSE(r.out.empty());
    rapidjson::Document d;
    d.Parse(r.out.c_str());
    ASSERT_FALSE(d.HasParseError())
        << r.out.substr(0, 300) << " ... " << r.out.substr(r.out.size() - 300);
    ASSERT_TRUE(d.IsObject());
    ASSERT_TRUE(d.HasMember("rows") && d["rows"].IsArray()) << r.out.substr(0, 300);
    ASSERT_GT(d["rows"].Size(), 1000u) << "the rows before the stop are there";
    EXPECT_EQ(d["rows"][0][0].GetInt(), 1);
    ASSERT_TRUE(d.HasMember("error") && d["error"].IsString());
    EXPECT_STREQ(d["error"].GetString(), "query timed out after 500 ms");
}

}  // namespace
}  // namespace ts::test
