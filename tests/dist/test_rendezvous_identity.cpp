// The rendezvous knows its job, and no wait of it is unbounded (issue 25, case 10: with two
// jobs on one MASTER_ADDR:MASTER_PORT, job B's rank 1 joined job A and trained as A's rank 1
// while A's real rank 1 failed; under load a rank hung 200 s despite a 40 s timeout).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "core/dist/process_group.h"
#include "core/dist/tcp_store.h"
#include "core/run/launch_env.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST(RendezvousIdentity, ARankOfAnotherJobIsRefused) {
    auto server = ts::dist::TcpStoreServer::start(0);
    ASSERT_TRUE(server) << server.error();
    const int port = server.value()->port();
    auto a0 = ts::dist::TcpStoreClient::connect("127.0.0.1", port, 5s).value();
    auto a1 = ts::dist::TcpStoreClient::connect("127.0.0.1", port, 5s).value();
    auto b1 = ts::dist::TcpStoreClient::connect("127.0.0.1", port, 5s).value();
    const std::string jobA = "job A, world size 2, settings mlp", jobB =
                                                                      "job B, world size 2, "
                                                                      "settings mlp";
    ASSERT_TRUE(ts::dist::checkJobIdentity(*a0, 0, jobA, "tcp://here", 5s));
    auto refused = ts::dist::checkJobIdentity(*b1, 1, jobB, "tcp://here", 5s);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find("belongs to another job (" + jobA + ")"), std::string::npos)
        << refused.error();
    EXPECT_NE(refused.error().find(jobB), std::string::npos) << refused.error();
    EXPECT_TRUE(ts::dist::checkJobIdentity(*a1, 1, jobA, "tcp://here", 5s));
}

// A store that takes the connection and never answers: every call still returns, by its
// timeout. (In a child with an alarm, so a hang fails the test instead of stopping it.)
TEST(RendezvousIdentity, AStoreThatNeverAnswersCannotHoldARank) {
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(listener, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ASSERT_EQ(::listen(listener, 8), 0);
    socklen_t len = sizeof a;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len);
    const int port = ntohs(a.sin_port);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::alarm(60);  // a hang ends here, by SIGALRM
        auto c = ts::dist::TcpStoreClient::connect("127.0.0.1", port, 1s);
        if (!c) ::_exit(2);
        auto got = c.value()->get("key", 1s);
        auto tried = c.value()->tryGet("key");
        auto set = c.value()->set("key", {'x'});
        ::_exit(!got && !tried && !set ? 0 : 3);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(listener);
    ASSERT_TRUE(WIFEXITED(status))
        << "the client hung (killed by signal " << WTERMSIG(status) << ")";
    EXPECT_EQ(WEXITSTATUS(status), 0);
}

namespace {

ts::test::CommandResult rankProcess(int r, int port, const std::string& job, const fs::path& out) {
    return ts::test::runProgram(
        "/usr/bin/env",
        {"RANK=" + std::to_string(r), "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1",
         "MASTER_PORT=" + std::to_string(port), "TRAINSCOPE_JOB_ID=" + job,
         "TRAINSCOPE_DIST_TIMEOUT=60", ts::test::cliPath(), "train", "--dataset", "synthetic",
         "--limit-steps", "30", "--batch-size", "16", "-o", out.string(), "--json"});
}

}  // namespace

TEST(RendezvousIdentity, TwoJobsOnOnePortDoNotMix) {
    if (!ts::dist::haveCollectives()) GTEST_SKIP() << "built without Gloo";
    const fs::path dir = ts::test::tempDir("two_jobs");
    const int port = ts::run::pickFreePort("127.0.0.1");
    ts::test::CommandResult a0, a1, b1;
    std::thread t0([&] { a0 = rankProcess(0, port, "A", dir / "a"); });
    std::this_thread::sleep_for(1s);            // A's rank 0 serves the store
    b1 = rankProcess(1, port, "B", dir / "b");  // B's rank 1 finds A's store
    std::thread t1([&] { a1 = rankProcess(1, port, "A", dir / "a"); });
    t0.join();
    t1.join();
    EXPECT_NE(b1.exitCode, 0) << "job B's rank joined job A: " << b1.out;
    EXPECT_NE(b1.out.find("belongs to another job (job A"), std::string::npos) << b1.out;
    EXPECT_EQ(a0.exitCode, 0) << a0.out << a0.err;
    EXPECT_EQ(a1.exitCode, 0) << a1.out << a1.err;
}
