#pragma once
// SessionContext: the one object every view observes (RenderDoc's ICaptureContext).
// It owns the path of the open session and the shared selection: the time range being
// looked at, the selected slice, the current step. Views never call each other: they
// listen to these signals and ask core models for data on background jobs.
#include <QObject>
#include <QString>
#include <cstdint>

class JobTracker;

class SessionContext : public QObject {
    Q_OBJECT
public:
    explicit SessionContext(QObject* parent = nullptr);

    /// Path of the open *.tscope file ("" when none). Views open their own read-only
    /// TraceStore on a worker thread with it; they never share a connection.
    QString sessionPath() const { return m_sessionPath; }
    void setSessionPath(const QString& path);

    /// Runs background work with progress and cancel (see job_tracker.h).
    JobTracker* jobs() const { return m_jobs; }

    /// Asks every view to move to [startNs, endNs] (timeline zoom, log jump, step click).
    void requestTimeRange(int64_t startNs, int64_t endNs);
    /// Selects a slice by id (timeline, stats, advice links).
    void selectSlice(int64_t sliceId);
    /// Asks the main window to show the view with this name (see MainWindow::showView).
    void requestView(const QString& name);
    /// Tells views the session's content changed (an import finished, a run wrote rows).
    void notifyDataChanged();
    /// Asks the main window to open `path` as if the user opened it (a view that accepts it
    /// shows it, e.g. an RDR folder after a crash; anything else is imported).
    void requestOpen(const QString& path);
    /// Asks the main window to do one of its actions for the user (an empty view's button):
    /// "open" (the Open dialog), "demo" (the demo session), "launch-profiled" (the Training
    /// panel's Command tab with the profiler on), "train-profiled" (an engine run with
    /// --profile), "import-problems" (the problems view).
    void requestAction(const QString& action);

signals:
    void sessionChanged(const QString& path);
    void dataChanged();
    void timeRangeRequested(qint64 startNs, qint64 endNs);
    void sliceSelected(qint64 sliceId);
    void viewRequested(const QString& name);
    void openRequested(const QString& path);
    void actionRequested(const QString& action);

private:
    QString m_sessionPath;
    JobTracker* m_jobs;
};
