// The "Instrumentation" sections of the Training panel: the profiler (issue 7), tensor dumps
// and the overflow check (issue 5) and the Running Data Recorder (issue 6). Each writes its
// block of ts::run::JobOptions; the CLI's --profile, --dump, --overflow-check and --rdr set
// the same fields.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFormLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include "views/training/dump_settings_widget.h"
#include "views/training/training_sections.h"
#include "views/training/training_widgets.h"

namespace {

class ProfilerSection : public TrainingOptionsSection {
public:
    ProfilerSection() : m_w(new QWidget) {
        auto* f = new QFormLayout(m_w);
        m_on = new QCheckBox(QObject::tr("Profile this run"), m_w);
        m_on->setToolTip(
            QObject::tr("Every op (scope, input shapes, bytes), ProfilerStep#N and phase "
                        "slices, memory and throughput counters, written to the session as "
                        "the run's profile: Timeline, Op statistics, Steps, Memory, Advice"));
        f->addRow(QString(), m_on);
        m_skip = spin(m_w, 0, 1'000'000);
        m_wait = spin(m_w, 0, 1'000'000);
        m_warmup = spin(m_w, 0, 1'000'000);
        m_active = spin(m_w, 1, 1'000'000);
        m_repeat = spin(m_w, 0, 1'000'000);
        m_repeat->setSpecialValueText(QObject::tr("until the end"));
        f->addRow(QObject::tr("Skip first (steps)"), m_skip);
        f->addRow(QObject::tr("Wait"), m_wait);
        f->addRow(QObject::tr("Warm-up"), m_warmup);
        f->addRow(QObject::tr("Active"), m_active);
        f->addRow(QObject::tr("Repeat"), m_repeat);
        m_shapes = new QCheckBox(QObject::tr("Record input shapes (record_shapes)"), m_w);
        m_memory = new QCheckBox(QObject::tr("Profile memory (profile_memory)"), m_w);
        f->addRow(QString(), m_shapes);
        f->addRow(QString(), m_memory);
        for (QWidget* w : {static_cast<QWidget*>(m_skip), static_cast<QWidget*>(m_wait),
                           static_cast<QWidget*>(m_warmup), static_cast<QWidget*>(m_active),
                           static_cast<QWidget*>(m_repeat), static_cast<QWidget*>(m_shapes),
                           static_cast<QWidget*>(m_memory)})
            QObject::connect(m_on, &QCheckBox::toggled, w, &QWidget::setEnabled);
        m_wait->setToolTip(QObject::tr("torch.profiler.schedule(wait, warmup, active, repeat)"));
        load({});
    }

    QString title() const override { return QObject::tr("Profiler"); }
    QWidget* widget() override { return m_w; }

    QString apply(ts::run::JobOptions& o) const override {
        o.profile = m_on->isChecked();
        auto& s = o.profiler.schedule;
        s.skipFirst = m_skip->value();
        s.wait = m_wait->value();
        s.warmup = m_warmup->value();
        s.active = m_active->value();
        s.repeat = m_repeat->value();
        o.profiler.recordShapes = m_shapes->isChecked();
        o.profiler.profileMemory = m_memory->isChecked();
        return {};
    }

