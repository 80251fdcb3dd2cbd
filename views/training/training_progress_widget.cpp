#include "views/training/training_progress_widget.h"

#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <cmath>

#include "views/common/units_text.h"

namespace {
QLabel* value(QWidget* parent) {
    auto* l = new QLabel(QStringLiteral("–"), parent);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setMinimumWidth(64);
    return l;
}
}  // namespace

TrainingProgressWidget::TrainingProgressWidget(QWidget* parent)
    : QWidget(parent), m_bar(new QProgressBar(this)), m_state(new QLabel(this)) {
    m_bar->setRange(0, 1000);
    m_bar->setValue(0);
    m_bar->setTextVisible(true);
    m_bar->setFormat(QString());
    m_step = value(this);
    m_rate = value(this);
    m_time = value(this);
    m_loss = value(this);
    m_scale = value(this);
    m_memory = value(this);
    QFont bold = m_state->font();
    bold.setBold(true);
    m_state->setFont(bold);
    auto* g = new QGridLayout(this);
    g->setContentsMargins(0, 0, 0, 0);
    g->setHorizontalSpacing(10);
    g->setVerticalSpacing(2);
    g->addWidget(m_state, 0, 0);
    g->addWidget(m_bar, 0, 1, 1, 5);
    int col = 0;
    for (auto [name, label] :
         {std::pair{tr("Progress"), m_step}, {tr("Throughput"), m_rate}, {tr("Time"), m_time}}) {
        auto* n = new QLabel(name, this);
        n->setEnabled(false);
        m_names.push_back(n);
        g->addWidget(n, 1, col);
        g->addWidget(label, 2, col++);
    }
    for (auto [name, label] : {std::pair{tr("Loss · LR"), m_loss},
                               {tr("Loss scale"), m_scale},
                               {tr("Memory"), m_memory}}) {
        auto* n = new QLabel(name, this);
        n->setEnabled(false);
        m_names.push_back(n);
        g->addWidget(n, 1, col);
        g->addWidget(label, 2, col++);
    }
    reset(tr("Idle"));
}

QString TrainingProgressWidget::duration(double s) {
    if (!(s >= 0) || !std::isfinite(s)) return QStringLiteral("–");
    const qint64 t = static_cast<qint64>(std::llround(s));
    if (t >= 3600) return tr("%1 h %2 min").arg(t / 3600).arg((t % 3600) / 60, 2, 10, QChar('0'));
    if (t >= 60) return tr("%1 min %2 s").arg(t / 60).arg(t % 60, 2, 10, QChar('0'));
    return tr("%1 s").arg(t);
}

QString TrainingProgressWidget::bytes(qint64 n) {
    return bytesText(static_cast<double>(n));
}

void TrainingProgressWidget::reset(const QString& state) {
    m_firstStep = -1;
    m_firstElapsed = 0;
    m_eta = -1;
    m_state->setText(state);
    m_bar->setValue(0);
    m_bar->setFormat(QString());
    for (QLabel* l : {m_step, m_rate, m_time, m_loss, m_scale, m_memory})
        l->setText(QStringLiteral("–"));
}

