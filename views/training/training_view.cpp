#include "views/training/training_view.h"

#include <QCheckBox>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "core/common/data_paths.h"
#include "core/engine/data/dataset.h"
#include "core/run/rank_command.h"
#include "core/run/run_names.h"
#include "core/store/trace_store.h"
#include "importers/run_artifacts.h"
#include "views/common/job_tracker.h"
#include "views/common/rdr_auto_open.h"
#include "views/common/session_context.h"
#include "views/common/session_places.h"
#include "views/curves/curves_view.h"
#include "views/training/command_form.h"
#include "views/training/command_run_controller.h"
#include "views/training/training_form.h"
#include "views/training/training_progress_widget.h"
#include "views/training/training_results_widget.h"
#include "views/training/training_run_controller.h"
#include "views/training/training_runs_model.h"
#include "views/training/training_widgets.h"

namespace {

struct RunsResult {
    std::vector<ts::run::RunSummary> runs;
    QString error;
};

}  // namespace

ts::run::JobOptions TrainingView::defaultOptions() {
    ts::run::JobOptions o;
    auto& c = o.train;
    c.model = "mlp";
    c.dataset = ts::engine::fashionMnistDir().empty() ? "synthetic" : "fashion-mnist";
    c.syntheticSamples = 8192;
    c.epochs = 5;
    c.batchSize = 64;
    c.optimizer = "sgd";
    c.lr = 0.05;
    c.momentum = 0.9;
    c.evalEachEpoch = true;
    o.saveEpochs = 1;
    o.saveOnStop = true;
    return o;
}

