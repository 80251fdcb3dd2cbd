#include "core/dist/tcp_store.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

namespace ts::dist {
namespace {

using Clock = std::chrono::steady_clock;

void putU32(std::string& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

uint32_t getU32(const char* p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
        v |= static_cast<uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    return v;
}

// Waits until `fd` is ready for `events` or `deadline` passes; false on the deadline.
bool waitFor(int fd, short events, Clock::time_point deadline) {
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return false;
        pollfd p{fd, events, 0};
        const int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
        if (r > 0) return true;
        if (r < 0 && errno != EINTR) return false;
    }
}

// Every byte by `deadline` (the socket is non-blocking): a peer that stops answering can
// not hold a rank past its timeout.
bool writeAll(int fd, const char* p, size_t n, Clock::time_point deadline) {
    while (n > 0) {
        const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!waitFor(fd, POLLOUT, deadline)) return false;
            continue;
        }
        if (w <= 0) return false;
        p += w;
        n -= static_cast<size_t>(w);
    }
    return true;
}

bool readAll(int fd, char* p, size_t n, Clock::time_point deadline) {
    while (n > 0) {
        const ssize_t r = ::recv(fd, p, n, MSG_DONTWAIT);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!waitFor(fd, POLLIN, deadline)) return false;
            continue;
        }
        if (r <= 0) return false;
        p += r;
        n -= static_cast<size_t>(r);
    }
    return true;
}

// The server's replies are a few bytes: a client that does not read them is dropped rather
// than allowed to stall every other rank's request.
bool sendNow(int fd, const std::string& bytes) {
    return writeAll(fd, bytes.data(), bytes.size(), Clock::now() + std::chrono::seconds(1));
}

// Connects within `deadline` (a host that drops packets must not hold connect() for the
// kernel's two minutes of retries); -1 with `why` set otherwise.
int connectBy(const addrinfo* ai, Clock::time_point deadline, std::string& why) {
    const int fd =
        ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) {
        why = std::strerror(errno);
        return -1;
    }
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) return fd;
    if (errno == EINPROGRESS && waitFor(fd, POLLOUT, deadline)) {
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err == 0) return fd;
        why = std::strerror(err);
    } else {
        why = errno == EINPROGRESS ? "no answer" : std::strerror(errno);
    }
    ::close(fd);
    return -1;
}

struct Client {
    int fd = -1;
    std::string in;
};

struct PendingGet {
    int fd;
    std::string key;
    Clock::time_point deadline;
};

bool reply(int fd, bool found, const std::string& value) {
    std::string out(1, found ? 1 : 0);
    putU32(out, static_cast<uint32_t>(value.size()));
    out += value;
    return sendNow(fd, out);
}

}  // namespace

Result<std::unique_ptr<TcpStoreServer>> TcpStoreServer::start(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return Error{std::string("rendezvous: socket: ") + std::strerror(errno)};
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = htons(static_cast<uint16_t>(port));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 128) != 0) {
        const std::string why = std::strerror(errno);
        ::close(fd);
        return Error{"rendezvous: cannot listen on port " + std::to_string(port) + ": " + why +
                     " (is MASTER_PORT free on rank 0's host?)"};
    }
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    std::unique_ptr<TcpStoreServer> s(new TcpStoreServer);
    s->m_listen = fd;
    s->m_port = ntohs(a.sin_port);
    if (::pipe2(s->m_wake, O_CLOEXEC) != 0) return Error{"rendezvous: pipe failed"};
    s->m_thread = std::thread([p = s.get()] { p->loop(); });
    return s;
}

TcpStoreServer::~TcpStoreServer() {
    if (m_wake[1] >= 0) {
        const char c = 'q';
        [[maybe_unused]] ssize_t n = ::write(m_wake[1], &c, 1);
    }
    if (m_thread.joinable()) m_thread.join();
    for (int fd : {m_listen, m_wake[0], m_wake[1]})
        if (fd >= 0) ::close(fd);
}

