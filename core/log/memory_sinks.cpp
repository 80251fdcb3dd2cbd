#include "core/log/memory_sinks.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace ts::log {

RingBufferSink::RingBufferSink(size_t capacity, size_t maxLineBytes)
    : m_capacity(capacity ? capacity : 1),
      m_maxLine(std::max<size_t>(maxLineBytes, 16)),
      m_text(new char[m_capacity * m_maxLine]),
      m_slots(new Slot[m_capacity]) {
    m_records.resize(m_capacity);
    m_lines.resize(m_capacity);
}

void RingBufferSink::write(const LogRecord& record, std::string_view line) {
    std::lock_guard lock(m_mutex);
    const uint64_t n = m_next.load(std::memory_order_relaxed);
    const size_t i = static_cast<size_t>(n % m_capacity);
    m_records[i] = record;
    m_lines[i].assign(line);
    Slot& slot = m_slots[i];
    slot.bytes.store(0, std::memory_order_release);
    const size_t bytes = std::min(line.size(), m_maxLine - 1);
    char* text = m_text.get() + i * m_maxLine;
    std::memcpy(text, line.data(), bytes);
    text[bytes] = '\n';
    slot.bytes.store(static_cast<uint32_t>(bytes + 1), std::memory_order_release);
    m_next.store(n + 1, std::memory_order_release);
}

std::vector<LogRecord> RingBufferSink::snapshot() const {
    std::lock_guard lock(m_mutex);
    const uint64_t n = m_next.load(std::memory_order_relaxed);
    const uint64_t count = std::min<uint64_t>(n, m_capacity);
    std::vector<LogRecord> out;
    out.reserve(static_cast<size_t>(count));
    for (uint64_t k = n - count; k < n; ++k) out.push_back(m_records[k % m_capacity]);
    return out;
}

std::vector<std::string> RingBufferSink::lines() const {
    std::lock_guard lock(m_mutex);
    const uint64_t n = m_next.load(std::memory_order_relaxed);
    const uint64_t count = std::min<uint64_t>(n, m_capacity);
    std::vector<std::string> out;
    out.reserve(static_cast<size_t>(count));
    for (uint64_t k = n - count; k < n; ++k) out.push_back(m_lines[k % m_capacity]);
    return out;
}

void RingBufferSink::dumpToFd(int fd) const {
    const uint64_t n = m_next.load(std::memory_order_acquire);
    const uint64_t count = n < m_capacity ? n : m_capacity;
    for (uint64_t k = n - count; k < n; ++k) {
        const size_t i = static_cast<size_t>(k % m_capacity);
        const uint32_t bytes = m_slots[i].bytes.load(std::memory_order_acquire);
        const char* text = m_text.get() + i * m_maxLine;
        size_t done = 0;
        while (done < bytes) {
            const ssize_t w = ::write(fd, text + done, bytes - done);
            if (w <= 0) return;
            done += static_cast<size_t>(w);
        }
    }
}

void QueueSink::write(const LogRecord& record, std::string_view) {
    std::lock_guard lock(m_mutex);
    if (m_queue.size() >= m_capacity) {
        m_queue.pop_front();
        m_dropped.fetch_add(1, std::memory_order_relaxed);
    }
    m_queue.push_back(record);
}

std::vector<LogRecord> QueueSink::drain() {
    std::deque<LogRecord> taken;
    {
        std::lock_guard lock(m_mutex);
        taken.swap(m_queue);
    }
    return {std::make_move_iterator(taken.begin()), std::make_move_iterator(taken.end())};
}

}  // namespace ts::log
