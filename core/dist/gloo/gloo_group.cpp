// ProcessGroup over Gloo (PyTorch's CPU backend): a full mesh of TCP pairs between the ranks,
// ring allreduce, one-to-all broadcast. The rendezvous is our TCP store (MASTER_ADDR:PORT,
// served by rank 0) or Gloo's FileStore (file:DIR on a folder every rank sees).
#include "core/dist/gloo/gloo_group.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <filesystem>
#include <stdexcept>

#include "core/dist/tcp_store.h"

namespace ts::dist {
namespace {

// Gloo's Store over our TCP store client. Gloo reports errors by exception.
class TcpStoreAdapter : public gloo::rendezvous::Store {
public:
    TcpStoreAdapter(TcpStoreClient& c, std::chrono::milliseconds timeout)
        : m_c(c), m_timeout(timeout) {}
    void set(const std::string& key, const std::vector<char>& data) override {
        if (auto s = m_c.set(key, data); !s) throw std::runtime_error(s.error());
    }
    std::vector<char> get(const std::string& key) override {
        auto v = m_c.get(key, m_timeout);
        if (!v) throw std::runtime_error(v.error());
        return std::move(v.value());
    }
    void wait(const std::vector<std::string>& keys) override { wait(keys, m_timeout); }
    void wait(const std::vector<std::string>& keys,
              const std::chrono::milliseconds& timeout) override {
        for (const auto& k : keys)
            if (auto v = m_c.get(k, timeout); !v) throw std::runtime_error(v.error());
    }

private:
    TcpStoreClient& m_c;
    std::chrono::milliseconds m_timeout;
};

using ReduceFn = void (*)(void*, const void*, const void*, size_t);

class GlooGroup : public ProcessGroup {
public:
    explicit GlooGroup(DistConfig c) : m_cfg(std::move(c)) {}

    Status connect() {
        try {
            std::string host;
            int port = 0;
            if (parseTcpUrl(m_cfg.rendezvous, &host, &port)) {
                if (m_cfg.rank == 0) {
                    auto server = TcpStoreServer::start(port);
                    if (!server) return Error{server.error()};
                    m_server = std::move(server.value());
                }
                auto client = TcpStoreClient::connect(host, port, m_cfg.timeout);
                if (!client) return Error{client.error()};
                m_client = std::move(client.value());
                // Another job's store on this address is refused before anything is written.
                if (auto s = checkJobIdentity(*m_client, m_cfg.rank, m_cfg.identity(),
                                              m_cfg.rendezvous, m_cfg.timeout);
                    !s)
                    return Error{"cannot connect " + m_cfg.describe() + ": " + s.error()};
                m_store = std::make_unique<TcpStoreAdapter>(*m_client, m_cfg.timeout);
            } else {
                const std::string dir = m_cfg.rendezvous.substr(5);
                std::error_code ec;
                std::filesystem::create_directories(dir, ec);
                m_store = std::make_unique<gloo::rendezvous::FileStore>(dir);
            }
            gloo::transport::tcp::attr attr;
            attr.hostname = m_cfg.host;
            auto device = gloo::transport::tcp::CreateDevice(attr);
            m_ctx = std::make_shared<gloo::rendezvous::Context>(m_cfg.rank, m_cfg.worldSize);
            m_ctx->setTimeout(m_cfg.timeout);
            gloo::rendezvous::PrefixStore prefixed(keyPrefix(), *m_store);
            m_ctx->connectFullMesh(prefixed, device);
        } catch (const std::exception& e) {
            return Error{"cannot connect " + m_cfg.describe() + " to the other ranks: " + e.what()};
        }
        return {};
    }

    int rank() const override { return m_cfg.rank; }
    int size() const override { return m_cfg.worldSize; }
    std::string algorithm() const override { return "ring"; }

