#include "core/engine/tensor/memory_pool.h"

#include <cstdlib>

namespace ts::engine {

namespace {
thread_local MemoryPool* t_installed = nullptr;
}

MemoryPool::~MemoryPool() {
    trim();
}

void* MemoryPool::newBlock(size_t size) const {
    return m_source.allocate ? m_source.allocate(size, m_source.context)
                             : std::aligned_alloc(64, size);
}

void MemoryPool::freeBlock(void* p) const {
    if (m_source.release)
        m_source.release(p, m_source.context);
    else
        std::free(p);
}

void* MemoryPool::allocate(size_t bytes) {
    const size_t size = roundSize(bytes == 0 ? 1 : bytes);
    void* p = nullptr;
    MemoryEvent ev;
    std::function<void(const MemoryEvent&)> listener;
    {
        std::lock_guard lock(m_mutex);
        auto it = m_free.find(size);
        if (m_limit > 0 && m_inUse + static_cast<int64_t>(size) > m_limit) {
            p = nullptr;  // over the cap: fails like a refused system allocation
        } else if (m_reuse && it != m_free.end() && !it->second.empty()) {
            p = it->second.back();
            it->second.pop_back();
        } else {
            p = newBlock(size);
            if (p) m_reserved += static_cast<int64_t>(size);
        }
        if (p) {
            m_inUse += static_cast<int64_t>(size);
            if (m_inUse > m_peak) m_peak = m_inUse;
            ++m_count;
        }
        if (m_listener) {
            ev = {true, p, size, m_inUse, m_reserved, p == nullptr};
            listener = m_listener;
        }
    }
    if (listener) listener(ev);
    return p;
}

void MemoryPool::release(void* p, size_t bytes) {
    if (!p) return;
    const size_t size = roundSize(bytes == 0 ? 1 : bytes);
    MemoryEvent ev;
    std::function<void(const MemoryEvent&)> listener;
    {
        std::lock_guard lock(m_mutex);
        m_inUse -= static_cast<int64_t>(size);
        if (m_reuse) {
            m_free[size].push_back(p);
        } else {
            freeBlock(p);
            m_reserved -= static_cast<int64_t>(size);
        }
        if (m_listener) {
            ev = {false, p, size, m_inUse, m_reserved, false};
            listener = m_listener;
        }
    }
    if (listener) listener(ev);
}

void MemoryPool::setReuse(bool on) {
    {
        std::lock_guard lock(m_mutex);
        m_reuse = on;
    }
    if (!on) trim();
}

void MemoryPool::trim() {
    std::lock_guard lock(m_mutex);
    for (auto& [size, list] : m_free) {
        for (void* p : list) freeBlock(p);
        m_reserved -= static_cast<int64_t>(size * list.size());
    }
    m_free.clear();
}

int64_t MemoryPool::bytesInUse() const {
    std::lock_guard lock(m_mutex);
    return m_inUse;
}
int64_t MemoryPool::peakBytes() const {
    std::lock_guard lock(m_mutex);
    return m_peak;
}
int64_t MemoryPool::reservedBytes() const {
    std::lock_guard lock(m_mutex);
    return m_reserved;
}
int64_t MemoryPool::allocationCount() const {
    std::lock_guard lock(m_mutex);
    return m_count;
}
void MemoryPool::resetPeak() {
    std::lock_guard lock(m_mutex);
    m_peak = m_inUse;
}

void MemoryPool::setLimit(int64_t bytes) {
    std::lock_guard lock(m_mutex);
    m_limit = bytes > 0 ? bytes : 0;
}
int64_t MemoryPool::limit() const {
    std::lock_guard lock(m_mutex);
    return m_limit;
}

void MemoryPool::setListener(std::function<void(const MemoryEvent&)> listener) {
    std::lock_guard lock(m_mutex);
    m_listener = std::move(listener);
}

MemoryPool& MemoryPool::current() {
    if (t_installed) return *t_installed;
    // Leaked on purpose: tensors may outlive thread-local destruction order.
    thread_local MemoryPool* fallback = new MemoryPool(true);
    return *fallback;
}

MemoryPool* MemoryPool::install(MemoryPool* pool) {
    MemoryPool* prev = t_installed;
    t_installed = pool;
    return prev;
}

}  // namespace ts::engine
