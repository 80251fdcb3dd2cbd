#pragma once
// CommandRunController: one command run at a time for the Training panel (the "Command"
// kind). The run lives on its own threads (ts::run::CommandRun); a UI-thread timer reads its
// progress snapshot every kProgressMs (a copy under a short lock: the run never waits for
// the UI) and emits it, then the result once everything is written. Pause and Resume hold
// and release the processes (SIGSTOP / SIGCONT); Stop sends SIGINT, then SIGTERM and
// SIGKILL after the grace period. Destroying the controller stops a running command and
// waits for it.
#include <QObject>
#include <QTimer>
#include <memory>

#include "core/run/command_run.h"

class CommandRunController : public QObject {
    Q_OBJECT
public:
    static constexpr int kProgressMs = 100;

    explicit CommandRunController(QObject* parent = nullptr);
    ~CommandRunController() override;

    /// Starts a run (returns at once); false when one is still going.
    bool start(ts::run::CommandRunOptions options);
    void pause();
    void resume();
    void stop();

    bool running() const { return m_run != nullptr; }
    bool paused() const { return m_paused; }
    qint64 runId() const { return m_runId; }
    /// The last progress snapshot emitted.
    const ts::run::CommandProgress& lastProgress() const { return m_last; }

signals:
    /// The run has its row in the session (its processes started).
    void started(qint64 runId);
    void progress(const ts::run::CommandProgress& p);
    /// Something new was written that other views show (a trace imported, a dump, a finding).
    void artifactsChanged();
    /// The run ended (also when it could not start: then runId may be 0).
    void finished(const ts::run::CommandResult& result);

private:
    void poll();

    std::unique_ptr<ts::run::CommandRun> m_run;
    QTimer m_timer;
    qint64 m_runId = 0;
    bool m_paused = false;
    ts::run::CommandProgress m_last;
};
