#pragma once
// In-memory sinks: the ring of the last N records (for the Running Data Recorder) and a
// bounded queue the UI drains on a timer.
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/log/logger.h"

namespace ts::log {

/// Keeps the last `capacity` records. snapshot()/lines() copy them out (oldest first)
/// under a lock; dumpToFd() writes the last lines with only async-signal-safe calls (for a
/// crash handler: no lock, no allocation; a line being written at that moment may be torn
/// or missing). Lines longer than `maxLineBytes` are cut in the fd dump only.
class RingBufferSink : public LogSink {
public:
    explicit RingBufferSink(size_t capacity = 1000, size_t maxLineBytes = 1024);
    void write(const LogRecord& record, std::string_view line) override;

    std::vector<LogRecord> snapshot() const;
    /// The same records as formatted lines.
    std::vector<std::string> lines() const;
    size_t capacity() const { return m_capacity; }
    /// Records written since creation (including those since overwritten).
    uint64_t total() const { return m_next.load(std::memory_order_acquire); }
    /// Writes the kept lines, oldest first, each ending in '\n'. Async-signal-safe.
    void dumpToFd(int fd) const;

private:
    struct Slot {
        std::atomic<uint32_t> bytes{0};
    };
    size_t m_capacity;
    size_t m_maxLine;
    mutable std::mutex m_mutex;
    std::vector<LogRecord> m_records;  // ring, index = n % capacity
    std::vector<std::string> m_lines;  // formatted, same ring
    std::unique_ptr<char[]> m_text;    // capacity * maxLineBytes, for dumpToFd
    std::unique_ptr<Slot[]> m_slots;
    std::atomic<uint64_t> m_next{0};
};

/// A bounded queue of records for a consumer that polls (the UI's timer). When full, the
/// oldest records are dropped and counted.
class QueueSink : public LogSink {
public:
    explicit QueueSink(size_t capacity = 20000) : m_capacity(capacity ? capacity : 1) {}
    void write(const LogRecord& record, std::string_view line) override;
    /// Takes every queued record (oldest first).
    std::vector<LogRecord> drain();
    /// Records dropped because the queue was full, since creation.
    uint64_t dropped() const { return m_dropped.load(std::memory_order_relaxed); }

private:
    size_t m_capacity;
    std::mutex m_mutex;
    std::deque<LogRecord> m_queue;
    std::atomic<uint64_t> m_dropped{0};
};

}  // namespace ts::log
