#pragma once
// BlockMap: live memory blocks (address -> allocation handle) for the profiler's memory
// events, as an open-addressing table with linear probing: no allocation per insert or
// erase (unordered_map's node allocations were most of the profiler's cost per block).
// Keys are block addresses; nullptr is never stored.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace ts::profiler {

class BlockMap {
public:
    bool empty() const { return m_size == 0; }
    size_t size() const { return m_size; }

    /// Sets `key` -> `value` (replaces an existing entry).
    void set(const void* key, int64_t value) {
        if (!key) return;
        if ((m_used + 1) * 2 > m_slots.size()) grow();
        size_t i = slot(key), tomb = SIZE_MAX;
        for (;; i = (i + 1) & mask()) {
            const void* k = m_slots[i].key;
            if (k == key) {
                m_slots[i].value = value;
                return;
            }
            if (k == tombstone() && tomb == SIZE_MAX) tomb = i;
            if (k == nullptr) break;
        }
        if (tomb != SIZE_MAX) {
            i = tomb;
        } else {
            ++m_used;
        }
        m_slots[i] = {key, value};
        ++m_size;
    }

    /// The value of `key`, or -1.
    int64_t find(const void* key) const {
        if (m_size == 0 || !key) return -1;
        for (size_t i = slot(key);; i = (i + 1) & mask()) {
            const void* k = m_slots[i].key;
            if (k == key) return m_slots[i].value;
            if (k == nullptr) return -1;
        }
    }

    /// Removes `key`; returns its value or -1 when absent.
    int64_t take(const void* key) {
        if (m_size == 0 || !key) return -1;
        for (size_t i = slot(key);; i = (i + 1) & mask()) {
            const void* k = m_slots[i].key;
            if (k == key) {
                const int64_t v = m_slots[i].value;
                m_slots[i].key = tombstone();
                --m_size;
                return v;
            }
            if (k == nullptr) return -1;
        }
    }

    void clear() {
        m_slots.assign(m_slots.size(), Slot{});
        m_size = m_used = 0;
    }

private:
    struct Slot {
        const void* key = nullptr;
        int64_t value = 0;
    };
    static const void* tombstone() { return reinterpret_cast<const void*>(uintptr_t{1}); }
    size_t mask() const { return m_slots.size() - 1; }
    size_t slot(const void* key) const {
        // Blocks are 64-byte aligned: mix the address bits above the alignment.
        auto h = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key) >> 6);
        h *= 0x9E3779B97F4A7C15ull;
        return static_cast<size_t>(h >> 20) & mask();
    }
    void grow() {
        std::vector<Slot> old;
        old.swap(m_slots);
        // Double only when live entries need it; otherwise rehash to drop tombstones.
        const size_t cap = old.empty()                     ? 256
                           : (m_size + 1) * 4 > old.size() ? old.size() * 2
                                                           : old.size();
        m_slots.assign(cap, Slot{});
        m_size = m_used = 0;
        for (const Slot& s : old)
            if (s.key && s.key != tombstone()) set(s.key, s.value);
    }

    std::vector<Slot> m_slots;
    size_t m_size = 0;  // live entries
    size_t m_used = 0;  // live entries + tombstones
};

}  // namespace ts::profiler
