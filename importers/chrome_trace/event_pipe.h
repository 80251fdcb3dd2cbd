#pragma once
// EventPipe: hands parsed events from the parsing thread to the building thread in batches,
// so JSON parsing and the store's writes run on two cores at once. Bounded: the parser
// waits when kBatches batches are queued, so memory stays at a few thousand events.
// Batches and their events are reused (strings keep their capacity).
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "importers/chrome_trace/chrome_json_reader.h"

namespace ts::importers::chrome {

class EventPipe : public EventSink {
public:
    static constexpr size_t kBatchEvents = 512;
    static constexpr size_t kBatches = 8;

    struct Batch {
        std::vector<ChromeEvent> events;
        size_t count = 0;
    };

    EventPipe() : m_storage(kBatches) {
        for (Batch& b : m_storage) {
            b.events.resize(kBatchEvents);
            m_free.push_back(&b);
        }
    }

    /// Producer (EventSink): the reader fills the next slot of the current batch in place.
    ChromeEvent& slot() override {
        if (!m_filling) m_filling = take(m_free, m_freeReady);
        return m_filling->events[m_filling->count];
    }
    /// Producer: the slot is a complete event; full batches are handed over.
    void commit() override {
        if (++m_filling->count == kBatchEvents) handOver();
    }
    /// Producer: no more events.
    void close() {
        if (m_filling) handOver();
        std::lock_guard lock(m_mutex);
        m_closed = true;
        m_fullReady.notify_one();
    }
    /// Consumer: the next batch in order, nullptr once closed and drained.
    Batch* next() {
        std::unique_lock lock(m_mutex);
        m_fullReady.wait(lock, [&] { return !m_full.empty() || m_closed; });
        if (m_full.empty()) return nullptr;
        Batch* b = m_full.front();
        m_full.pop_front();
        return b;
    }
    /// Consumer: gives a processed batch back.
    void release(Batch* b) {
        b->count = 0;
        std::lock_guard lock(m_mutex);
        m_free.push_back(b);
        m_freeReady.notify_one();
    }

private:
    Batch* take(std::deque<Batch*>& q, std::condition_variable& cv) {
        std::unique_lock lock(m_mutex);
        cv.wait(lock, [&] { return !q.empty(); });
        Batch* b = q.front();
        q.pop_front();
        return b;
    }
    void handOver() {
        std::lock_guard lock(m_mutex);
        m_full.push_back(m_filling);
        m_filling = nullptr;
        m_fullReady.notify_one();
    }

    std::vector<Batch> m_storage;
    std::mutex m_mutex;
    std::condition_variable m_fullReady, m_freeReady;
    std::deque<Batch*> m_free, m_full;
    Batch* m_filling = nullptr;
    bool m_closed = false;
};

}  // namespace ts::importers::chrome
