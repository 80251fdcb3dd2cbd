#include "core/log_store/run_log_capture.h"

#include "core/log/logger.h"
#include "core/log/memory_sinks.h"
#include "core/log_store/store_sink.h"

namespace ts::log {

std::unique_ptr<RunLogCapture> RunLogCapture::start() {
    std::unique_ptr<RunLogCapture> c(new RunLogCapture());
    c->m_early = std::make_shared<QueueSink>(100000);
    c->m_earlyScope = std::make_unique<ScopedLogSink>(c->m_early);
    return c;
}

Status RunLogCapture::attach(const std::string& sessionPath, int64_t runId) {
    auto sink = StoreSink::open(sessionPath, runId);
    if (!sink) {
        m_earlyScope.reset();
        return Error{"cannot copy log records into " + sessionPath + ": " + sink.error()};
    }
    m_sink = std::move(sink.value());
    // The store sink listens before the buffer stops, so no record falls between the two.
    m_scope = std::make_unique<ScopedLogSink>(m_sink);
    m_earlyScope.reset();
    for (const LogRecord& r : m_early->drain()) m_sink->write(r, std::string_view());
    m_early.reset();
    return Status::success();
}

RunLogCapture::~RunLogCapture() {
    m_scope.reset();  // removes the sink from the logger and flushes it
    m_earlyScope.reset();
}

void RunLogCapture::flush() {
    if (m_sink) m_sink->flush();
}

uint64_t RunLogCapture::written() const {
    return m_sink ? m_sink->written() : 0;
}

}  // namespace ts::log