    void load(const ts::run::JobOptions& o) override {
        m_on->setChecked(o.profile);
        const auto& s = o.profiler.schedule;
        m_skip->setValue(static_cast<int>(s.skipFirst));
        m_wait->setValue(static_cast<int>(s.wait));
        m_warmup->setValue(static_cast<int>(s.warmup));
        m_active->setValue(static_cast<int>(std::min<int64_t>(s.active, m_active->maximum())));
        m_repeat->setValue(static_cast<int>(s.repeat));
        m_shapes->setChecked(o.profiler.recordShapes);
        m_memory->setChecked(o.profiler.profileMemory);
        for (QWidget* w : {static_cast<QWidget*>(m_skip), static_cast<QWidget*>(m_wait),
                           static_cast<QWidget*>(m_warmup), static_cast<QWidget*>(m_active),
                           static_cast<QWidget*>(m_repeat), static_cast<QWidget*>(m_shapes),
                           static_cast<QWidget*>(m_memory)})
            w->setEnabled(o.profile);
    }

private:
    QWidget* m_w;
    QCheckBox *m_on, *m_shapes, *m_memory;
    QSpinBox *m_skip, *m_wait, *m_warmup, *m_active, *m_repeat;
};

class DumpSection : public TrainingOptionsSection {
public:
    DumpSection() : m_w(new DumpSettingsWidget) {}
    QString title() const override { return QObject::tr("Tensor dumps and overflow check"); }
    QWidget* widget() override { return m_w; }
    QString apply(ts::run::JobOptions& o) const override {
        if (const QString why = m_w->validate(); !why.isEmpty())
            return QObject::tr("Tensor dumps: %1").arg(why);
        m_w->applyTo(o);
        return {};
    }
    void load(const ts::run::JobOptions& o) override { m_w->setFrom(o); }

private:
    DumpSettingsWidget* m_w;
};

class CrashRecorderSection : public TrainingOptionsSection {
public:
    CrashRecorderSection() : m_w(new QWidget) {
        auto* f = new QFormLayout(m_w);
        m_on = new QCheckBox(QObject::tr("Record for crash analysis (RDR)"), m_w);
        m_on->setToolTip(
            QObject::tr("Keeps the graph IR, the op execution order, memory allocations and "
                        "the last log lines, and exports them to <folder>/rank_<RANK_ID>/rdr "
                        "when the run ends abnormally; the studio then opens the record"));
        f->addRow(QString(), m_on);
        m_mode = new QComboBox(m_w);
        m_mode->addItem(QObject::tr("1: export on abnormal end"), QStringLiteral("1"));
        m_mode->addItem(QObject::tr("2: export on every end"), QStringLiteral("2"));
        f->addRow(QObject::tr("Mode"), m_mode);
        m_path = new PathEdit(PathEdit::Folder, m_w);
        m_path->setPlaceholderText(QObject::tr("absolute folder"));
        f->addRow(QObject::tr("Folder"), m_path);
        m_env = new QCheckBox(QObject::tr("Also honour MS_RDR_* variables"), m_w);
        f->addRow(QString(), m_env);
        QObject::connect(m_on, &QCheckBox::toggled, m_mode, &QWidget::setEnabled);
        QObject::connect(m_on, &QCheckBox::toggled, m_path, &QWidget::setEnabled);
        load({});
    }

    QString title() const override { return QObject::tr("Crash recorder"); }
    QWidget* widget() override { return m_w; }

    QString apply(ts::run::JobOptions& o) const override {
        o.rdrUseEnvironment = m_env->isChecked();
        o.rdrConfigJson.clear();
        if (!m_on->isChecked()) return {};
        const QString path = m_path->path();
        if (path.isEmpty() || !QDir::isAbsolutePath(path))
            return QObject::tr("Crash recorder: the folder must be an absolute path");
        QJsonObject rdr{{QStringLiteral("enable"), true},
                        {QStringLiteral("mode"), m_mode->currentData().toString().toInt()},
                        {QStringLiteral("path"), path}};
        o.rdrConfigJson = QJsonDocument(QJsonObject{{QStringLiteral("rdr"), rdr}})
                              .toJson(QJsonDocument::Compact)
                              .toStdString();
        return {};
    }

    void load(const ts::run::JobOptions& o) override {
        const QJsonObject rdr = QJsonDocument::fromJson(QByteArray::fromStdString(o.rdrConfigJson))
                                    .object()
                                    .value(QStringLiteral("rdr"))
                                    .toObject();
        const bool on = rdr.value(QStringLiteral("enable")).toBool();
        m_on->setChecked(on);
        setCurrentData(m_mode, QString::number(rdr.value(QStringLiteral("mode")).toInt(1)));
        m_path->setPath(rdr.value(QStringLiteral("path")).toString());
        m_env->setChecked(o.rdrUseEnvironment);
        m_mode->setEnabled(on);
        m_path->setEnabled(on);
    }

private:
    QWidget* m_w;
    QCheckBox *m_on, *m_env;
    QComboBox* m_mode;
    PathEdit* m_path;
};

}  // namespace

std::unique_ptr<TrainingOptionsSection> makeProfilerSection() {
    return std::make_unique<ProfilerSection>();
}
std::unique_ptr<TrainingOptionsSection> makeDumpSection() {
    return std::make_unique<DumpSection>();
}
std::unique_ptr<TrainingOptionsSection> makeCrashRecorderSection() {
    return std::make_unique<CrashRecorderSection>();
}