    Status allreduceSum(float* data, size_t n) override {
        return run("allreduce", [&] {
            gloo::AllreduceOptions o(m_ctx);
            o.setOutput(data, n);
            o.setReduceFunction(static_cast<ReduceFn>(&gloo::sum<float>));
            o.setAlgorithm(gloo::AllreduceOptions::Algorithm::RING);
            o.setTag(m_tag++);
            o.setTimeout(m_cfg.timeout);
            gloo::allreduce(o);
        });
    }
    Status allreduceSum(double* data, size_t n) override {
        return run("allreduce", [&] {
            gloo::AllreduceOptions o(m_ctx);
            o.setOutput(data, n);
            o.setReduceFunction(static_cast<ReduceFn>(&gloo::sum<double>));
            o.setAlgorithm(gloo::AllreduceOptions::Algorithm::RING);
            o.setTag(m_tag++);
            o.setTimeout(m_cfg.timeout);
            gloo::allreduce(o);
        });
    }
    Status broadcast(float* data, size_t n, int root) override {
        return run("broadcast", [&] {
            gloo::BroadcastOptions o(m_ctx);
            o.setOutput(data, n);
            o.setRoot(root);
            o.setTag(m_tag++);
            o.setTimeout(m_cfg.timeout);
            gloo::broadcast(o);
        });
    }
    Status allgather(const double* in, size_t n, double* out) override {
        return run("allgather", [&] {
            gloo::AllgatherOptions o(m_ctx);
            o.setInput(const_cast<double*>(in), n);
            o.setOutput(out, n * static_cast<size_t>(m_cfg.worldSize));
            o.setTag(m_tag++);
            o.setTimeout(m_cfg.timeout);
            gloo::allgather(o);
        });
    }
    Status barrier() override {
        return run("barrier", [&] {
            gloo::BarrierOptions o(m_ctx);
            o.setTag(m_tag++);
            o.setTimeout(m_cfg.timeout);
            gloo::barrier(o);
        });
    }

    void reportFailure(const std::string& reason) override {
        try {
            m_store->set(keyPrefix() + "/failed/" + std::to_string(m_cfg.rank),
                         std::vector<char>(reason.begin(), reason.end()));
        } catch (const std::exception&) {
        }
    }

    std::string peerFailures() override {
        if (!m_client) return {};  // a FileStore get would block until its timeout
        std::string out;
        for (int r = 0; r < m_cfg.worldSize; ++r) {
            if (r == m_cfg.rank) continue;
            auto v = m_client->tryGet(keyPrefix() + "/failed/" + std::to_string(r));
            if (!v || !v.value()) continue;
            if (!out.empty()) out += "; ";
            out += "rank " + std::to_string(r) + ": " +
                   std::string(v.value()->begin(), v.value()->end());
        }
        return out;
    }

private:
    // The job's keys: two jobs on one store (a file: folder reused) never read each other's.
    std::string keyPrefix() const {
        return m_cfg.jobId.empty() ? "trainscope" : "trainscope/job/" + m_cfg.jobId;
    }

    template <class F>
    Status run(const char* what, F&& f) {
        try {
            f();
        } catch (const std::exception& e) {
            std::string why =
                std::string(what) + " failed on " + m_cfg.describe() + ": " + e.what();
            if (const std::string peers = peerFailures(); !peers.empty()) why += " — " + peers;
            return Error{why};
        }
        return {};
    }

    DistConfig m_cfg;
    std::unique_ptr<TcpStoreServer> m_server;
    std::unique_ptr<TcpStoreClient> m_client;
    std::unique_ptr<gloo::rendezvous::Store> m_store;
    std::shared_ptr<gloo::rendezvous::Context> m_ctx;
    uint32_t m_tag = 0;
};

}  // namespace

Result<std::unique_ptr<ProcessGroup>> connectGlooGroup(const DistConfig& config) {
    auto g = std::make_unique<GlooGroup>(config);
    if (auto s = g->connect(); !s) return Error{s.error()};
    return std::unique_ptr<ProcessGroup>(std::move(g));
}

}  // namespace ts::dist
