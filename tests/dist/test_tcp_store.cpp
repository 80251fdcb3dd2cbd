// The rendezvous store rank 0 serves: set, blocking get, try-get, timeouts, many clients.
#include <gtest/gtest.h>

#include <thread>

#include "core/dist/tcp_store.h"

using namespace ts::dist;
using namespace std::chrono_literals;

TEST(TcpStore, SetGetAcrossClients) {
    auto server = TcpStoreServer::start(0);
    ASSERT_TRUE(server) << server.error();
    const int port = server.value()->port();
    auto a = TcpStoreClient::connect("127.0.0.1", port, 5s);
    auto b = TcpStoreClient::connect("localhost", port, 5s);
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(a.value()->set("k", {'v', '1'}));
    auto v = b.value()->get("k", 1s);
    ASSERT_TRUE(v) << v.error();
    EXPECT_EQ(std::string(v->begin(), v->end()), "v1");
    auto missing = b.value()->tryGet("nope");
    ASSERT_TRUE(missing);
    EXPECT_FALSE(missing.value().has_value());
    // A get waits for the set of another client.
    std::thread later([&] {
        std::this_thread::sleep_for(100ms);
        (void)a.value()->set("late", {'x'});
    });
    auto waited = b.value()->get("late", 5s);
    later.join();
    ASSERT_TRUE(waited) << waited.error();
    EXPECT_EQ(waited->size(), 1u);
    auto timeout = b.value()->get("never", 200ms);
    ASSERT_FALSE(timeout);
    EXPECT_NE(timeout.error().find("was not set"), std::string::npos);
    // A big value goes through whole.
    std::vector<char> big(1 << 20, 'z');
    ASSERT_TRUE(a.value()->set("big", big));
    auto back = b.value()->get("big", 1s);
    ASSERT_TRUE(back);
    EXPECT_EQ(back.value(), big);
}

TEST(TcpStore, ClientWaitsForALateServerAndSeesItGo) {
    int port = 0;
    {
        auto probe = TcpStoreServer::start(0);
        ASSERT_TRUE(probe);
        port = probe.value()->port();
    }
    std::unique_ptr<TcpStoreServer> server;
    std::thread starter([&] {
        std::this_thread::sleep_for(200ms);
        auto s = TcpStoreServer::start(port);
        if (s) server = std::move(s.value());
    });
    auto c = TcpStoreClient::connect("127.0.0.1", port, 5s);
    starter.join();
    ASSERT_TRUE(c) << c.error();
    ASSERT_TRUE(c.value()->set("a", {'1'}));
    server.reset();  // rank 0 is gone
    EXPECT_FALSE(c.value()->set("b", {'2'}));
    auto none = TcpStoreClient::connect("127.0.0.1", port, 300ms);
    ASSERT_FALSE(none);
    EXPECT_NE(none.error().find("did not answer"), std::string::npos) << none.error();
}
