#pragma once
// The rendezvous of a job started with MASTER_ADDR / MASTER_PORT: a small key-value store
// that rank 0 serves on MASTER_PORT and every rank (rank 0 too) talks to, as PyTorch's c10d
// TCPStore does beside Gloo. Gloo exchanges the ranks' addresses through it; the ranks leave
// failure reasons in it. Only the rendezvous goes through it: the collectives are Gloo's.
//   request:  op (1 byte: 'S' set, 'G' get, 'T' try-get), key (u32 length + bytes),
//             value (u32 length + bytes; empty for gets)
//   reply:    'S': 1 byte 1;  'G', 'T': 1 byte (1 found, 0 not found / timed out) + value
// 'G' waits until the key is set or the client's timeout (u32 ms, sent after the key).
// Every wait is bounded: a client connects, sends and reads within its timeout (a store that
// stops answering is an error, not a hang), and the server drops a client that does not read.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/common/result.h"

namespace ts::dist {

class TcpStoreServer {
public:
    /// Listens on `port` (all interfaces; 0: a free port, see port()).
    static Result<std::unique_ptr<TcpStoreServer>> start(int port);
    ~TcpStoreServer();
    TcpStoreServer(const TcpStoreServer&) = delete;
    TcpStoreServer& operator=(const TcpStoreServer&) = delete;
    int port() const { return m_port; }

private:
    TcpStoreServer() = default;
    void loop();
    int m_listen = -1;
    int m_wake[2] = {-1, -1};
    int m_port = 0;
    std::thread m_thread;
};

class TcpStoreClient {
public:
    /// Connects, retrying until `timeout` (the server may start later than this rank).
    static Result<std::unique_ptr<TcpStoreClient>> connect(const std::string& host, int port,
                                                           std::chrono::milliseconds timeout);
    ~TcpStoreClient();
    TcpStoreClient(const TcpStoreClient&) = delete;
    TcpStoreClient& operator=(const TcpStoreClient&) = delete;

    Status set(const std::string& key, const std::vector<char>& value);
    /// Waits until `key` is set; error on timeout or a lost connection.
    Result<std::vector<char>> get(const std::string& key, std::chrono::milliseconds timeout);
    /// The value if set now, nullopt if not (error on a lost connection).
    Result<std::optional<std::vector<char>>> tryGet(const std::string& key);

private:
    TcpStoreClient() = default;
    Result<std::optional<std::vector<char>>> request(char op, const std::string& key,
                                                     const std::vector<char>& value,
                                                     uint32_t timeoutMs);
    int m_fd = -1;
    std::string m_where;
    std::chrono::milliseconds m_timeout{0};  // connect()'s: how long a reply may be late
};

/// The key under which rank 0 publishes its job's identity (shared by every job, so that one
/// job's rank finds another's store out).
std::string jobIdentityKey();

/// The rendezvous checks who is there: rank 0 publishes `identity` (its job id, world size and
/// what it trains: DistConfig::identity()); every other rank waits for it (within `timeout`)
/// and refuses to go on when it differs, so a rank of job B that reaches job A's store (one
/// MASTER_ADDR:MASTER_PORT for two jobs) fails at once, naming both, and never joins A.
Status checkJobIdentity(TcpStoreClient& c, int rank, const std::string& identity,
                        const std::string& where, std::chrono::milliseconds timeout);

}  // namespace ts::dist
