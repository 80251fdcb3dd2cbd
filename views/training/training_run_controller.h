#pragma once
// TrainingRunController: runs one ts::run::TrainingJob at a time in its own QThread for the
// Training panel. start() returns at once; the job prepares (loads the data, opens the run in
// the session) and trains on the thread. A UI-thread timer reads the trainer's progress
// snapshot (atomics and a short lock: the run never waits for the UI) and emits it every
// kProgressMs. pause(), resume() and stop() only set the trainer's flags, which it checks
// between steps: a stop ends the run after the current step (and the job saves the end state
// when its options ask for it). Destroying the controller stops a running job and waits.
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <memory>

#include "core/engine/train/trainer.h"
#include "core/run/training_job.h"

class QThread;

class TrainingRunController : public QObject {
    Q_OBJECT
public:
    static constexpr int kProgressMs = 100;

    explicit TrainingRunController(QObject* parent = nullptr);
    ~TrainingRunController() override;

    /// Starts a run; false (and nothing started) when one is still going.
    bool start(ts::run::JobOptions options);
    void pause();
    void resume();
    /// Ends the run after its current step.
    void stop();

    bool running() const { return m_thread != nullptr; }
    bool paused() const;
    /// The running (or last) run's id in the session; 0 until it is prepared.
    qint64 runId() const { return m_runId; }
    /// The running job's options (valid while running()).
    const ts::run::JobOptions& options() const { return m_options; }

signals:
    /// The run has its row in the session (the curves can follow it).
    void started(qint64 runId, qint64 stepsPerEpoch, qint64 parameters);
    void progress(const ts::engine::TrainProgress& p);
    /// The run ended (completed, stopped or failed, also when preparing failed: runId 0).
    /// `summaryJson` is what the session keeps in runs.summary.
    void finished(qint64 runId, const ts::engine::TrainResult& result, const QString& summaryJson,
                  const QStringList& checkpoints);

private:
    void announce(qint64 runId, qint64 stepsPerEpoch, qint64 parameters);
    void onThreadFinished();

    ts::run::JobOptions m_options;
    std::unique_ptr<ts::run::TrainingJob> m_job;
    QThread* m_thread = nullptr;
    QTimer m_timer;
    qint64 m_runId = 0;
    bool m_announced = false;
    // Written by the thread before it finishes, read on the UI thread after.
    ts::engine::TrainResult m_result;
    QString m_summary;
    QStringList m_checkpoints;
};