TrainingView::TrainingView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_form(new TrainingForm(this)),
      m_commandForm(new CommandForm(this)),
      m_kinds(new QTabWidget(this)),
      m_controller(new TrainingRunController(this)),
      m_commands(new CommandRunController(this)),
      m_progress(new TrainingProgressWidget(this)),
      m_curves(new CurvesView(ctx, this)),
      m_runs(new TrainingRunsModel(this)),
      m_proxy(new QSortFilterProxyModel(this)),
      m_table(new QTableView(this)),
      m_results(new TrainingResultsWidget(this)),
      m_start(new QPushButton(tr("Start"), this)),
      m_pause(new QPushButton(tr("Pause"), this)),
      m_stop(new QPushButton(tr("Stop"), this)),
      m_load(new QPushButton(tr("Load settings"), this)),
      m_continue(new QPushButton(tr("Resume…"), this)),
      m_rename(new QPushButton(tr("Rename…"), this)),
      m_remove(new QPushButton(tr("Remove…"), this)),
      m_removeJunk(new QPushButton(tr("Remove this run"), this)),
      m_message(new QLabel(this)) {
    m_form->setOptions(defaultOptions());
    m_start->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_pause->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
    m_stop->setIcon(style()->standardIcon(QStyle::SP_MediaStop));
    m_start->setToolTip(tr("Train with these settings; the run is recorded in the session"));
    m_stop->setToolTip(
        tr("End the run after its current step (its state is saved when "
           "“Save the end state” is ticked)"));
    m_load->setToolTip(tr("Put the selected run's settings into the form"));
    m_continue->setToolTip(
        tr("Load the selected run's settings and resume from its last "
           "checkpoint"));
    // The panel shows what a run is judged by; the filter field shows the rest.
    m_curves->setTagFilter(QStringLiteral("^(train/loss|eval/loss|eval/accuracy|lr|loss_scale)$"));
    m_curves->setRunListWidth(170);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_proxy->setSourceModel(m_runs);
    m_proxy->setSortRole(TrainingRunsModel::SortRole);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(TrainingRunsModel::RunCol, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);

    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {m_start, m_pause, m_stop}) buttons->addWidget(b);
    buttons->addSpacing(12);
    buttons->addWidget(m_message, 1);
    buttons->addWidget(m_removeJunk);
    m_removeJunk->hide();
    m_rename->setToolTip(tr("Give the selected run a name of your own"));
    m_remove->setToolTip(tr("Remove the selected run and everything it recorded"));

    auto* top = new QWidget(this);
    auto* tl = new QVBoxLayout(top);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->addLayout(buttons);
    tl->addWidget(m_progress);
    tl->addWidget(m_curves, 1);

    auto* history = new QWidget(this);
    auto* hl = new QVBoxLayout(history);
    hl->setContentsMargins(0, 0, 0, 0);
    auto* hb = new QHBoxLayout;
    auto* title = new QLabel(tr("Runs in this session"), history);
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    // The title, then the history's buttons on a row of their own: the panel fits 1280 pixels.
    hb->addWidget(title);
    hb->addStretch(1);
    hl->addLayout(hb);
    auto* hb2 = new QHBoxLayout;
    hb2->addWidget(m_rename);
    hb2->addWidget(m_remove);
    hb2->addWidget(m_load);
    hb2->addWidget(m_continue);
    hb2->addStretch(1);
    hl->addLayout(hb2);
    hl->addWidget(m_table, 1);
    auto* bottom = new QSplitter(Qt::Horizontal, this);
    bottom->addWidget(history);
    bottom->addWidget(m_results);
    bottom->setStretchFactor(0, 2);
    bottom->setStretchFactor(1, 3);
    bottom->setSizes({420, 780});

    auto* right = new QSplitter(Qt::Vertical, this);
    right->addWidget(top);
    right->addWidget(bottom);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    right->setSizes({560, 380});  // the results: a 10-class confusion matrix without scrolling
    m_kinds->addTab(m_form, tr("Engine"));
    m_kinds->addTab(m_commandForm, tr("Command"));
    m_kinds->setTabToolTip(0, tr("Train with the built-in engine"));
    m_kinds->setTabToolTip(1, tr("Run your own training command (PyTorch, MindSpore, any program) "
                                 "and watch it live"));
    m_kinds->setDocumentMode(true);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_kinds);
    split->addWidget(right);
    split->setStretchFactor(1, 1);
    split->setCollapsible(1, false);
    split->setSizes({std::max(m_form->minimumWidth(), m_commandForm->minimumWidth()), 1200});
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);

    connect(m_start, &QPushButton::clicked, this, [this] { startTraining(); });
    connect(m_pause, &QPushButton::clicked, this, [this] {
        if (m_controller->paused() || m_commands->paused())
            resumeTraining();
        else
            pauseTraining();
    });
    connect(m_commands, &CommandRunController::started, this, &TrainingView::onCommandStarted);
    connect(m_commands, &CommandRunController::progress, m_progress,
            &TrainingProgressWidget::setCommandProgress);
    connect(m_commands, &CommandRunController::artifactsChanged, m_ctx,
            &SessionContext::notifyDataChanged);
    connect(m_commands, &CommandRunController::finished, this, &TrainingView::onCommandFinished);
    connect(m_ctx, &SessionContext::sessionChanged, this,
            [this] { m_commandForm->setSessionPath(m_ctx->sessionPath()); });
    m_commandForm->setSessionPath(m_ctx->sessionPath());
    connect(m_kinds, &QTabWidget::currentChanged, this, [this](int kind) {
        if (!running()) m_progress->setEngineMode(kind == 0);
    });
    connect(m_stop, &QPushButton::clicked, this, &TrainingView::stopTraining);
    connect(m_rename, &QPushButton::clicked, this, [this] {
        const auto* run = m_runs->run(selectedRunId());
        if (!run) return;
        bool ok = false;
        const QString name =
            QInputDialog::getText(this, tr("Rename run"), tr("Name:"), QLineEdit::Normal,
                                  QString::fromStdString(run->name), &ok);
        if (ok) renameRun(run->id, name);
    });
    connect(m_remove, &QPushButton::clicked, this, [this] {
        const auto* run = m_runs->run(selectedRunId());
        if (!run) return;
        if (QMessageBox::question(
                this, tr("Remove run"),
                tr("Remove run #%1 (%2) with its logs, curves, traces and findings?")
                    .arg(run->id)
                    .arg(QString::fromStdString(run->name))) == QMessageBox::Yes)
            removeRun(run->id);
    });
    connect(m_removeJunk, &QPushButton::clicked, this, [this] {
        if (m_junkRun > 0) removeRun(m_junkRun);
    });
    connect(m_load, &QPushButton::clicked, this, [this] { loadRunSettings(selectedRunId()); });
    connect(m_continue, &QPushButton::clicked, this, [this] {
        const auto* run = m_runs->run(selectedRunId());
        if (!run || run->checkpoints.empty() || !loadRunSettings(run->id)) return;
        ts::run::JobOptions o;
        QString error;
        if (!m_form->options(&o, &error)) return;
        o.train.resumeFrom = run->checkpoints.back();
        m_form->setOptions(o);
        setMessage(tr("Will resume from %1").arg(QString::fromStdString(run->checkpoints.back())));
    });
    connect(m_controller, &TrainingRunController::started, this, &TrainingView::onStarted);
    connect(m_controller, &TrainingRunController::progress, m_progress,
            &TrainingProgressWidget::setProgress);
    connect(m_controller, &TrainingRunController::finished, this,
            [this](qint64 id, const ts::engine::TrainResult& r, const QString& summary,
                   const QStringList&) {
                onFinished(id, QString::fromStdString(r.status), QString::fromStdString(r.reason),
                           summary);
            });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &TrainingView::showSelectedRun);
    connect(m_results, &TrainingResultsWidget::openCheckpoint, m_ctx, &SessionContext::requestOpen);
    connect(ctx, &SessionContext::sessionChanged, this, &TrainingView::reloadRuns);
    connect(ctx, &SessionContext::dataChanged, this, &TrainingView::reloadRuns);
    updateButtons();
    reloadRuns();
}

