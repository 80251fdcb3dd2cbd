#include "views/training/command_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/common/cuda_paths.h"
#include "core/common/data_paths.h"
#include "core/run/launch_env.h"
#include "views/training/command_log_levels.h"
#include "views/training/training_widgets.h"

namespace {

QGroupBox* group(const QString& title, QWidget* parent) {
    return new QGroupBox(title, parent);
}

// One argument as a POSIX shell reads it back: bare when it can be, else in single quotes
// (a single quote inside becomes '\'').
QString quoteArg(const QString& a) {
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
    if (plain.match(a).hasMatch()) return a;
    QString q = a;
    q.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + q + QLatin1Char('\'');
}

}  // namespace

CommandForm::CommandForm(QWidget* parent) : QWidget(parent) {
    auto* content = new QWidget;
    auto* col = new QVBoxLayout(content);
    col->setContentsMargins(4, 4, 4, 4);
    col->addWidget(commandBox());
    col->addWidget(environmentBox());
    col->addWidget(hooksBox());
    col->addWidget(crashBox());
    col->addWidget(cudaBox());
    auto* levels = group(tr("Log levels of the command"), content);
    m_levels = new CommandLogLevels(levels);
    auto* ll = new QVBoxLayout(levels);
    ll->setContentsMargins(6, 6, 6, 6);
    ll->addWidget(m_levels);
    col->addWidget(levels);
    auto* preview = group(tr("Environment the command will get"), content);
    m_preview = new QPlainTextEdit(preview);
    m_preview->setReadOnly(true);
    m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_preview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_preview->setMinimumHeight(150);
    m_preview->setToolTip(
        tr("The variables the studio sets or changes (the rest of the studio's "
           "environment is passed on as it is); rank 0's values"));
    auto* pl = new QVBoxLayout(preview);
    pl->setContentsMargins(6, 6, 6, 6);
    pl->addWidget(m_preview);
    col->addWidget(preview);
    col->addStretch(1);

    auto* scroll = new QScrollArea(this);
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);
    // As wide as the Engine form; the preview and the tables scroll sideways when they must.
    setMinimumWidth(std::min(content->minimumSizeHint().width(), 400) +
                    scroll->verticalScrollBar()->sizeHint().width() + 4);

    connect(m_levels, &CommandLogLevels::changed, this, &CommandForm::changed);
    connect(this, &CommandForm::changed, this, &CommandForm::updatePreview);
    connect(m_preset, &QComboBox::activated, this,
            [this](int i) { applyPreset(static_cast<Preset>(i)); });
    applyPreset(PyTorchScript);
}

