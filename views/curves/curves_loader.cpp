#include "views/curves/curves_loader.h"

#include "core/store/trace_store.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"

using ts::curves::RunScalars;
using ts::curves::ScalarCursor;

namespace {

struct ListResult {
    std::vector<ts::curves::RunEntry> runs;
    QString error;
};

}  // namespace

CurvesLoader::CurvesLoader(SessionContext* ctx, QObject* parent)
    : QObject(parent),
      m_ctx(ctx),
      m_pollTag(QStringLiteral("curves-poll-%1").arg(reinterpret_cast<quintptr>(this))),
      m_listTag(QStringLiteral("curves-runs-%1").arg(reinterpret_cast<quintptr>(this))) {
    m_timer.setInterval(kPollMs);
    connect(&m_timer, &QTimer::timeout, this, &CurvesLoader::poll);
}

void CurvesLoader::reset() {
    ++m_generation;
    m_runs.clear();
    m_pollInFlight = false;
    updateTimer();
}

void CurvesLoader::setShownRuns(const QSet<qint64>& ids) {
    for (auto it = m_runs.begin(); it != m_runs.end();)
        it = ids.contains(it->first) ? std::next(it) : m_runs.erase(it);
    bool added = false;
    for (qint64 id : ids) added |= m_runs.try_emplace(id).second;
    updateTimer();
    if (added) poll();
}

void CurvesLoader::reloadRuns() {
    const QString path = m_ctx->sessionPath();
    if (path.isEmpty()) {
        emit runsListed({});
        return;
    }
    m_ctx->jobs()->run<ListResult>(
        this, m_listTag, tr("Listing runs"),
        [path](ts::JobControl&) {
            ListResult r;
            auto store = ts::store::TraceStore::open(path.toStdString(),
                                                     ts::store::TraceStore::Mode::ReadOnly);
            if (!store) {
                r.error = QString::fromStdString(store.error());
                return r;
            }
            auto runs = ts::curves::listRuns(*store.value());
            if (runs)
                r.runs = std::move(runs.value());
            else
                r.error = QString::fromStdString(runs.error());
            return r;
        },
        [this](ListResult r) {
            if (!r.error.isEmpty()) emit failed(r.error);
            // A listed status change (e.g. a run restarted) may need polling again.
            for (const auto& run : r.runs)
                if (auto it = m_runs.find(run.id); it != m_runs.end() && it->second.read)
                    if (run.status == ts::store::RunStatus::Running) it->second.status = run.status;
            updateTimer();
            emit runsListed(r.runs);
        });
}

bool CurvesLoader::needsPoll(const RunState& s) const {
    return !s.read || s.status == ts::store::RunStatus::Running;
}

void CurvesLoader::updateTimer() {
    bool any = false;
    for (const auto& [id, s] : m_runs) any |= needsPoll(s);
    if (any == m_timer.isActive()) return;
    if (any)
        m_timer.start();
    else
        m_timer.stop();
    emit liveChanged(any);
}

void CurvesLoader::poll() {
    // A poll cancelled from outside never delivers: notice and start over.
    if (m_pollInFlight && !m_ctx->jobs()->active().count(m_pollJob)) m_pollInFlight = false;
    if (m_pollInFlight) return;
    const QString path = m_ctx->sessionPath();
    if (path.isEmpty()) return;
    std::vector<std::pair<qint64, ScalarCursor>> wanted;
    for (const auto& [id, s] : m_runs)
        if (needsPoll(s)) wanted.emplace_back(id, s.cursor);
    if (wanted.empty()) {
        updateTimer();
        return;
    }
    m_pollInFlight = true;
    const quint64 generation = m_generation;
    m_pollJob = m_ctx->jobs()->run<PollResult>(
        this, m_pollTag, QString(),
        [path, wanted, generation](ts::JobControl& jc) {
            PollResult r;
            r.generation = generation;
            auto store = ts::store::TraceStore::open(path.toStdString(),
                                                     ts::store::TraceStore::Mode::ReadOnly);
            if (!store) {
                r.error = QString::fromStdString(store.error());
                return r;
            }
            for (const auto& [id, cursor] : wanted) {
                if (jc.cancelled()) break;
                auto piece = ts::curves::readRunScalars(*store.value(), id, cursor);
                if (!piece) {
                    r.error = QString::fromStdString(piece.error());
                    continue;
                }
                r.bases.push_back(cursor);
                r.pieces.push_back(std::move(piece.value()));
            }
            return r;
        },
        [this](PollResult r) { onPolled(std::move(r)); });
}

void CurvesLoader::onPolled(PollResult result) {
    if (result.generation != m_generation) return;
    m_pollInFlight = false;
    if (!result.error.isEmpty()) emit failed(result.error);
    std::vector<RunScalars> delivered;
    for (size_t i = 0; i < result.pieces.size(); ++i) {
        auto& piece = result.pieces[i];
        auto it = m_runs.find(piece.runId);
        // Dropped: the run was hidden, or hidden and shown again, while this poll ran.
        if (it == m_runs.end()) continue;
        RunState& s = it->second;
        if (s.cursor.scalarRowid != result.bases[i].scalarRowid ||
            s.cursor.overflowId != result.bases[i].overflowId)
            continue;
        const bool first = !s.read;
        const bool statusChanged = s.read && s.status != piece.status;
        s.read = true;
        s.cursor = piece.cursor;
        s.status = piece.status;
        if (statusChanged) emit runStatusChanged(piece.runId, piece.status);
        if (first || !piece.series.empty() || !piece.overflows.empty())
            delivered.push_back(std::move(piece));
    }
    updateTimer();
    if (!delivered.empty()) emit scalarsRead(delivered);
}
