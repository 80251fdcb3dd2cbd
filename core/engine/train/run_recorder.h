#pragma once
// RunRecorder: writes one training run into a session store: the `runs` row (name, config
// JSON, status/reason at the end) and its `scalars` (train/loss per step, eval/* per epoch,
// lr, loss_scale, ...) and the loss-scale overflows (overflow_findings rows with origin
// 'loss_scale'). Rows are buffered and committed in batches (flush(), or every
// kFlushIntervalNs), so readers of the session see the curve grow while the run goes: the
// curves view polls faster than that and redraws at least 5 times a second. It opens its own
// connection, so it is used from the training thread only.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/store/trace_store.h"

namespace ts::engine {

class RunRecorder {
public:
    /// Opens (creating when missing) `sessionPath` and adds a run in state 'running'.
    static Result<std::unique_ptr<RunRecorder>> open(const std::string& sessionPath,
                                                     const std::string& runName,
                                                     const std::string& configJson);
    ~RunRecorder();
    RunRecorder(const RunRecorder&) = delete;
    RunRecorder& operator=(const RunRecorder&) = delete;

    /// Buffered rows are committed at least this often while points arrive.
    static constexpr int64_t kFlushIntervalNs = 80'000'000;

    int64_t runId() const { return m_runId; }
    /// Buffers one point (wall time = now).
    void addScalar(const std::string& tag, int64_t step, double value);
    /// Buffers a loss-scale overflow: step `step` was skipped; `lossScale` is the scale it ran
    /// with (the curves view marks it on the loss_scale panel).
    void addOverflow(int64_t step, double lossScale);
    Status flush();
    /// Flushes and sets status ('completed' | 'stopped' | 'failed'), reason and summary JSON.
    Status finish(const std::string& status, const std::string& reason,
                  const std::string& summaryJson = "{}");

private:
    RunRecorder() = default;
    struct Point {
        int64_t tagId, step, wall;
        double value;
    };
    std::unique_ptr<store::TraceStore> m_store;
    int64_t m_runId = 0;
    struct Overflow {
        int64_t step, wall;
        double scale;
    };
    std::vector<Point> m_pending;
    std::vector<Overflow> m_overflows;
    int64_t m_lastFlushNs = 0;
    bool m_finished = false;
};

}  // namespace ts::engine
