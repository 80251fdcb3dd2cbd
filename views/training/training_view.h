#pragma once
// TrainingView: the studio's Training panel (view name "training"). Left: every setting of a
// run (TrainingForm). Right: Start / Pause / Resume / Stop, the progress of the running run
// (TrainingProgressWidget), its curves live (an embedded CurvesView: the session's runs,
// the new one ticked), and below them the session's run history (TrainingRunsModel) with the
// selected run's results (TrainingResultsWidget). Two kinds of run, one tab each on the left:
//   - Engine: the built-in engine through ts::run::TrainingJob, the same class as
//     `trainscope-cli train`, on TrainingRunController's QThread;
//   - Command: a user's program (CommandForm) through ts::run::CommandRun, the same class as
//     `trainscope-cli launch`, on CommandRunController (docs/RUNS.md).
// Either is recorded in the open session (a new session is created when none is open).
#include <QWidget>

#include "core/run/command_run.h"
#include "core/run/training_job.h"

class CommandForm;
class CommandRunController;
class CurvesView;
class QTabWidget;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class SessionContext;
class TrainingForm;
class TrainingProgressWidget;
class TrainingResultsWidget;
class TrainingRunController;
class TrainingRunsModel;

class TrainingView : public QWidget {
    Q_OBJECT
public:
    explicit TrainingView(SessionContext* ctx, QWidget* parent = nullptr);
    ~TrainingView() override;

    /// The settings a fresh panel shows: MLP on Fashion-MNIST (synthetic data when the
    /// dataset package is missing), 5 epochs, batch 64, SGD lr 0.05 momentum 0.9, evaluation
    /// after every epoch, the end state saved.
    static ts::run::JobOptions defaultOptions();

    /// Starts a run of the kind whose tab is shown (the engine with the form's settings, or
    /// the Command tab's command); false (see message()) when the settings are invalid or a
    /// run is going.
    bool startTraining();
    /// Starts a run with the form's settings changed by `settingsJson` (TrainConfig keys, as
    /// runs.config holds them); false with `error` set when it is not valid.
    bool startTraining(const QString& settingsJson, QString* error);
    /// Starts the Command tab's command; false (see message()) when its settings are invalid
    /// or a run is going.
    bool startCommand();
    /// Shows the command run whose settings `specJson` holds (a LaunchSpec as runs.config
    /// keeps it) in the Command tab and starts it; false with `error` set when it is not valid.
    bool startCommand(const QString& specJson, QString* error);
    /// Shows the Engine (0) or Command (1) tab.
    void showKind(int kind);
    /// Gets a profiled run ready for the user (an empty view's button): the Command tab with
    /// the profiler ticked and the program field focused, or the Engine tab with Profile on;
    /// the message under the buttons says what to do next.
    void offerProfiledRun(bool command);
    void pauseTraining();
    void resumeTraining();
    void stopTraining();
    /// Puts the settings of run `runId` from the history into the form.
    bool loadRunSettings(qint64 runId);

    /// The last error or state line under the buttons.
    QString message() const;
    TrainingForm* form() const { return m_form; }
    CommandForm* commandForm() const { return m_commandForm; }
    QTabWidget* kindTabs() const { return m_kinds; }
    TrainingRunController* controller() const { return m_controller; }
    CommandRunController* commandController() const { return m_commands; }
    /// True while either kind of run goes.
    bool running() const;
    TrainingProgressWidget* progress() const { return m_progress; }
    CurvesView* curves() const { return m_curves; }
    TrainingRunsModel* runs() const { return m_runs; }
    TrainingResultsWidget* results() const { return m_results; }
    QPushButton* startButton() const { return m_start; }
    QPushButton* pauseButton() const { return m_pause; }
    QPushButton* stopButton() const { return m_stop; }
    QPushButton* renameButton() const { return m_rename; }
    QPushButton* removeButton() const { return m_remove; }
    /// Shown after a run whose program never started (a typo'd name): removes that run.
    QPushButton* removeJunkButton() const { return m_removeJunk; }
    /// Renames run `runId` (a job; the history reloads); what Rename… does after asking.
    void renameRun(qint64 runId, const QString& name);
    /// Removes run `runId` and what it recorded (a job); what Remove… does after asking.
    void removeRun(qint64 runId);
    /// Selects run `runId` in the history (false when it is not listed).
    bool selectRun(qint64 runId);

signals:
    /// The run history was read again (after a session change, a start or an end).
    void runsReloaded();
    /// A run ended and its results are shown.
    void runFinished(qint64 runId, const QString& status);

private:
    void onStarted(qint64 runId, qint64 stepsPerEpoch, qint64 parameters);
    void onCommandStarted(qint64 runId);
    void onCommandFinished(const ts::run::CommandResult& r);
    QString sessionForNewRun();
    bool startRanks(ts::run::JobOptions o);
    static void resolveDumpPath(ts::run::JobOptions& o);
    void onFinished(qint64 runId, const QString& status, const QString& reason,
                    const QString& summaryJson);
    void reloadRuns();
    void showSelectedRun();
    qint64 selectedRunId() const;
    void updateButtons();
    void setMessage(const QString& text, bool error = false);

    SessionContext* m_ctx;
    TrainingForm* m_form;
    CommandForm* m_commandForm;
    QTabWidget* m_kinds;
    TrainingRunController* m_controller;
    CommandRunController* m_commands;
    TrainingProgressWidget* m_progress;
    CurvesView* m_curves;
    TrainingRunsModel* m_runs;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    TrainingResultsWidget* m_results;
    QPushButton *m_start, *m_pause, *m_stop, *m_load, *m_continue, *m_rename, *m_remove,
        *m_removeJunk;
    qint64 m_junkRun = 0;  // a run whose program never started
    QLabel* m_message;
    QString m_pendingSession;  // session a run creates when none was open
    QString m_rankFolder;      // where the ranks of a data-parallel run record
    qint64 m_selectAfterReload = 0;
};
