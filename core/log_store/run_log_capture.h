#pragma once
// RunLogCapture: while a training run lives, every record the process logs is also written
// to the session's `logs` table with the run's id (through a StoreSink, which never blocks
// the logging thread). TrainingJob starts one at the top of prepare() — records logged while
// the model and data are built are kept in memory — attaches it to the session once the
// run's row exists, and closes it after run(), so the studio's log view and
// `trainscope-cli logs SESSION` show all of the run's records.
#include <cstdint>
#include <memory>
#include <string>

#include "core/common/result.h"

namespace ts::log {

class QueueSink;
class ScopedLogSink;
class StoreSink;

class RunLogCapture {
public:
    /// Starts capturing into memory.
    static std::unique_ptr<RunLogCapture> start();
    /// Writes what was captured so far, and from now on every record, into `sessionPath`
    /// for run `runId`; error when the session cannot be opened (capturing stops then).
    Status attach(const std::string& sessionPath, int64_t runId);
    /// Flushes what is queued, then stops copying.
    ~RunLogCapture();
    RunLogCapture(const RunLogCapture&) = delete;
    RunLogCapture& operator=(const RunLogCapture&) = delete;

    /// Writes everything queued so far to the session (no-op before attach()).
    void flush();
    /// Records written to the session so far.
    uint64_t written() const;

private:
    RunLogCapture() = default;
    std::shared_ptr<QueueSink> m_early;
    std::unique_ptr<ScopedLogSink> m_earlyScope;
    std::shared_ptr<StoreSink> m_sink;
    std::unique_ptr<ScopedLogSink> m_scope;
};

}  // namespace ts::log
