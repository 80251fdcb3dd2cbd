#pragma once
// JobControl: progress and cancellation shared between a worker (importer, query,
// training) and whoever watches it (GUI timer, CLI). Lock-free; any thread may read.
#include <atomic>
#include <cstdint>

namespace ts {

class JobControl {
public:
    void setTotal(uint64_t total) { m_total.store(total, std::memory_order_relaxed); }
    void setDone(uint64_t done) { m_done.store(done, std::memory_order_relaxed); }
    void addDone(uint64_t n) { m_done.fetch_add(n, std::memory_order_relaxed); }
    uint64_t total() const { return m_total.load(std::memory_order_relaxed); }
    uint64_t done() const { return m_done.load(std::memory_order_relaxed); }
    /// 0..1, or -1 when the total is unknown.
    double fraction() const {
        const uint64_t t = total();
        return t == 0 ? -1.0 : static_cast<double>(done()) / static_cast<double>(t);
    }

    void cancel() { m_cancel.store(true, std::memory_order_relaxed); }
    bool cancelled() const { return m_cancel.load(std::memory_order_relaxed); }

private:
    std::atomic<uint64_t> m_total{0};
    std::atomic<uint64_t> m_done{0};
    std::atomic<bool> m_cancel{false};
};

}  // namespace ts
