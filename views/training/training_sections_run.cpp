// The "Precision and memory" and "Callbacks" sections of the Training panel, and the section
// lists.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>

#include "views/training/training_sections.h"
#include "views/training/training_widgets.h"

namespace {

class PrecisionSection : public TrainingOptionsSection {
public:
    PrecisionSection() : m_w(new QWidget) {
        auto* f = new QFormLayout(m_w);
        m_amp = new QComboBox(m_w);
        m_amp->addItem(QObject::tr("O0 (float32)"), QStringLiteral("O0"));
        m_amp->addItem(QObject::tr("O1 (fp16 matmul/conv)"), QStringLiteral("O1"));
        m_amp->addItem(QObject::tr("O2 (fp16, BN fp32)"), QStringLiteral("O2"));
        m_amp->setToolTip(
            QObject::tr("O1: MatMul and Conv2D inputs rounded to float16. O2: their "
                        "outputs too; batch norm stays float32. Weights are kept "
                        "in float32 (master copies)."));
        f->addRow(QObject::tr("Mixed precision"), m_amp);
        m_scale = new QComboBox(m_w);
        m_scale->addItem(QObject::tr("Auto (dynamic at O1/O2)"), QStringLiteral("auto"));
        m_scale->addItem(QObject::tr("None"), QStringLiteral("none"));
        m_scale->addItem(QObject::tr("Static"), QStringLiteral("static"));
        m_scale->addItem(QObject::tr("Dynamic"), QStringLiteral("dynamic"));
        m_scale->setToolTip(
            QObject::tr("A step whose gradients overflow is skipped; a dynamic "
                        "scale is then halved, and doubled after 2000 good steps"));
        f->addRow(QObject::tr("Loss scale"), m_scale);
        m_value = real(m_w, 1.0, 1e30, 0);
        m_value->setToolTip(QObject::tr("Static scale, or the dynamic scale to start from"));
        f->addRow(QObject::tr("Scale value"), m_value);
        m_reuse = new QCheckBox(QObject::tr("Reuse freed blocks"), m_w);
        m_reuse->setToolTip(
            QObject::tr("mem_reuse: freed tensor memory is kept and handed out "
                        "again; off, every block goes back to the system"));
        f->addRow(QObject::tr("Memory pool"), m_reuse);
        m_threads = spin(m_w, 0, 64);
        m_threads->setSpecialValueText(QObject::tr("automatic"));
        m_threads->setToolTip(QObject::tr("Threads the CPU kernels split their work over"));
        f->addRow(QObject::tr("Threads"), m_threads);
        m_form = f;
        QObject::connect(m_scale, &QComboBox::currentIndexChanged, m_w, [this] { update(); });
        load({});
    }

    QString title() const override { return QObject::tr("Precision and memory"); }
    QWidget* widget() override { return m_w; }

    QString apply(ts::run::JobOptions& o) const override {
        auto& c = o.train;
        c.amp = m_amp->currentData().toString().toStdString();
        const QString kind = m_scale->currentData().toString();
        c.lossScale = kind.toStdString();
        if (kind == QLatin1String("static") || kind == QLatin1String("dynamic"))
            c.lossScale += ":" + QString::number(m_value->value(), 'g', 10).toStdString();
        c.memReuse = m_reuse->isChecked();
        c.threads = m_threads->value();
        return {};
    }

    void load(const ts::run::JobOptions& o) override {
        const auto& c = o.train;
        setCurrentData(m_amp, QString::fromStdString(c.amp));
        const QString scale = QString::fromStdString(c.lossScale);
        const QString kind = scale.section(':', 0, 0);
        setCurrentData(m_scale, kind.isEmpty() ? QStringLiteral("auto") : kind);
        bool ok = false;
        const double v = scale.section(':', 1, 1).toDouble(&ok);
        m_value->setValue(ok ? v : 65536.0);
        m_reuse->setChecked(c.memReuse);
        m_threads->setValue(c.threads);
        update();
    }

private:
    void update() {
        const QString kind = m_scale->currentData().toString();
        m_form->setRowVisible(m_value,
                              kind == QLatin1String("static") || kind == QLatin1String("dynamic"));
    }

