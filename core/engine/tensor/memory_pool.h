#pragma once
// MemoryPool: the allocator behind every engine tensor on a device. Freed blocks are kept in
// per-size free lists and handed out again (reuse on, the seeds' mem_reuse); with reuse off
// every block goes back to the system at once. Thread-safe; figures are exact byte counts.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace ts::engine {

/// One allocation or free, as observers see it.
struct MemoryEvent {
    bool alloc = true;  // false: free
    const void* ptr = nullptr;
    size_t bytes = 0;      // size of the block (rounded)
    int64_t inUse = 0;     // bytes handed out after the event
    int64_t reserved = 0;  // bytes held by the pool (in use + cached) after the event
    bool failed = false;   // alloc only: the allocation failed (ptr is null, nothing changed)
};

/// Where a pool's blocks come from: the host (64-byte aligned) by default, a device's memory
/// for device tensors (core/engine/device/device.h). `allocate` returns nullptr when out of memory.
struct BlockSource {
    void* (*allocate)(size_t bytes, void* context) = nullptr;
    void (*release)(void* p, void* context) = nullptr;
    void* context = nullptr;
};

class MemoryPool {
public:
    explicit MemoryPool(bool reuse = true) : m_reuse(reuse) {}
    /// A pool over another block source (the same reuse, limits and figures).
    MemoryPool(bool reuse, BlockSource source) : m_reuse(reuse), m_source(source) {}
    ~MemoryPool();
    MemoryPool(const MemoryPool&) = delete;
    MemoryPool& operator=(const MemoryPool&) = delete;

    /// A 64-byte aligned block of at least `bytes`; nullptr when the system is out of memory.
    void* allocate(size_t bytes);
    /// Returns a block from allocate() of the same size.
    void release(void* p, size_t bytes);

    /// mem_reuse: when off, freed blocks are returned to the system immediately.
    void setReuse(bool on);
    bool reuse() const { return m_reuse; }
    /// Gives cached blocks back to the system.
    void trim();

    int64_t bytesInUse() const;
    int64_t peakBytes() const;
    int64_t reservedBytes() const;
    int64_t allocationCount() const;
    void resetPeak();

    /// Caps the bytes in use (0 = no cap, the default): an allocation that would pass it fails
    /// like one the system refuses (MindSpore's max_device_memory; tests of the OOM path).
    void setLimit(int64_t bytes);
    int64_t limit() const;

    /// Called (under no lock) for every allocation and free, and for a failed allocation
    /// (MemoryEvent::failed); one listener at a time.
    void setListener(std::function<void(const MemoryEvent&)> listener);

    /// The pool of the calling thread (a per-thread default unless install()ed).
    static MemoryPool& current();
    /// Makes `pool` the calling thread's pool (nullptr: back to the default); returns the one
    /// installed before, so scopes can nest.
    static MemoryPool* install(MemoryPool* pool);

    static size_t roundSize(size_t bytes) { return (bytes + 63) & ~size_t(63); }

private:
    mutable std::mutex m_mutex;
    bool m_reuse;
    std::unordered_map<size_t, std::vector<void*>> m_free;
    int64_t m_inUse = 0;
    int64_t m_peak = 0;
    int64_t m_reserved = 0;
    int64_t m_count = 0;
    int64_t m_limit = 0;
    std::function<void(const MemoryEvent&)> m_listener;
    BlockSource m_source;  // empty: the host
    void* newBlock(size_t size) const;
    void freeBlock(void* p) const;
};

}  // namespace ts::engine
