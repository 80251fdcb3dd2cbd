#include "core/log_store/store_sink.h"

#include <chrono>

#include "core/log_store/log_store.h"

namespace ts::log {

Result<std::shared_ptr<StoreSink>> StoreSink::open(const std::string& sessionPath,
                                                   std::optional<int64_t> runId, int flushMs,
                                                   size_t maxQueued) {
    auto store = store::TraceStore::open(sessionPath, store::TraceStore::Mode::ReadWrite);
    if (!store) return Error{store.error()};
    std::shared_ptr<StoreSink> sink(new StoreSink());
    sink->m_store = std::move(store.value());
    sink->m_runId = runId;
    sink->m_flushMs = flushMs > 0 ? flushMs : 200;
    sink->m_maxQueued = maxQueued ? maxQueued : 1;
    sink->m_thread = std::thread([raw = sink.get()] { raw->loop(); });
    return sink;
}

StoreSink::~StoreSink() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

void StoreSink::write(const LogRecord& record, std::string_view) {
    // Records the writer thread itself causes (the store logging) would feed back forever.
    if (record.tid == m_writerTid.load(std::memory_order_relaxed)) return;
    std::lock_guard lock(m_mutex);
    if (m_queue.size() >= m_maxQueued) {
        ++m_dropped;
        return;
    }
    m_queue.push_back(record);
}

void StoreSink::flush() {
    std::unique_lock lock(m_mutex);
    const uint64_t ticket = ++m_flushRequests;
    m_wake.notify_all();
    m_flushed.wait(lock, [&] { return m_flushesDone >= ticket || m_stop; });
}

uint64_t StoreSink::written() const {
    std::lock_guard lock(m_mutex);
    return m_written;
}
uint64_t StoreSink::dropped() const {
    std::lock_guard lock(m_mutex);
    return m_dropped;
}
std::string StoreSink::lastError() const {
    std::lock_guard lock(m_mutex);
    return m_error;
}

void StoreSink::writeBatch(std::unique_lock<std::mutex>& lock) {
    std::vector<LogRecord> batch;
    batch.swap(m_queue);
    lock.unlock();
    Status s = insertLogs(*m_store, batch, std::nullopt, m_runId);
    lock.lock();
    if (s) {
        m_written += batch.size();
    } else {
        m_error = s.error();
        // Keep the records for the next attempt (the store may be busy), within bounds.
        const size_t room = m_maxQueued > m_queue.size() ? m_maxQueued - m_queue.size() : 0;
        if (batch.size() > room) {
            m_dropped += batch.size() - room;
            batch.resize(room);
        }
        m_queue.insert(m_queue.begin(), std::make_move_iterator(batch.begin()),
                       std::make_move_iterator(batch.end()));
    }
}

void StoreSink::loop() {
    m_writerTid.store(currentThreadId(), std::memory_order_relaxed);
    std::unique_lock lock(m_mutex);
    while (true) {
        m_wake.wait_for(lock, std::chrono::milliseconds(m_flushMs),
                        [&] { return m_stop || m_flushRequests > m_flushesDone; });
        const uint64_t requested = m_flushRequests;
        if (!m_queue.empty()) writeBatch(lock);
        m_flushesDone = requested;
        m_flushed.notify_all();
        if (m_stop) {
            if (!m_queue.empty()) writeBatch(lock);
            return;
        }
    }
}

}  // namespace ts::log
