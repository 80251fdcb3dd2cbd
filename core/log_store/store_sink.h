#pragma once
// StoreSink: copies log records into a session's `logs` table (run_id set) without ever
// blocking the thread that logs. write() only queues; a background thread with its own
// connection to the session file inserts the queue every `flushMs` and on flush()/exit.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/common/result.h"
#include "core/log/logger.h"
#include "core/store/trace_store.h"

namespace ts::log {

class StoreSink : public LogSink {
public:
    /// Opens `sessionPath` (must exist) read-write on the sink's own connection.
    /// `runId`: the run the records belong to (nullopt = none). Records beyond
    /// `maxQueued` waiting to be written are dropped and counted.
    static Result<std::shared_ptr<StoreSink>> open(const std::string& sessionPath,
                                                   std::optional<int64_t> runId, int flushMs = 200,
                                                   size_t maxQueued = 100000);
    ~StoreSink() override;
    StoreSink(const StoreSink&) = delete;
    StoreSink& operator=(const StoreSink&) = delete;

    void write(const LogRecord& record, std::string_view line) override;
    /// Writes everything queued so far before returning.
    void flush() override;
    /// Records written to the store so far.
    uint64_t written() const;
    uint64_t dropped() const;
    /// Last store error ("" when none).
    std::string lastError() const;

private:
    StoreSink() = default;
    void loop();
    void writeBatch(std::unique_lock<std::mutex>& lock);

    std::unique_ptr<store::TraceStore> m_store;  // used only on m_thread (or in flush)
    std::optional<int64_t> m_runId;
    int m_flushMs = 200;
    size_t m_maxQueued = 100000;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::vector<LogRecord> m_queue;
    bool m_stop = false;
    uint64_t m_written = 0;
    uint64_t m_dropped = 0;
    uint64_t m_flushRequests = 0;
    uint64_t m_flushesDone = 0;
    std::condition_variable m_flushed;
    std::string m_error;
    std::atomic<int64_t> m_writerTid{-1};
    std::thread m_thread;
};

}  // namespace ts::log