QWidget* CommandForm::commandBox() {
    auto* box = group(tr("Command"), this);
    auto* f = new QFormLayout(box);
    m_preset = new QComboBox(box);
    m_preset->addItems({tr("PyTorch script"), tr("PyTorch, one process per rank"),
                        tr("MindSpore script"), tr("Any program")});
    m_preset->setToolTip(tr("Fills the settings these jobs usually need"));
    m_preset->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_program = new PathEdit(PathEdit::OpenFile, box);
    m_program->setPlaceholderText(tr("python3, a script, a launcher…"));
    m_args = new QLineEdit(box);
    m_args->setPlaceholderText(tr("train.py --epochs 1"));
    m_args->setToolTip(tr("Split like a shell does: quote arguments with spaces"));
    m_cwd = new PathEdit(PathEdit::Folder, box);
    m_cwd->setPlaceholderText(tr("the session's folder"));
    m_name = new QLineEdit(box);
    m_name->setPlaceholderText(tr("the script and a counter: train.py #3"));
    m_nproc = spin(box, 1, 1024);
    m_nproc->setToolTip(tr("Processes to start, one per rank"));
    m_ranks = new QComboBox(box);
    m_ranks->addItem(tr("PyTorch ranks"), QStringLiteral("torch"));
    m_ranks->setItemData(0,
                         tr("RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT per process"),
                         Qt::ToolTipRole);
    m_ranks->addItem(tr("MindSpore ranks"), QStringLiteral("mindspore"));
    m_ranks->setItemData(1, tr("RANK_ID, RANK_SIZE, DEVICE_ID per process"), Qt::ToolTipRole);
    m_ranks->addItem(tr("no rank variables"), QStringLiteral("none"));
    for (QComboBox* c : {m_ranks})
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    auto* procs = new QHBoxLayout;
    procs->addWidget(m_nproc);
    procs->addWidget(m_ranks, 1);
    m_lossRegex = new QLineEdit(box);
    m_lossRegex->setPlaceholderText(tr("regex: (?P<step>\\d+) (?P<loss>[0-9.e+-]+)"));
    m_lossRegex->setToolTip(
        tr("Scalars from the output: named groups step, loss, any other name a tag. "
           "MindSpore's LossMonitor lines are read without it."));
    f->addRow(tr("Preset"), m_preset);
    f->addRow(tr("Program"), m_program);
    f->addRow(tr("Arguments"), m_args);
    f->addRow(tr("Working folder"), m_cwd);
    f->addRow(tr("Run name"), m_name);
    f->addRow(tr("Processes"), procs);
    f->addRow(tr("Loss from output"), m_lossRegex);
    connect(m_program, &PathEdit::pathChanged, this, &CommandForm::changed);
    connect(m_cwd, &PathEdit::pathChanged, this, &CommandForm::changed);
    for (QLineEdit* e : {m_args, m_name, m_lossRegex})
        connect(e, &QLineEdit::textChanged, this, &CommandForm::changed);
    connect(m_nproc, &QSpinBox::valueChanged, this, &CommandForm::changed);
    connect(m_ranks, &QComboBox::currentIndexChanged, this, &CommandForm::changed);
    return box;
}

QWidget* CommandForm::environmentBox() {
    auto* box = group(tr("Environment and watched folders"), this);
    auto* l = new QVBoxLayout(box);
    m_env = new QTableWidget(0, 2, box);
    m_env->setHorizontalHeaderLabels({tr("Variable"), tr("Value")});
    m_env->verticalHeader()->hide();
    m_env->verticalHeader()->setDefaultSectionSize(22);
    m_env->horizontalHeader()->setStretchLastSection(true);
    m_env->setMinimumHeight(90);
    m_env->setToolTip(tr("Variables of your own; they win over the studio's"));
    auto* buttons = new QHBoxLayout;
    auto* add = new QPushButton(tr("Add variable"), box);
    auto* remove = new QPushButton(tr("Remove"), box);
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addStretch(1);
    m_watch = new QPlainTextEdit(box);
    m_watch->setPlaceholderText(
        tr("More folders to watch, one per line: traces, dumps, TensorBoard files and "
           "crash records that appear there become the run's. The working folder and its "
           "log, logs, runs, traces, profiler, tb_logs folders are watched already"));
    m_watch->setMaximumHeight(60);
    l->addWidget(m_env);
    l->addLayout(buttons);
    l->addWidget(new QLabel(tr("Watched folders"), box));
    l->addWidget(m_watch);
    connect(add, &QPushButton::clicked, this, [this] {
        addEnvRow(QString(), QString());
        m_env->editItem(m_env->item(m_env->rowCount() - 1, 0));
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (m_env->currentRow() >= 0) m_env->removeRow(m_env->currentRow());
        emit changed();
    });
    connect(m_env, &QTableWidget::itemChanged, this, &CommandForm::changed);
    connect(m_watch, &QPlainTextEdit::textChanged, this, &CommandForm::changed);
    return box;
}

