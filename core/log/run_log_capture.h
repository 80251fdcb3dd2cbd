#pragma once
// RunLogCapture: while a training run lives, every record the process logs is also written
// to the session's `logs` table with the run's id (through a StoreSink, which never blocks
// the logging thread). TrainingJob opens one in prepare() and closes it after run(), so the
// studio's log view and `trainscope-cli logs SESSION` show the run's records.
#include <cstdint>
#include <memory>
#include <string>

#include "core/common/result.h"

namespace ts::log {

class ScopedLogSink;
class StoreSink;

class RunLogCapture {
public:
    /// Starts copying records into `sessionPath` for run `runId`; error when the session
    /// cannot be opened.
    static Result<std::unique_ptr<RunLogCapture>> open(const std::string& sessionPath,
                                                       int64_t runId);
    /// Flushes what is queued, then stops copying.
    ~RunLogCapture();
    RunLogCapture(const RunLogCapture&) = delete;
    RunLogCapture& operator=(const RunLogCapture&) = delete;

    /// Writes everything queued so far to the session.
    void flush();
    /// Records written to the session so far.
    uint64_t written() const;

private:
    RunLogCapture() = default;
    std::shared_ptr<StoreSink> m_sink;
    std::unique_ptr<ScopedLogSink> m_scope;
};

}  // namespace ts::log