TrainingView::~TrainingView() = default;

void TrainingView::renameRun(qint64 runId, const QString& name) {
    m_ctx->jobs()->run<QString>(
        this, QStringLiteral("run-rename"), tr("Renaming run %1").arg(runId),
        [p = m_ctx->sessionPath().toStdString(), runId, n = name.toStdString()](ts::JobControl&) {
            auto s = ts::store::TraceStore::open(p, ts::store::TraceStore::Mode::ReadWrite);
            if (!s) return QString::fromStdString(s.error());
            auto r = ts::run::renameRun(*s.value(), runId, n);
            return r ? QString() : QString::fromStdString(r.error());
        },
        [this, runId](QString error) {
            if (!error.isEmpty()) {
                setMessage(tr("Cannot rename: %1").arg(error), true);
                return;
            }
            m_selectAfterReload = runId;
            m_ctx->notifyDataChanged();
        });
}

void TrainingView::removeRun(qint64 runId) {
    m_ctx->jobs()->run<QString>(
        this, QStringLiteral("run-remove"), tr("Removing run %1").arg(runId),
        [p = m_ctx->sessionPath().toStdString(), runId](ts::JobControl&) {
            auto s = ts::store::TraceStore::open(p, ts::store::TraceStore::Mode::ReadWrite);
            if (!s) return QString::fromStdString(s.error());
            auto r = ts::run::removeRun(*s.value(), runId);
            return r ? QString() : QString::fromStdString(r.error());
        },
        [this, runId](QString error) {
            if (!error.isEmpty()) {
                setMessage(tr("Cannot remove: %1").arg(error), true);
                return;
            }
            if (runId == m_junkRun) {
                m_junkRun = 0;
                m_removeJunk->hide();
            }
            setMessage(tr("Run #%1 removed.").arg(runId));
            m_ctx->notifyDataChanged();
        });
}