QWidget* CommandForm::hooksBox() {
    auto* box = group(tr("PyTorch, without editing the script"), this);
    auto* f = new QFormLayout(box);
    m_hooks = new QCheckBox(tr("TrainScope's Python package on PYTHONPATH"), box);
    m_hooks->setToolTip(
        tr("sitecustomize: silent unless asked; where torch is missing it does nothing"));
    m_loss = new QCheckBox(tr("Loss from backward() (train/loss)"), box);
    m_profile = new QCheckBox(tr("Profile with torch.profiler"), box);
    m_profile->setToolTip(
        tr("Stepped by the optimizer's steps; traces are imported as they are written"));
    m_wait = spin(box, 0, 1'000'000);
    m_warmup = spin(box, 0, 1'000'000);
    m_active = spin(box, 1, 1'000'000);
    m_repeat = spin(box, 0, 1'000'000);
    m_repeat->setSpecialValueText(tr("until the end"));
    for (QSpinBox* b : {m_wait, m_warmup, m_active, m_repeat}) b->setMaximumWidth(110);
    auto* sched = new QGridLayout;
    int cell = 0;
    for (auto [label, s] : {std::pair{tr("wait"), m_wait},
                            {tr("warm-up"), m_warmup},
                            {tr("active"), m_active},
                            {tr("repeat"), m_repeat}}) {
        sched->addWidget(new QLabel(label, box), cell / 2, (cell % 2) * 2);
        sched->addWidget(s, cell / 2, (cell % 2) * 2 + 1);
        ++cell;
        connect(m_profile, &QCheckBox::toggled, s, &QWidget::setEnabled);
        connect(s, &QSpinBox::valueChanged, this, &CommandForm::changed);
    }
    m_wait->setToolTip(
        tr("torch.profiler.schedule(wait, warmup, active, repeat), in optimizer steps"));
    m_dump = new PathEdit(PathEdit::OpenFile, box, tr("dump.json (*.json);;All files (*)"));
    m_dump->setPlaceholderText(tr("dump.json (HDF5 dumps of module I/O)"));
    m_overflow = new QCheckBox(tr("NaN/Inf check of module outputs"), box);
    m_stopOnOverflow = new QCheckBox(tr("Stop at the first NaN/Inf"), box);
    f->addRow(QString(), m_hooks);
    f->addRow(QString(), m_loss);
    f->addRow(QString(), m_profile);
    f->addRow(tr("Schedule"), sched);
    f->addRow(tr("Dumps"), m_dump);
    f->addRow(QString(), m_overflow);
    f->addRow(QString(), m_stopOnOverflow);
    for (QCheckBox* c : {m_loss, m_profile, m_overflow, m_stopOnOverflow})
        connect(m_hooks, &QCheckBox::toggled, c, &QWidget::setEnabled);
    connect(m_hooks, &QCheckBox::toggled, m_dump, &QWidget::setEnabled);
    connect(m_stopOnOverflow, &QCheckBox::toggled, this, [this](bool on) {
        if (on) m_overflow->setChecked(true);
    });
    for (QCheckBox* c : {m_hooks, m_loss, m_profile, m_overflow, m_stopOnOverflow})
        connect(c, &QCheckBox::toggled, this, &CommandForm::changed);
    connect(m_dump, &PathEdit::pathChanged, this, &CommandForm::changed);
    return box;
}

QWidget* CommandForm::crashBox() {
    auto* box = group(tr("Crash records (Running Data Recorder)"), this);
    auto* f = new QFormLayout(box);
    m_rdr = new QCheckBox(tr("Record crash records (MS_RDR_*)"), box);
    m_rdr->setToolTip(tr("MS_RDR_ENABLE=1, MS_RDR_PATH: the run's folder (watched)"));
    m_rdrMode = new QComboBox(box);
    m_rdrMode->addItem(tr("1: abnormal end"), 1);
    m_rdrMode->addItem(tr("2: any end"), 2);
    f->addRow(QString(), m_rdr);
    f->addRow(tr("Mode"), m_rdrMode);
    m_rdrMode->setToolTip(tr("MS_RDR_MODE"));
    connect(m_rdr, &QCheckBox::toggled, m_rdrMode, &QWidget::setEnabled);
    connect(m_rdr, &QCheckBox::toggled, this, &CommandForm::changed);
    connect(m_rdrMode, &QComboBox::currentIndexChanged, this, &CommandForm::changed);
    return box;
}