void TcpStoreServer::loop() {
    std::map<std::string, std::string> data;
    std::vector<Client> clients;
    std::vector<PendingGet> pending;
    for (;;) {
        std::vector<pollfd> fds = {{m_listen, POLLIN, 0}, {m_wake[0], POLLIN, 0}};
        for (const Client& c : clients) fds.push_back({c.fd, POLLIN, 0});
        if (::poll(fds.data(), fds.size(), 100) < 0 && errno != EINTR) return;
        if (fds[1].revents) break;
        if (fds[0].revents & POLLIN) {
            const int c = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
            if (c >= 0) {
                int one = 1;
                ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                clients.push_back({c, {}});
            }
        }
        for (size_t i = 2; i < fds.size(); ++i) {
            if (!fds[i].revents) continue;
            Client& c = clients[i - 2];
            char buf[65536];
            const ssize_t r = ::recv(c.fd, buf, sizeof buf, 0);
            if (r <= 0) {
                ::close(c.fd);
                c.fd = -1;
                continue;
            }
            c.in.append(buf, static_cast<size_t>(r));
            // Complete requests: op, key, value, timeout.
            for (;;) {
                if (c.in.size() < 5) break;
                const uint32_t klen = getU32(c.in.data() + 1);
                if (c.in.size() < 5 + klen + 4) break;
                const uint32_t vlen = getU32(c.in.data() + 5 + klen);
                const size_t total = 5 + klen + 4 + vlen + 4;
                if (c.in.size() < total) break;
                const char op = c.in[0];
                std::string key = c.in.substr(5, klen);
                std::string value = c.in.substr(9 + klen, vlen);
                const uint32_t timeoutMs = getU32(c.in.data() + 9 + klen + vlen);
                c.in.erase(0, total);
                bool sent = true;
                if (op == 'S') {
                    data[key] = std::move(value);
                    sent = sendNow(c.fd, std::string(1, '\1'));
                    for (auto it = pending.begin(); it != pending.end();) {
                        if (it->key == key) {
                            (void)reply(it->fd, true, data[key]);
                            it = pending.erase(it);
                        } else {
                            ++it;
                        }
                    }
                } else {
                    auto it = data.find(key);
                    if (it != data.end())
                        sent = reply(c.fd, true, it->second);
                    else if (op == 'T')
                        sent = reply(c.fd, false, {});
                    else
                        pending.push_back(
                            {c.fd, key, Clock::now() + std::chrono::milliseconds(timeoutMs)});
                }
                if (!sent) {
                    ::close(c.fd);
                    c.fd = -1;
                    break;
                }
            }
        }
        std::erase_if(clients, [](const Client& c) { return c.fd < 0; });
        const auto now = Clock::now();
        for (auto it = pending.begin(); it != pending.end();) {
            const bool gone = std::none_of(clients.begin(), clients.end(),
                                           [&](const Client& c) { return c.fd == it->fd; });
            if (gone || now >= it->deadline) {
                if (!gone) (void)reply(it->fd, false, {});
                it = pending.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (Client& c : clients) ::close(c.fd);
}

Result<std::unique_ptr<TcpStoreClient>> TcpStoreClient::connect(const std::string& host, int port,
                                                                std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    const std::string where = host + ":" + std::to_string(port);
    std::string last = "no answer";
    while (Clock::now() < deadline) {
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        addrinfo* res = nullptr;
        if (const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
            rc != 0)
            return Error{"rendezvous: cannot resolve '" + host + "': " + gai_strerror(rc)};
        for (addrinfo* ai = res; ai; ai = ai->ai_next) {
            const int fd = connectBy(ai, deadline, last);
            if (fd < 0) continue;
            ::freeaddrinfo(res);
            int one = 1;
            ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            std::unique_ptr<TcpStoreClient> c(new TcpStoreClient);
            c->m_fd = fd;
            c->m_where = where;
            c->m_timeout = timeout;
            return c;
        }
        ::freeaddrinfo(res);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return Error{"rendezvous: rank 0's store at " + where + " did not answer within " +
                 std::to_string(timeout.count() / 1000) + " s (" + last + ")"};
}

TcpStoreClient::~TcpStoreClient() {
    if (m_fd >= 0) ::close(m_fd);
}

Result<std::optional<std::vector<char>>> TcpStoreClient::request(char op, const std::string& key,
                                                                 const std::vector<char>& value,
                                                                 uint32_t timeoutMs) {
    std::string out(1, op);
    putU32(out, static_cast<uint32_t>(key.size()));
    out += key;
    putU32(out, static_cast<uint32_t>(value.size()));
    out.append(value.data(), value.size());
    putU32(out, timeoutMs);
    // The store answers a get by its timeout; the reply may take the connection's timeout
    // more (a loaded host), never longer: then the store is taken as gone.
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs) + m_timeout;
    const std::string gone = "rendezvous: the store at " + m_where +
                             " went away or did not answer within " +
                             std::to_string((timeoutMs + m_timeout.count()) / 1000) + " s";
    if (!writeAll(m_fd, out.data(), out.size(), deadline)) return Error{gone};
    char status = 0;
    if (!readAll(m_fd, &status, 1, deadline)) return Error{gone};
    if (op == 'S') return std::optional<std::vector<char>>(std::vector<char>{});
    char len[4];
    if (!readAll(m_fd, len, 4, deadline)) return Error{gone};
    std::vector<char> v(getU32(len));
    if (!v.empty() && !readAll(m_fd, v.data(), v.size(), deadline)) return Error{gone};
    if (!status) return std::optional<std::vector<char>>();
    return std::optional<std::vector<char>>(std::move(v));
}

Status TcpStoreClient::set(const std::string& key, const std::vector<char>& value) {
    auto r = request('S', key, value, 0);
    if (!r) return Error{r.error()};
    return {};
}

Result<std::vector<char>> TcpStoreClient::get(const std::string& key,
                                              std::chrono::milliseconds timeout) {
    auto r = request('G', key, {}, static_cast<uint32_t>(timeout.count()));
    if (!r) return Error{r.error()};
    if (!r.value())
        return Error{"rendezvous: '" + key + "' was not set within " +
                     std::to_string(timeout.count() / 1000) + " s"};
    return std::move(*r.value());
}

Result<std::optional<std::vector<char>>> TcpStoreClient::tryGet(const std::string& key) {
    return request('T', key, {}, 0);
}

std::string jobIdentityKey() {
    return "trainscope/job_identity";
}

Status checkJobIdentity(TcpStoreClient& c, int rank, const std::string& identity,
                        const std::string& where, std::chrono::milliseconds timeout) {
    if (rank == 0)
        return c.set(jobIdentityKey(), std::vector<char>(identity.begin(), identity.end()));
    auto theirs = c.get(jobIdentityKey(), timeout);
    if (!theirs) return Error{theirs.error()};
    const std::string job(theirs.value().begin(), theirs.value().end());
    if (job == identity) return {};
    return Error{"rendezvous: the store at " + where + " belongs to another job (" + job +
                 "); this rank is of " + identity +
                 ": refused (give each job its own MASTER_PORT, or the same TRAINSCOPE_JOB_ID "
                 "and settings to every rank of one job)"};
}

}  // namespace ts::dist