void TrainingProgressWidget::setProgress(const ts::engine::TrainProgress& p) {
    if (p.step > 0 && m_firstStep < 0) {
        // A resumed run starts past step 0: rate and ETA count from the first step seen.
        m_firstStep = p.step;
        m_firstElapsed = p.elapsedS;
    }
    const double frac =
        p.totalSteps > 0 ? std::clamp(static_cast<double>(p.step) / p.totalSteps, 0.0, 1.0) : 0.0;
    m_bar->setValue(static_cast<int>(frac * 1000));
    m_bar->setFormat(QStringLiteral("%1%").arg(frac * 100, 0, 'f', 1));
    const QLocale loc;
    m_step->setText(tr("epoch %1/%2 · step %3/%4")
                        .arg(p.epoch)
                        .arg(p.epochs)
                        .arg(loc.toString(static_cast<qlonglong>(p.step)))
                        .arg(loc.toString(static_cast<qlonglong>(p.totalSteps))));
    m_rate->setText(p.samplesPerS > 0 ? tr("%1 samples/s").arg(loc.toString(p.samplesPerS, 'f', 0))
                                      : QStringLiteral("–"));
    const qint64 doneHere = p.step - m_firstStep;
    if (m_firstStep >= 0 && doneHere > 0 && p.elapsedS > m_firstElapsed)
        m_eta = (p.elapsedS - m_firstElapsed) / static_cast<double>(doneHere) *
                static_cast<double>(std::max<int64_t>(0, p.totalSteps - p.step));
    m_time->setText(tr("%1 elapsed · ETA %2")
                        .arg(duration(p.elapsedS), m_eta >= 0 ? duration(m_eta) : tr("–")));
    m_loss->setText(QStringLiteral("%1 · %2").arg(QString::number(p.loss, 'g', 5),
                                                  QString::number(p.lr, 'g', 4)));
    m_scale->setText(p.overflowSteps > 0 ? tr("%1 (%2 overflowed steps skipped)")
                                               .arg(QString::number(p.lossScale, 'g', 6))
                                               .arg(p.overflowSteps)
                                         : QString::number(p.lossScale, 'g', 6));
    m_memory->setText(tr("%1 in use · %2 peak").arg(bytes(p.bytesInUse), bytes(p.peakBytes)));
    if (p.running)
        m_state->setText(p.holding ? tr("Paused") : p.paused ? tr("Pausing") : tr("Training"));
}

void TrainingProgressWidget::setFinished(const QString& state) {
    m_state->setText(state);
    m_eta = -1;
    if (!m_engineMode) {
        m_bar->setRange(0, 1000);
        m_bar->setValue(1000);
        m_bar->setFormat(state);
    }
}

void TrainingProgressWidget::setEngineMode(bool engine) {
    m_engineMode = engine;
    const QStringList names = engine ? QStringList{tr("Progress"),  tr("Throughput"), tr("Time"),
                                                   tr("Loss · LR"), tr("Loss scale"), tr("Memory")}
                                     : QStringList{tr("Progress"), tr("Processes"), tr("Time"),
                                                   tr("Loss"),     tr("Imported"),  tr("Findings")};
    for (size_t i = 0; i < m_names.size(); ++i) m_names[i]->setText(names[static_cast<int>(i)]);
    m_bar->setRange(0, 1000);
}

void TrainingProgressWidget::setCommandProgress(const ts::run::CommandProgress& p) {
    const QLocale loc;
    if (p.state == ts::run::CommandState::Running || p.state == ts::run::CommandState::Starting) {
        m_bar->setRange(0, 0);  // busy: a command has no total to measure against
    } else if (p.state == ts::run::CommandState::Ended) {
        m_bar->setRange(0, 1000);
        m_bar->setValue(1000);
    }
    m_step->setText(tr("step %1 · %2 lines")
                        .arg(loc.toString(static_cast<qlonglong>(p.step)),
                             loc.toString(static_cast<qlonglong>(p.lines))));
    int running = 0;
    QStringList pids;
    for (const auto& proc : p.processes) {
        running += proc.running ? 1 : 0;
        if (pids.size() < 3) pids << QString::number(proc.pid);
    }
    m_rate->setText(p.processes.size() == 1
                        ? tr("pid %1%2").arg(pids.value(0), running ? QString() : tr(" (ended)"))
                        : tr("%1 of %2 running (pid %3…)")
                              .arg(running)
                              .arg(p.processes.size())
                              .arg(pids.join(QStringLiteral(", "))));
    m_time->setText(tr("%1 elapsed").arg(duration(p.elapsedS)));
    m_loss->setText(p.loss ? QString::number(*p.loss, 'g', 5) : QStringLiteral("–"));
    m_scale->setText(tr("traces %1 · dumps %2").arg(p.traces).arg(p.dumpFiles));
    m_memory->setText(
        tr("%1 NaN/Inf · %2 crash records").arg(p.overflowFindings).arg(p.rdrRecords));
    const QString state = p.state == ts::run::CommandState::Paused ? tr("Paused")
                          : p.state == ts::run::CommandState::Stopping
                              ? tr("Stopping (%1)").arg(QString::fromStdString(p.stopStage))
                          : p.state == ts::run::CommandState::Starting ? tr("Starting")
                                                                       : tr("Running");
    if (p.state != ts::run::CommandState::Ended) m_state->setText(state);
}

QString TrainingProgressWidget::stepText() const {
    return m_step->text();
}
