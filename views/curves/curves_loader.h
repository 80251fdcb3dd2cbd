#pragma once
// CurvesLoader: reads runs and their scalars for the curves view on background jobs.
// reloadRuns() lists the session's runs (on open and on SessionContext::dataChanged).
// For the runs the view shows, a timer polls every kPollMs while a shown run is
// 'running' or not read yet; each poll reads only rows newer than the run's cursor, on a
// job tagged for this loader (one poll in flight at a time, a newer one supersedes).
#include <QObject>
#include <QSet>
#include <QTimer>
#include <map>
#include <vector>

#include "core/curves/scalar_series.h"

class SessionContext;

class CurvesLoader : public QObject {
    Q_OBJECT
public:
    static constexpr int kPollMs = 100;  // 10 polls per second while a run is live

    explicit CurvesLoader(SessionContext* ctx, QObject* parent = nullptr);

    /// Runs to read; runs no longer shown are forgotten (shown again, they are read afresh).
    void setShownRuns(const QSet<qint64>& ids);
    /// Lists the runs again (emits runsListed).
    void reloadRuns();
    /// Forgets every cursor and run (a new session was opened).
    void reset();
    /// Whether the poll timer is active.
    bool live() const { return m_timer.isActive(); }

signals:
    void runsListed(const std::vector<ts::curves::RunEntry>& runs);
    /// New rows of shown runs (only rows past what was delivered before).
    void scalarsRead(const std::vector<ts::curves::RunScalars>& pieces);
    void failed(const QString& message);
    /// A poll found a shown run in a new state (e.g. 'running' -> 'completed').
    void runStatusChanged(qint64 runId, ts::store::RunStatus status);
    /// The poll timer started or stopped (see live()).
    void liveChanged(bool live);

private:
    struct PollResult {
        quint64 generation = 0;
        std::vector<ts::curves::ScalarCursor> bases;
        std::vector<ts::curves::RunScalars> pieces;
        QString error;
    };
    struct RunState {
        bool read = false;
        ts::curves::ScalarCursor cursor;
        ts::store::RunStatus status = ts::store::RunStatus::Running;
    };

    void poll();
    void onPolled(PollResult result);
    void updateTimer();
    bool needsPoll(const RunState& s) const;

    SessionContext* m_ctx;
    QTimer m_timer;
    QString m_pollTag;
    QString m_listTag;
    std::map<qint64, RunState> m_runs;  // shown runs
    quint64 m_generation = 1;
    quint64 m_pollJob = 0;
    bool m_pollInFlight = false;
};