QWidget* CommandForm::cudaBox() {
    auto* box = group(tr("GPU"), this);
    auto* f = new QFormLayout(box);
    m_recordCuda = new QCheckBox(tr("Record CUDA activity"), box);
    m_recordCuda->setToolTip(
        tr("TrainScope's CUPTI collector in every CUDA process (CUDA_INJECTION64_PATH): "
           "kernels, copies, CUDA API calls and NVTX ranges become the run's traces, one "
           "track per device stream (docs/GPU.md)"));
    // Disabled, saying why, where nothing could be recorded (as `trainscope-cli record`).
    if (auto lib = ts::cuptiForRecording(); !lib) {
        m_recordCuda->setEnabled(false);
        m_recordCuda->setToolTip(QString::fromStdString(lib.error()));
    }
    f->addRow(QString(), m_recordCuda);
    connect(m_recordCuda, &QCheckBox::toggled, this, &CommandForm::changed);
    return box;
}

QStringList CommandForm::splitArguments(const QString& text, QString* error) {
    QStringList out;
    QString cur;
    bool inArg = false;
    enum { None, Single, Double } quote = None;
    for (int i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quote == Single) {
            if (c == QLatin1Char('\''))
                quote = None;
            else
                cur += c;
        } else if (quote == Double) {
            if (c == QLatin1Char('"')) {
                quote = None;
            } else if (c == QLatin1Char('\\') && i + 1 < text.size() &&
                       QStringLiteral("\"\\$`").contains(text[i + 1])) {
                cur += text[++i];
            } else {
                cur += c;
            }
        } else if (c.isSpace()) {
            if (inArg) out << cur;
            cur.clear();
            inArg = false;
        } else {
            inArg = true;
            if (c == QLatin1Char('\''))
                quote = Single;
            else if (c == QLatin1Char('"'))
                quote = Double;
            else if (c == QLatin1Char('\\') && i + 1 < text.size())
                cur += text[++i];
            else
                cur += c;
        }
    }
    if (quote != None) {
        if (error) *error = quote == Single ? tr("a ' is not closed") : tr("a \" is not closed");
        return {};
    }
    if (inArg) out << cur;
    return out;
}

QString CommandForm::joinArguments(const QStringList& args) {
    QStringList q;
    for (const QString& a : args) q << quoteArg(a);
    return q.join(QLatin1Char(' '));
}

void CommandForm::addEnvRow(const QString& name, const QString& value) {
    const int row = m_env->rowCount();
    m_env->insertRow(row);
    m_env->setItem(row, 0, new QTableWidgetItem(name));
    m_env->setItem(row, 1, new QTableWidgetItem(value));
}