bool TrainingView::selectRun(qint64 runId) {
    for (int r = 0; r < m_proxy->rowCount(); ++r) {
        const QModelIndex i = m_proxy->index(r, 0);
        if (m_proxy->data(i, Qt::UserRole).toLongLong() == runId) {
            m_table->selectionModel()->setCurrentIndex(
                i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            return true;
        }
    }
    return false;
}

QString TrainingView::message() const {
    return m_message->text();
}

void TrainingView::setMessage(const QString& text, bool error) {
    m_message->setText(text);
    m_message->setStyleSheet(error ? QStringLiteral("color: #c0392b") : QString());
}

void TrainingView::resolveDumpPath(ts::run::JobOptions& o) {
    // A relative dump_path means "beside the session" in the studio (its working folder is
    // not something the user chose); the CLI keeps it relative to where it runs.
    if (o.dumpConfigJson.empty()) return;
    QJsonObject dump =
        QJsonDocument::fromJson(QByteArray::fromStdString(o.dumpConfigJson)).object();
    const QString path = dump.value(QStringLiteral("dump_path")).toString();
    if (path.isEmpty() || QDir::isAbsolutePath(path)) return;
    const QDir base = QFileInfo(QString::fromStdString(o.sessionPath)).absoluteDir();
    dump.insert(QStringLiteral("dump_path"), QDir::cleanPath(base.absoluteFilePath(path)));
    o.dumpConfigJson = QJsonDocument(dump).toJson(QJsonDocument::Compact).toStdString();
}

bool TrainingView::running() const {
    return m_controller->running() || m_commands->running();
}

QString TrainingView::sessionForNewRun() {
    m_pendingSession.clear();
    if (!m_ctx->sessionPath().isEmpty()) return m_ctx->sessionPath();
    m_pendingSession =
        newSessionPath(QStringLiteral("training-") +
                       QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
    return m_pendingSession;
}

void TrainingView::showKind(int kind) {
    m_kinds->setCurrentIndex(kind);
}

void TrainingView::offerProfiledRun(bool command) {
    showKind(command ? 1 : 0);
    if (command) {
        m_commandForm->profileCheck()->setChecked(true);
        m_commandForm->programEdit()->setFocus();
        setMessage(
            tr("Name your script (program python3, arguments train.py) and press Start: "
               "torch.profiler records steps 2-4, and the traces appear in the Timeline "
               "and Op statistics as they are written."));
        return;
    }
    ts::run::JobOptions o;
    QString error;
    if (!m_form->options(&o, &error)) o = defaultOptions();
    o.profile = true;
    m_form->setOptions(o);
    setMessage(
        tr("Profile is on: press Start to train the built-in engine; its profile opens "
           "in the Timeline, Steps and Memory views when the run ends."));
}

bool TrainingView::startCommand() {
    if (running()) {
        setMessage(tr("A run is going: stop it first."), true);
        return false;
    }
    ts::run::CommandRunOptions o;
    QString error;
    if (!m_commandForm->spec(&o.spec, &error)) {
        setMessage(error, true);
        return false;
    }
    o.sessionPath = sessionForNewRun().toStdString();
    if (o.spec.cwd.empty())  // the studio's own folder is not one the user chose
        o.spec.cwd = QFileInfo(QString::fromStdString(o.sessionPath)).absolutePath().toStdString();
    o.importArtifact = ts::importers::runArtifactImporter();
    m_progress->setEngineMode(false);
    m_progress->reset(tr("Starting"));
    m_commands->start(std::move(o));
    setMessage(tr("Starting the command…"));
    updateButtons();
    return true;
}

bool TrainingView::startCommand(const QString& specJson, QString* error) {
    auto spec = ts::run::launchSpecFromJson(specJson.toStdString());
    if (!spec) {
        if (error) *error = QString::fromStdString(spec.error());
        return false;
    }
    m_commandForm->setSpec(spec.value());
    m_kinds->setCurrentWidget(m_commandForm);
    if (!startCommand()) {
        if (error) *error = message();
        return false;
    }
    return true;
}

bool TrainingView::startTraining() {
    if (m_kinds->currentWidget() == m_commandForm) return startCommand();
    if (running()) {
        setMessage(tr("A run is going: stop it first."), true);
        return false;
    }
    ts::run::JobOptions o;
    QString error;
    if (!m_form->options(&o, &error)) {
        setMessage(error, true);
        return false;
    }
    o.sessionPath = sessionForNewRun().toStdString();
    const QString name =
        QStringLiteral("%1 on %2, %3 lr %4")
            .arg(QString::fromStdString(o.train.model), QString::fromStdString(o.train.dataset),
                 QString::fromStdString(o.train.optimizer))
            .arg(o.train.lr);
    o.runName = name.toStdString();
    resolveDumpPath(o);
    if (o.processes > 1) return startRanks(std::move(o));
    m_controller->start(std::move(o));
    m_progress->setEngineMode(true);
    m_progress->reset(tr("Preparing"));
    setMessage(tr("Loading the data and building the model…"));
    updateButtons();
    return true;
}

bool TrainingView::startRanks(ts::run::JobOptions o) {
    // Data parallel: the ranks are processes of trainscope-cli train (the same engine), run
    // and watched as a command run; each records its own session in a folder beside this one.
    const QFileInfo session(QString::fromStdString(o.sessionPath));
    const QString folder = session.absolutePath() + "/" + session.completeBaseName() + "-ranks/" +
                           QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss");
    const QString cli = QString::fromStdString(ts::siblingProgram("trainscope-cli"));
    auto spec =
        ts::run::rankedTrainingCommand(o, o.processes, folder.toStdString(), cli.toStdString());
    if (!spec) {
        setMessage(QString::fromStdString(spec.error()), true);
        return false;
    }
    ts::run::CommandRunOptions c;
    c.spec = std::move(spec.value());
    c.sessionPath = o.sessionPath;
    m_rankFolder = folder;
    m_progress->setEngineMode(false);
    m_progress->reset(tr("Starting %1 ranks").arg(o.processes));
    m_commands->start(std::move(c));
    setMessage(tr("Starting %1 ranks; their sessions go to %2").arg(o.processes).arg(folder));
    updateButtons();
    return true;
}

bool TrainingView::startTraining(const QString& settingsJson, QString* error) {
    ts::run::JobOptions o;
    QString why;
    if (!m_form->options(&o, &why)) {
        if (error) *error = why;
        return false;
    }
    auto c = ts::engine::TrainConfig::fromJson(settingsJson.toStdString(), o.train);
    if (!c) {
        if (error) *error = QString::fromStdString(c.error());
        return false;
    }
    o.train = c.value();
    m_form->setOptions(o);
    if (!startTraining()) {
        if (error) *error = message();
        return false;
    }
    return true;
}

void TrainingView::pauseTraining() {
    if (m_commands->running()) {
        m_commands->pause();
        setMessage(
            tr("Paused: the command's processes are held (SIGSTOP). Resume lets them go on."));
        m_pause->setText(tr("Resume"));
        m_pause->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
        return;
    }
    m_controller->pause();
    m_progress->setFinished(tr("Pausing"));
    setMessage(tr("Paused after the current step. Resume continues the same run."));
    m_pause->setText(tr("Resume"));
    m_pause->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
}

void TrainingView::resumeTraining() {
    if (m_commands->running()) m_commands->resume();
    m_controller->resume();
    setMessage(tr("Training"));
    m_pause->setText(tr("Pause"));
    m_pause->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
}

void TrainingView::stopTraining() {
    if (m_commands->running()) {
        m_commands->stop();
        setMessage(tr("Stopping: SIGINT, then SIGTERM and SIGKILL if the command does not end…"));
        m_stop->setEnabled(false);
        return;
    }
    if (!m_controller->running()) return;
    m_controller->stop();
    m_progress->setFinished(tr("Stopping"));
    setMessage(tr("Stopping after the current step…"));
    m_stop->setEnabled(false);
}

void TrainingView::onStarted(qint64 runId, qint64 stepsPerEpoch, qint64 parameters) {
    if (!m_pendingSession.isEmpty() && m_ctx->sessionPath().isEmpty())
        m_ctx->setSessionPath(m_pendingSession);
    m_pendingSession.clear();
    setMessage(tr("Run #%1: %2 parameters, %3 steps per epoch")
                   .arg(runId)
                   .arg(QLocale().toString(parameters))
                   .arg(QLocale().toString(stepsPerEpoch)));
    // The curves and the history pick the new run up from the session; the results keep
    // showing the run the user selected until this one ends.
    m_ctx->notifyDataChanged();
}

void TrainingView::onCommandStarted(qint64 runId) {
    if (!m_pendingSession.isEmpty() && m_ctx->sessionPath().isEmpty())
        m_ctx->setSessionPath(m_pendingSession);
    m_pendingSession.clear();
    const auto& p = m_commands->lastProgress();
    setMessage(p.processes.size() == 1
                   ? tr("Run #%1: pid %2 started").arg(runId).arg(p.processes.front().pid)
                   : tr("Run #%1: %2 processes started").arg(runId).arg(p.processes.size()));
    m_ctx->notifyDataChanged();
}

void TrainingView::onCommandFinished(const ts::run::CommandResult& r) {
    if (!m_pendingSession.isEmpty() && m_ctx->sessionPath().isEmpty() && r.runId > 0)
        m_ctx->setSessionPath(m_pendingSession);
    m_pendingSession.clear();
    const QString status = QString::fromLatin1(ts::store::statusName(r.status));
    m_progress->setFinished(status.left(1).toUpper() + status.mid(1));
    QStringList notes;
    if (!r.traces.empty()) notes << tr("traces imported: %1").arg(r.traces.size());
    if (r.overflowFindings > 0)
        notes << tr("NaN/Inf findings: %1 (Overflow view)").arg(r.overflowFindings);
    if (!r.rdr.empty()) notes << tr("crash record written");
    if (!m_rankFolder.isEmpty()) notes << tr("the ranks' sessions: %1").arg(m_rankFolder);
    m_rankFolder.clear();
    QString text =
        r.runId > 0
            ? tr("Run #%1 %2: %3").arg(r.runId).arg(status, QString::fromStdString(r.reason))
            : QString::fromStdString(r.reason);
    // A program that never started (a typo'd name) leaves a run with nothing in it: say so
    // plainly and offer to remove it.
    const bool neverStarted = r.status == ts::store::RunStatus::Failed && r.runId > 0 &&
                              r.reason.rfind("cannot start", 0) == 0;
    if (neverStarted) {
        text = tr("Nothing ran: %1. Check the program's name or path; run #%2 holds nothing "
                  "and can go.")
                   .arg(QString::fromStdString(r.reason))
                   .arg(r.runId);
        m_junkRun = r.runId;
    }
    m_removeJunk->setVisible(neverStarted);
    if (!neverStarted && r.traces.empty() && r.runId > 0) {
        // Where traces were looked for, so a script that writes them elsewhere is a folder away.
        ts::run::LaunchSpec spec;
        QString error;
        if (m_commandForm->spec(&spec, &error) && spec.watchDefaults) {
            QStringList where;
            for (const auto& d : ts::run::defaultWatchFolders(spec.cwd))
                where << QFileInfo(QString::fromStdString(d.path)).fileName();
            notes << tr("no trace appeared in the folders watched (the working folder and its "
                        "%1); a script writing its traces elsewhere needs that folder under "
                        "Watched folders")
                         .arg(where.mid(1).join(QStringLiteral(", ")));
        }
    }
    if (!notes.isEmpty()) text += QStringLiteral(" — ") + notes.join(QStringLiteral("; "));
    setMessage(text, status == QLatin1String("failed"));
    if (!r.rdr.empty()) openRdrAfterRun(m_ctx, status, QString::fromStdString(r.rdr.front()));
    m_pause->setText(tr("Pause"));
    m_pause->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
    updateButtons();
    if (r.runId > 0) {
        m_selectAfterReload = r.runId;
        m_ctx->notifyDataChanged();
    }
    emit runFinished(r.runId, status);
}

void TrainingView::onFinished(qint64 runId, const QString& status, const QString& reason,
                              const QString& summaryJson) {
    m_progress->setFinished(status.isEmpty() ? tr("Failed")
                                             : status.left(1).toUpper() + status.mid(1));
    // What the instrumentation left: a profile, overflow findings, a crash record.
    const QJsonObject summary = QJsonDocument::fromJson(summaryJson.toUtf8()).object();
    QStringList notes;
    if (summary.value(QStringLiteral("profile"))
            .toObject()
            .value(QStringLiteral("source_id"))
            .toInteger() > 0)
        notes << tr("profile recorded (Steps, Timeline, Op statistics, Advice)");
    if (const qint64 findings = summary.value(QStringLiteral("overflow"))
                                    .toObject()
                                    .value(QStringLiteral("findings"))
                                    .toInteger();
        findings > 0)
        notes << tr("%n NaN/Inf finding(s) (Overflow view)", nullptr, static_cast<int>(findings));
    const QString rdrDir = summary.value(QStringLiteral("rdr_export")).toString();
    QString text = runId > 0 ? tr("Run #%1 %2: %3").arg(runId).arg(status, reason) : reason;
    if (!notes.isEmpty()) text += QStringLiteral(" — ") + notes.join(QStringLiteral("; "));
    setMessage(text, status == QLatin1String("failed"));
    openRdrAfterRun(m_ctx, status, rdrDir);
    m_pause->setText(tr("Pause"));
    m_pause->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
    updateButtons();
    if (runId > 0) {
        m_selectAfterReload = runId;
        m_ctx->notifyDataChanged();
    }
    emit runFinished(runId, status);
}

void TrainingView::updateButtons() {
    const bool running = this->running();
    m_start->setEnabled(!running);
    m_pause->setEnabled(running);
    m_stop->setEnabled(running);
    const auto* run = m_runs->run(selectedRunId());
    m_load->setEnabled(run && (run->hasConfig || run->isCommand()));
    m_continue->setEnabled(run && run->hasConfig && !run->checkpoints.empty() && !running);
}

bool TrainingView::loadRunSettings(qint64 runId) {
    const auto* run = m_runs->run(runId);
    if (run && run->isCommand()) {
        auto spec = ts::run::launchSpecFromJson(run->configJson);
        if (!spec) return false;
        m_commandForm->setSpec(spec.value());
        m_kinds->setCurrentWidget(m_commandForm);
        setMessage(tr("Settings of run #%1 loaded").arg(runId));
        return true;
    }
    if (!run || !run->hasConfig) return false;
    ts::run::JobOptions o;
    QString error;
    m_form->options(&o, &error);  // keep the callback settings the form has
    o.train = run->config;
    o.train.resumeFrom.clear();
    m_form->setOptions(o);
    m_kinds->setCurrentWidget(m_form);
    setMessage(tr("Settings of run #%1 loaded").arg(runId));
    return true;
}

qint64 TrainingView::selectedRunId() const {
    const QModelIndex cur = m_table->selectionModel()->currentIndex();
    return cur.isValid() ? m_proxy->data(cur, Qt::UserRole).toLongLong() : 0;
}

void TrainingView::showSelectedRun() {
    const auto* run = m_runs->run(selectedRunId());
    if (run)
        m_results->showRun(*run);
    else
        m_results->clear(tr("Select a run to see its results."));
    updateButtons();
}

void TrainingView::reloadRuns() {
    const QString path = m_ctx->sessionPath();
    if (path.isEmpty()) {
        m_runs->setRuns({});
        showSelectedRun();
        emit runsReloaded();
        return;
    }
    const qint64 keep = m_selectAfterReload ? m_selectAfterReload : selectedRunId();
    m_ctx->jobs()->run<RunsResult>(
        this, QStringLiteral("training-runs-%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Reading runs"),
        [p = path.toStdString()](ts::JobControl&) {
            RunsResult r;
            auto st = ts::store::TraceStore::open(p, ts::store::TraceStore::Mode::ReadOnly);
            if (!st) {
                r.error = QString::fromStdString(st.error());
                return r;
            }
            auto runs = ts::run::readRunSummaries(*st.value());
            if (runs)
                r.runs = std::move(runs.value());
            else
                r.error = QString::fromStdString(runs.error());
            return r;
        },
        [this, keep](RunsResult r) {
            if (!r.error.isEmpty()) setMessage(tr("Cannot read the runs: %1").arg(r.error), true);
            m_runs->setRuns(std::move(r.runs));
            m_selectAfterReload = 0;
            // Nothing selected yet: the newest run that has results (a running one has none).
            qint64 pick = keep;
            for (int i = 0; pick == 0 && i < m_runs->rowCount(); ++i)
                if (m_runs->at(i).status != ts::store::RunStatus::Running) pick = m_runs->at(i).id;
            if (pick == 0 && m_runs->rowCount() > 0) pick = m_runs->at(0).id;
            const int row = m_runs->rowOf(pick);
            if (row >= 0) {
                const QModelIndex idx = m_proxy->mapFromSource(m_runs->index(row, 0));
                m_table->selectionModel()->setCurrentIndex(
                    idx, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            }
            showSelectedRun();
            emit runsReloaded();
        });
}
