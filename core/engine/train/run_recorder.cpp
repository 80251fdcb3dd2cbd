#include "core/engine/train/run_recorder.h"

#include <cmath>
#include <cstdio>

#include "core/common/clock.h"
#include "core/store/scalar_writer.h"
#include "core/store/sqlite_db.h"

namespace ts::engine {

Result<std::unique_ptr<RunRecorder>> RunRecorder::open(const std::string& sessionPath,
                                                       const std::string& runName,
                                                       const std::string& configJson) {
    auto st = store::TraceStore::open(sessionPath, store::TraceStore::Mode::Create);
    if (!st) return Error{st.error()};
    std::unique_ptr<RunRecorder> r(new RunRecorder());
    r->m_store = std::move(st.value());
    auto id = r->m_store->beginRun(runName, configJson);
    if (!id) return Error{id.error()};
    r->m_runId = id.value();
    r->m_lastFlushNs = nowNs();
    return r;
}

RunRecorder::~RunRecorder() {
    if (!m_finished && m_store) (void)finish("failed", "run ended without a final status");
}

void RunRecorder::addScalar(const std::string& tag, int64_t step, double value) {
    if (!m_store || !std::isfinite(value))
        return;  // the scalars table holds finite values (NOT NULL REAL)
    const int64_t now = nowNs();
    m_pending.push_back({m_store->intern(tag), step, now, value});
    if (m_pending.size() >= 4096 || now - m_lastFlushNs > kFlushIntervalNs) (void)flush();
}

void RunRecorder::addOverflow(int64_t step, double lossScale) {
    if (!m_store) return;
    m_overflows.push_back({step, nowNs(), lossScale});
}

Status RunRecorder::flush() {
    m_lastFlushNs = nowNs();
    if ((m_pending.empty() && m_overflows.empty()) || !m_store) return Status::success();
    const bool ownTx = !m_store->inTransaction();
    if (ownTx)
        if (auto s = m_store->begin(); !s) return s;
    store::ScalarWriter scalars(*m_store, m_runId);
    if (!scalars.ok()) {
        if (ownTx) (void)m_store->rollback();
        return Error{scalars.error()};
    }
    for (const Point& p : m_pending) {
        if (auto s = scalars.add(p.tagId, p.step, p.wall, p.value); !s) {
            if (ownTx) (void)m_store->rollback();
            return Error{s.error()};
        }
    }
    m_pending.clear();
    if (!m_overflows.empty()) {
        auto ovf = m_store->db().prepare(
            "INSERT INTO overflow_findings(run_id, step, op, tensor, origin, ts) "
            "VALUES(?,?,'loss_scale',?,'loss_scale',?)");
        if (!ovf.ok()) {
            if (ownTx) (void)m_store->rollback();
            return Error{ovf.error()};
        }
        for (const Overflow& o : m_overflows) {
            char what[96];
            std::snprintf(what, sizeof what, "gradients (loss scale %g); step skipped", o.scale);
            ovf.bind(1, m_runId).bind(2, o.step).bind(3, std::string(what)).bind(4, o.wall);
            if (auto s = ovf.run(); !s) {
                if (ownTx) (void)m_store->rollback();
                return s;
            }
        }
        m_overflows.clear();
    }
    return ownTx ? m_store->commit() : Status::success();
}

Status RunRecorder::finish(const std::string& status, const std::string& reason,
                           const std::string& summaryJson) {
    if (!m_store) return Error{"no session"};
    auto s = flush();
    m_finished = true;
    auto f = m_store->finishRun(m_runId, store::parseRunStatus(status), reason, summaryJson);
    if (!s) return s;
    return f;
}

}  // namespace ts::engine