bool CommandForm::spec(ts::run::LaunchSpec* out, QString* error) const {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    ts::run::LaunchSpec s;
    s.program = m_program->path().toStdString();
    if (s.program.empty()) return fail(tr("Program: which program to run (python3, a script, …)"));
    QString argError;
    const QStringList args = splitArguments(m_args->text(), &argError);
    if (!argError.isEmpty()) return fail(tr("Arguments: %1").arg(argError));
    for (const QString& a : args) s.args.push_back(a.toStdString());
    s.cwd = m_cwd->path().toStdString();
    s.name = m_name->text().trimmed().toStdString();
    s.nproc = m_nproc->value();
    s.ranks = *ts::run::parseRankScheme(m_ranks->currentData().toString().toStdString());
    for (int r = 0; r < m_env->rowCount(); ++r) {
        const QString name = m_env->item(r, 0) ? m_env->item(r, 0)->text().trimmed() : QString();
        const QString value = m_env->item(r, 1) ? m_env->item(r, 1)->text() : QString();
        if (name.isEmpty() && value.isEmpty()) continue;
        if (name.isEmpty() || name.contains(QLatin1Char('=')))
            return fail(
                tr("Environment, row %1: '%2' is not a variable name").arg(r + 1).arg(name));
        s.env.emplace_back(name.toStdString(), value.toStdString());
    }
    for (const QString& line : m_watch->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        if (!line.trimmed().isEmpty()) s.watchDirs.push_back(line.trimmed().toStdString());
    s.lossRegex = m_lossRegex->text().trimmed().toStdString();
    s.pythonHooks = m_hooks->isChecked();
    s.recordLoss = m_loss->isChecked();
    s.profile = m_profile->isChecked();
    s.profileSchedule = {0, m_wait->value(), m_warmup->value(), m_active->value(),
                         m_repeat->value()};
    s.dumpConfig = m_dump->path().toStdString();
    s.overflowCheck = m_overflow->isChecked() || m_stopOnOverflow->isChecked();
    s.stopOnOverflow = m_stopOnOverflow->isChecked();
    if (m_rdr->isChecked()) {
        QJsonObject rdr{{QStringLiteral("enable"), true},
                        {QStringLiteral("mode"), m_rdrMode->currentData().toInt()}};
        s.rdrConfigJson = QJsonDocument(QJsonObject{{QStringLiteral("rdr"), rdr}})
                              .toJson(QJsonDocument::Compact)
                              .toStdString();
    }
    s.logLevels = m_levels->settings();
    s.recordCuda = m_recordCuda->isChecked();
    if (s.recordCuda) {  // as `trainscope-cli record`: nothing could be recorded without these
        if (auto lib = ts::cuptiForRecording(); !lib)
            return fail(tr("Record CUDA activity: %1").arg(QString::fromStdString(lib.error())));
    }
    if (auto v = ts::run::validateLaunchSpec(s); !v) {
        const QString why = QString::fromStdString(v.error());
        return fail(why.startsWith(QLatin1String("--loss-regex"))
                        ? tr("Loss from output") + why.mid(12)
                        : why);
    }
    *out = std::move(s);
    return true;
}

void CommandForm::setSpec(const ts::run::LaunchSpec& s) {
    m_loading = true;
    m_program->setPath(QString::fromStdString(s.program));
    QStringList args;
    for (const auto& a : s.args) args << QString::fromStdString(a);
    m_args->setText(joinArguments(args));
    m_cwd->setPath(QString::fromStdString(s.cwd));
    m_name->setText(QString::fromStdString(s.name));
    m_nproc->setValue(s.nproc);
    setCurrentData(m_ranks, QString::fromLatin1(ts::run::rankSchemeName(s.ranks).data()));
    m_env->setRowCount(0);
    for (const auto& [k, v] : s.env)
        addEnvRow(QString::fromStdString(k), QString::fromStdString(v));
    QStringList watch;
    for (const auto& d : s.watchDirs) watch << QString::fromStdString(d);
    m_watch->setPlainText(watch.join(QLatin1Char('\n')));
    m_lossRegex->setText(QString::fromStdString(s.lossRegex));
    m_hooks->setChecked(s.pythonHooks);
    m_loss->setChecked(s.recordLoss);
    m_profile->setChecked(s.profile);
    m_wait->setValue(static_cast<int>(s.profileSchedule.wait));
    m_warmup->setValue(static_cast<int>(s.profileSchedule.warmup));
    m_active->setValue(
        static_cast<int>(std::min<int64_t>(s.profileSchedule.active, m_active->maximum())));
    m_repeat->setValue(static_cast<int>(s.profileSchedule.repeat));
    for (QSpinBox* b : {m_wait, m_warmup, m_active, m_repeat}) b->setEnabled(s.profile);
    m_dump->setPath(QString::fromStdString(s.dumpConfig));
    m_overflow->setChecked(s.overflowCheck);
    m_stopOnOverflow->setChecked(s.stopOnOverflow);
    const QJsonObject rdr = QJsonDocument::fromJson(QByteArray::fromStdString(s.rdrConfigJson))
                                .object()
                                .value(QStringLiteral("rdr"))
                                .toObject();
    m_rdr->setChecked(rdr.value(QStringLiteral("enable")).toBool() || !s.rdrConfig.empty());
    m_rdrMode->setCurrentIndex(rdr.value(QStringLiteral("mode")).toInt(1) == 2 ? 1 : 0);
    m_rdrMode->setEnabled(m_rdr->isChecked());
    m_levels->setSettings(s.logLevels);
    m_recordCuda->setChecked(s.recordCuda && m_recordCuda->isEnabled());
    m_loading = false;
    emit changed();
}

void CommandForm::applyPreset(Preset p) {
    ts::run::LaunchSpec s;
    QString why;
    if (!spec(&s, &why)) {  // keep what the user typed where the form can read it
        s = ts::run::LaunchSpec();
        s.program = m_program->path().toStdString();
        for (const QString& a : splitArguments(m_args->text(), nullptr))
            s.args.push_back(a.toStdString());
        s.cwd = m_cwd->path().toStdString();
    }
    if (s.program.empty() && p != AnyProgram) s.program = "python3";
    if (s.args.empty() && p != AnyProgram) s.args = {"train.py"};
    s.nproc = p == PyTorchDistributed ? std::max(2, s.nproc) : 1;
    s.ranks = p == PyTorchDistributed ? ts::run::RankScheme::Torch
              : p == MindSporeScript  ? ts::run::RankScheme::MindSpore
                                      : ts::run::RankScheme::None;
    s.pythonHooks = p != MindSporeScript || s.pythonHooks;
    s.rdrConfigJson.clear();
    s.logLevels.clear();
    if (p == MindSporeScript) {
        // MindSpore's own switches: its log levels (GLOG_v), crash records (MS_RDR_*).
        s.logLevels.push_back({"", ts::log::Level::Warning, false});
        s.rdrConfigJson = R"({"rdr":{"enable":true,"mode":1}})";
    }
    setSpec(s);
    m_preset->setCurrentIndex(p);
}

void CommandForm::setSessionPath(const QString& path) {
    m_session = path;
    updatePreview();
}

QString CommandForm::environmentText(const QString& sessionPath) const {
    ts::run::LaunchSpec s;
    QString why;
    if (!spec(&s, &why)) return tr("(%1)").arg(why);
    const std::string session =
        sessionPath.isEmpty() ? std::string("new-session.tscope") : sessionPath.toStdString();
    ts::run::RunPaths paths = ts::run::runPathsFor(session, 0, ts::pythonHooksDir());
    if (auto lib = ts::cuptiForRecording(); lib) paths.cuptiLibrary = lib.value();
    auto env = ts::run::buildProcessEnvironment(s, ts::run::currentEnvironment(), paths, 0,
                                                s.masterPort > 0 ? s.masterPort : 29500);
    if (!env) return tr("(%1)").arg(QString::fromStdString(env.error()));
    QStringList lines;
    int width = 0;
    for (const auto& c : env->changes)
        width = std::max(width, static_cast<int>(c.name.size() + c.value.size() + 1));
    width = std::min(width, 90);
    for (const auto& c : env->changes) {
        QString v = QString::fromStdString(c.value).replace(QStringLiteral("/run-0"),
                                                            QStringLiteral("/run-<id>"));
        if (c.name == "MASTER_PORT" && s.masterPort == 0) v = tr("<a free port>");
        const QString kv = QString::fromStdString(c.name) + QLatin1Char('=') + v;
        lines << kv.leftJustified(width, QLatin1Char(' ')) + QStringLiteral("  # ") +
                     QString::fromStdString(c.origin);
    }
    if (s.nproc > 1)
        lines << tr("# ranks 1..%1 get their own RANK / RANK_ID values").arg(s.nproc - 1);
    return lines.join(QLatin1Char('\n'));
}

void CommandForm::updatePreview() {
    if (m_loading) return;
    m_preview->setPlainText(environmentText(m_session));
}