    QWidget* m_w;
    QFormLayout* m_form;
    QComboBox *m_amp, *m_scale;
    QDoubleSpinBox* m_value;
    QCheckBox* m_reuse;
    QSpinBox* m_threads;
};

class CallbacksSection : public TrainingOptionsSection {
public:
    CallbacksSection() : m_w(new QWidget) {
        auto* f = new QFormLayout(m_w);
        m_ckptDir = new PathEdit(PathEdit::Folder, m_w);
        m_ckptDir->setPlaceholderText(QObject::tr("off (see below for the end state)"));
        f->addRow(QObject::tr("Checkpoint folder"), m_ckptDir);
        m_saveSteps = spin(m_w, 0, 100'000'000);
        m_saveSteps->setSpecialValueText(QObject::tr("off"));
        f->addRow(QObject::tr("Save every (steps)"), m_saveSteps);
        m_saveEpochs = spin(m_w, 0, 100'000);
        m_saveEpochs->setSpecialValueText(QObject::tr("off"));
        f->addRow(QObject::tr("Save every (epochs)"), m_saveEpochs);
        m_keep = spin(m_w, 1, 10'000);
        f->addRow(QObject::tr("Keep the last"), m_keep);
        m_saveOnStop = new QCheckBox(QObject::tr("Save the end state (also on Stop)"), m_w);
        m_saveOnStop->setToolTip(
            QObject::tr("Without a checkpoint folder it goes to "
                        "<session>-checkpoints/run-<id>/ beside the session"));
        f->addRow(QString(), m_saveOnStop);
        m_best = new QComboBox(m_w);
        m_best->addItem(QObject::tr("off"), QString());
        for (const char* m : {"accuracy", "loss", "f1", "precision", "recall"})
            m_best->addItem(QString::fromLatin1(m), QString::fromLatin1(m));
        m_best->setToolTip(
            QObject::tr("Keeps <checkpoint folder>/best.ckpt by this evaluation "
                        "metric; needs evaluation after every epoch"));
        f->addRow(QObject::tr("Save best by"), m_best);
        m_early = new QComboBox(m_w);
        m_early->addItem(QObject::tr("off"), QString());
        m_early->addItem(QObject::tr("epoch-mean training loss"), QStringLiteral("loss"));
        m_early->addItem(QObject::tr("evaluation accuracy"), QStringLiteral("accuracy"));
        m_early->addItem(QObject::tr("evaluation loss"), QStringLiteral("eval_loss"));
        f->addRow(QObject::tr("Early stop on"), m_early);
        m_patience = spin(m_w, 1, 10'000);
        f->addRow(QObject::tr("Patience (epochs)"), m_patience);
        m_minDelta = real(m_w, 0.0, 1e6, 5);
        f->addRow(QObject::tr("Minimum improvement"), m_minDelta);
        m_lossBelow = real(m_w, 0.0, 1e6, 5);
        m_lossBelow->setSpecialValueText(QObject::tr("off"));
        m_lossBelow->setToolTip(QObject::tr("Stop as soon as a step's loss falls below this"));
        f->addRow(QObject::tr("Stop when loss below"), m_lossBelow);
        m_minutes = real(m_w, 0.0, 1e6, 1);
        m_minutes->setSpecialValueText(QObject::tr("off"));
        f->addRow(QObject::tr("Stop after (minutes)"), m_minutes);
        m_tb = new PathEdit(PathEdit::Folder, m_w);
        m_tb->setPlaceholderText(QObject::tr("off: scalars go to the session only"));
        f->addRow(QObject::tr("TensorBoard folder"), m_tb);
        m_form = f;
        QObject::connect(m_early, &QComboBox::currentIndexChanged, m_w, [this] { update(); });
        load({});
    }

    QString title() const override { return QObject::tr("Callbacks"); }
    QWidget* widget() override { return m_w; }

    QString apply(ts::run::JobOptions& o) const override {
        o.checkpointDir = m_ckptDir->path().toStdString();
        o.saveSteps = m_saveSteps->value();
        o.saveEpochs = m_saveEpochs->value();
        o.keepCheckpoints = m_keep->value();
        o.saveOnStop = m_saveOnStop->isChecked();
        o.saveBestMetric = m_best->currentData().toString().toStdString();
        const QString early = m_early->currentData().toString();
        o.earlyStop = !early.isEmpty() || m_lossBelow->value() > 0;
        o.earlyStopMonitor = early.isEmpty() ? "loss" : early.toStdString();
        o.earlyStopPatience = early.isEmpty() ? 1'000'000'000 : m_patience->value();
        o.earlyStopMinDelta = m_minDelta->value();
        o.earlyStopLossThreshold = m_lossBelow->value();
        o.stopAfterSeconds = m_minutes->value() * 60.0;
        o.tensorboardDir = m_tb->path().toStdString();
        if (!o.saveBestMetric.empty() && (o.checkpointDir.empty() || !o.train.evalEachEpoch))
            return QObject::tr(
                "Save best by: needs a checkpoint folder and “Evaluate after every "
                "epoch”");
        if ((early == QLatin1String("accuracy") || early == QLatin1String("eval_loss")) &&
            !o.train.evalEachEpoch)
            return QObject::tr(
                "Early stop on an evaluation metric needs “Evaluate after every "
                "epoch”");
        return {};
    }

    void load(const ts::run::JobOptions& o) override {
        m_ckptDir->setPath(QString::fromStdString(o.checkpointDir));
        m_saveSteps->setValue(static_cast<int>(o.saveSteps));
        m_saveEpochs->setValue(o.saveEpochs);
        m_keep->setValue(o.keepCheckpoints);
        m_saveOnStop->setChecked(o.saveOnStop);
        setCurrentData(m_best, QString::fromStdString(o.saveBestMetric));
        QString early;
        if (o.earlyStop && o.earlyStopPatience < 1'000'000'000)
            early = QString::fromStdString(o.earlyStopMonitor);
        setCurrentData(m_early, early);
        m_patience->setValue(std::min(o.earlyStopPatience, 10'000));
        m_minDelta->setValue(o.earlyStopMinDelta);
        m_lossBelow->setValue(o.earlyStopLossThreshold);
        m_minutes->setValue(o.stopAfterSeconds / 60.0);
        m_tb->setPath(QString::fromStdString(o.tensorboardDir));
        update();
    }

private:
    void update() {
        const bool on = !m_early->currentData().toString().isEmpty();
        m_form->setRowVisible(m_patience, on);
        m_form->setRowVisible(m_minDelta, on);
    }

    QWidget* m_w;
    QFormLayout* m_form;
    PathEdit *m_ckptDir, *m_tb;
    QSpinBox *m_saveSteps, *m_saveEpochs, *m_keep, *m_patience;
    QCheckBox* m_saveOnStop;
    QComboBox *m_best, *m_early;
    QDoubleSpinBox *m_minDelta, *m_lossBelow, *m_minutes;
};

}  // namespace

std::unique_ptr<TrainingOptionsSection> makePrecisionSection() {
    return std::make_unique<PrecisionSection>();
}

std::unique_ptr<TrainingOptionsSection> makeCallbacksSection() {
    return std::make_unique<CallbacksSection>();
}

std::vector<std::unique_ptr<TrainingOptionsSection>> builtinTrainingSections() {
    std::vector<std::unique_ptr<TrainingOptionsSection>> s;
    s.push_back(makeModelDataSection());
    s.push_back(makeOptimizerSection());
    s.push_back(makePrecisionSection());
    s.push_back(makeCallbacksSection());
    return s;
}

const std::vector<TrainingSectionFactory>& instrumentationSections() {
    // Features that add fields to ts::run::JobOptions add a factory for their section here.
    static const std::vector<TrainingSectionFactory> sections = [] {
        std::vector<TrainingSectionFactory> v;
        v.push_back([] { return makeProfilerSection(); });
        v.push_back([] { return makeDumpSection(); });
        v.push_back([] { return makeCrashRecorderSection(); });
        return v;
    }();
    return sections;
}
