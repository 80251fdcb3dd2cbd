#include "core/log/run_log_capture.h"

#include "core/log/logger.h"
#include "core/log/store_sink.h"

namespace ts::log {

Result<std::unique_ptr<RunLogCapture>> RunLogCapture::open(const std::string& sessionPath,
                                                           int64_t runId) {
    auto sink = StoreSink::open(sessionPath, runId);
    if (!sink) return Error{"cannot copy log records into " + sessionPath + ": " + sink.error()};
    std::unique_ptr<RunLogCapture> c(new RunLogCapture());
    c->m_sink = std::move(sink.value());
    c->m_scope = std::make_unique<ScopedLogSink>(c->m_sink);
    return c;
}

RunLogCapture::~RunLogCapture() {
    m_scope.reset();  // removes the sink from the logger and flushes it
}

void RunLogCapture::flush() {
    m_sink->flush();
}

uint64_t RunLogCapture::written() const {
    return m_sink->written();
}

}  // namespace ts::log
