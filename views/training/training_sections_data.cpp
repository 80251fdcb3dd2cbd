// The "Model and data" and "Optimizer" sections of the Training panel.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include "core/engine/data/dataset.h"
#include "core/engine/device/device.h"
#include "views/training/training_sections.h"
#include "views/training/training_widgets.h"

namespace {

class ModelDataSection : public TrainingOptionsSection {
public:
    ModelDataSection() : m_w(new QWidget) {
        auto* f = new QFormLayout(m_w);
        m_model = new QComboBox(m_w);
        m_model->addItem(QObject::tr("MLP 784-256-128-10"), QStringLiteral("mlp"));
        m_model->addItem(QObject::tr("LeNet-5"), QStringLiteral("lenet5"));
        m_model->addItem(QObject::tr("ResNet-8 (16/32/64 channels)"), QStringLiteral("resnet8"));
        m_model->addItem(QObject::tr("ShuffleNet V2 x0.5 (32x32 padded)"),
                         QStringLiteral("shufflenetv2"));
        m_model->setToolTip(
            QObject::tr("ResNet-8 and ShuffleNet V2 train on 28x28 images (Fashion-MNIST, or "
                        "CSV files of 784 features); ShuffleNet pads them to 32x32"));
        f->addRow(QObject::tr("Model"), m_model);
        m_device = new QComboBox(m_w);
        m_device->addItem(QObject::tr("CPU"), QStringLiteral("cpu"));
        m_device->addItem(QObject::tr("CUDA GPU"), QStringLiteral("cuda"));
        m_device->setToolTip(
            QObject::tr("Where tensors live and ops run (docs/GPU.md). CUDA needs the engine's "
                        "CUDA backend (a build with the CUDA toolkit) and an NVIDIA GPU"));
        f->addRow(QObject::tr("Device"), m_device);
        m_dataset = new QComboBox(m_w);
        m_dataset->addItem(QObject::tr("Fashion-MNIST"), QStringLiteral("fashion-mnist"));
        m_dataset->addItem(QObject::tr("Synthetic (learnable)"), QStringLiteral("synthetic"));
        m_dataset->addItem(QObject::tr("CSV file"), QStringLiteral("csv"));
        f->addRow(QObject::tr("Dataset"), m_dataset);
        m_dataDir = new PathEdit(PathEdit::Folder, m_w);
        const QString found = QString::fromStdString(ts::engine::fashionMnistDir());
        m_dataDir->setPlaceholderText(found.isEmpty() ? QObject::tr("not installed: apt install "
                                                                    "dataset-fashion-mnist")
                                                      : found);
        f->addRow(QObject::tr("Data folder"), m_dataDir);
        m_csv = new PathEdit(PathEdit::OpenFile, m_w, QObject::tr("CSV (*.csv);;All files (*)"));
        m_csv->setPlaceholderText(QObject::tr("header row, numeric columns"));
        f->addRow(QObject::tr("Training CSV"), m_csv);
        m_csvTest =
            new PathEdit(PathEdit::OpenFile, m_w, QObject::tr("CSV (*.csv);;All files (*)"));
        m_csvTest->setPlaceholderText(QObject::tr("optional: evaluate on the training file"));
        f->addRow(QObject::tr("Evaluation CSV"), m_csvTest);
        m_label = new QLineEdit(m_w);
        f->addRow(QObject::tr("Label column"), m_label);
        m_synthetic = spin(m_w, 64, 10'000'000);
        f->addRow(QObject::tr("Synthetic samples"), m_synthetic);
        m_epochs = spin(m_w, 1, 100'000);
        f->addRow(QObject::tr("Epochs"), m_epochs);
        m_batch = spin(m_w, 1, 65'536);
        f->addRow(QObject::tr("Batch size"), m_batch);
        m_drop = new QCheckBox(QObject::tr("Drop the last partial batch"), m_w);
        m_drop->setToolTip(QObject::tr("batch(drop_remainder=True)"));
        f->addRow(QString(), m_drop);
        m_seed = spin(m_w, 0, 2'000'000'000);
        m_seed->setToolTip(QObject::tr("Same seed, same loss curve, bit for bit"));
        f->addRow(QObject::tr("Seed"), m_seed);
        auto* shards = new QWidget(m_w);
        auto* sl = new QHBoxLayout(shards);
        sl->setContentsMargins(0, 0, 0, 0);
        m_shards = spin(shards, 1, 4096);
        m_shardId = spin(shards, 0, 4095);
        sl->addWidget(m_shards);
        sl->addWidget(new QLabel(QObject::tr("shard id"), shards));
        sl->addWidget(m_shardId);
        shards->setToolTip(
            QObject::tr("num_shards / shard_id: this run reads every num_shards-th "
                        "sample starting at shard_id"));
        f->addRow(QObject::tr("Shards"), shards);
        m_processes = spin(m_w, 1, 64);
        m_processes->setToolTip(
            QObject::tr("Data parallel: ranks on this machine, each training on its shard; "
                        "gradients averaged with Gloo's allreduce. Each rank records "
                        "<session>-ranks/<time>/rank_<r>.tscope"));
        f->addRow(QObject::tr("Processes"), m_processes);
        m_evalEach = new QCheckBox(QObject::tr("Evaluate after every epoch"), m_w);
        f->addRow(QString(), m_evalEach);
        m_evalLimit = spin(m_w, 0, 10'000'000);
        m_evalLimit->setSpecialValueText(QObject::tr("whole test split"));
        f->addRow(QObject::tr("Evaluation samples"), m_evalLimit);
        m_limit = spin(m_w, 0, 100'000'000);
        m_limit->setSpecialValueText(QObject::tr("no limit"));
        f->addRow(QObject::tr("Stop after steps"), m_limit);
        m_resume = new PathEdit(PathEdit::OpenFile, m_w,
                                QObject::tr("Checkpoints (*.ckpt);;All files (*)"));
        m_resume->setPlaceholderText(QObject::tr("optional: a checkpoint to continue from"));
        f->addRow(QObject::tr("Resume from"), m_resume);
        m_form = f;
        QObject::connect(m_dataset, &QComboBox::currentIndexChanged, m_w, [this] { update(); });
        load({});
    }

    QString title() const override { return QObject::tr("Model and data"); }
    QWidget* widget() override { return m_w; }

    QString apply(ts::run::JobOptions& o) const override {
        auto& c = o.train;
        c.model = m_model->currentData().toString().toStdString();
        c.device = m_device->currentData().toString().toStdString();
        c.dataset = m_dataset->currentData().toString().toStdString();
        c.datasetDir = m_dataDir->path().toStdString();
        c.csvPath = m_csv->path().toStdString();
        c.csvTestPath = m_csvTest->path().toStdString();
        c.csvLabel = m_label->text().trimmed().toStdString();
        c.syntheticSamples = m_synthetic->value();
        c.epochs = m_epochs->value();
        c.batchSize = m_batch->value();
        c.dropRemainder = m_drop->isChecked();
        c.seed = static_cast<uint64_t>(m_seed->value());
        c.numShards = m_shards->value();
        c.shardId = m_shardId->value();
        c.evalEachEpoch = m_evalEach->isChecked();
        c.evalLimit = m_evalLimit->value();
        c.limitSteps = m_limit->value();
        c.resumeFrom = m_resume->path().toStdString();
        o.processes = m_processes->value();
        if (c.device != "cpu") {  // asked here, not when the panel opens: it starts the driver
            if (o.processes > 1)
                return QObject::tr("Device: data-parallel processes train on the CPU only");
            if (auto b = ts::engine::cudaBackend(); !b)
                return QObject::tr("Device: %1").arg(QString::fromStdString(b.error()));
        }
        if (o.processes > 1 && c.numShards > 1)
            return QObject::tr("Processes: ranks shard the data themselves; set Shards to 1");
        if (c.dataset == "csv" && c.csvPath.empty())
            return QObject::tr("Training CSV: choose the file to train on");
        if (c.dataset == "csv" && c.csvLabel.empty())
            return QObject::tr("Label column: name the column that holds the classes");
        if (c.shardId >= c.numShards)
            return QObject::tr("Shards: shard id %1 is not below the %2 shards")
                .arg(c.shardId)
                .arg(c.numShards);
        return {};
    }

    void load(const ts::run::JobOptions& o) override {
        const auto& c = o.train;
        setCurrentData(m_model, QString::fromStdString(c.model));
        setCurrentData(m_device, QString::fromStdString(c.device));
        setCurrentData(m_dataset, QString::fromStdString(c.dataset));
        m_dataDir->setPath(QString::fromStdString(c.datasetDir));
        m_csv->setPath(QString::fromStdString(c.csvPath));
        m_csvTest->setPath(QString::fromStdString(c.csvTestPath));
        m_label->setText(QString::fromStdString(c.csvLabel));
        m_synthetic->setValue(static_cast<int>(c.syntheticSamples));
        m_epochs->setValue(c.epochs);
        m_batch->setValue(static_cast<int>(c.batchSize));
        m_drop->setChecked(c.dropRemainder);
        m_seed->setValue(static_cast<int>(c.seed));
        m_processes->setValue(std::max(1, o.processes));
        m_shards->setValue(static_cast<int>(c.numShards));
        m_shardId->setValue(static_cast<int>(c.shardId));
        m_evalEach->setChecked(c.evalEachEpoch);
        m_evalLimit->setValue(static_cast<int>(c.evalLimit));
        m_limit->setValue(static_cast<int>(c.limitSteps));
        m_resume->setPath(QString::fromStdString(c.resumeFrom));
        update();
    }

private:
    void update() {
        const QString ds = m_dataset->currentData().toString();
        m_form->setRowVisible(m_dataDir, ds == QLatin1String("fashion-mnist"));
        for (QWidget* w : {static_cast<QWidget*>(m_csv), static_cast<QWidget*>(m_csvTest),
                           static_cast<QWidget*>(m_label)})
            m_form->setRowVisible(w, ds == QLatin1String("csv"));
        m_form->setRowVisible(m_synthetic, ds == QLatin1String("synthetic"));
    }

    QWidget* m_w;
    QFormLayout* m_form;
    QComboBox *m_model, *m_device, *m_dataset;
    PathEdit *m_dataDir, *m_csv, *m_csvTest, *m_resume;
    QLineEdit* m_label;
    QSpinBox *m_synthetic, *m_epochs, *m_batch, *m_seed, *m_shards, *m_shardId, *m_processes,
        *m_evalLimit, *m_limit;
    QCheckBox *m_drop, *m_evalEach;
};

class OptimizerSection : public TrainingOptionsSection {
public:
    OptimizerSection() : m_w(new QWidget) {
        auto* f = new QFormLayout(m_w);
        m_opt = new QComboBox(m_w);
        m_opt->addItem(QObject::tr("SGD (momentum)"), QStringLiteral("sgd"));
        m_opt->addItem(QObject::tr("Adam"), QStringLiteral("adam"));
        f->addRow(QObject::tr("Optimizer"), m_opt);
        m_lr = real(m_w, 0.0, 100.0, 6);
        f->addRow(QObject::tr("Learning rate"), m_lr);
        m_momentum = real(m_w, 0.0, 0.9999, 4);
        f->addRow(QObject::tr("Momentum"), m_momentum);
        m_nesterov = new QCheckBox(QObject::tr("Nesterov"), m_w);
        f->addRow(QString(), m_nesterov);
        m_wd = real(m_w, 0.0, 1.0, 6);
        f->addRow(QObject::tr("Weight decay"), m_wd);
        m_schedule = new QComboBox(m_w);
        m_schedule->addItem(QObject::tr("Constant"), QStringLiteral("constant"));
        m_schedule->addItem(QObject::tr("Step decay"), QStringLiteral("step"));
        m_schedule->addItem(QObject::tr("Cosine annealing"), QStringLiteral("cosine"));
        f->addRow(QObject::tr("LR schedule"), m_schedule);
        m_stepEpochs = spin(m_w, 1, 10'000);
        f->addRow(QObject::tr("Decay every (epochs)"), m_stepEpochs);
        m_gamma = real(m_w, 0.0, 1.0, 4);
        f->addRow(QObject::tr("Decay factor"), m_gamma);
        m_clip = real(m_w, 0.0, 1e6, 3);
        m_clip->setSpecialValueText(QObject::tr("off"));
        m_clip->setToolTip(QObject::tr("Clip gradients to this global L2 norm"));
        f->addRow(QObject::tr("Gradient clipping"), m_clip);
        m_form = f;
        QObject::connect(m_opt, &QComboBox::currentIndexChanged, m_w, [this] { update(); });
        QObject::connect(m_schedule, &QComboBox::currentIndexChanged, m_w, [this] { update(); });
        load({});
    }

    QString title() const override { return QObject::tr("Optimizer"); }
    QWidget* widget() override { return m_w; }

    QString apply(ts::run::JobOptions& o) const override {
        auto& c = o.train;
        c.optimizer = m_opt->currentData().toString().toStdString();
        c.lr = m_lr->value();
        c.momentum = m_momentum->value();
        c.nesterov = m_nesterov->isChecked();
        c.weightDecay = m_wd->value();
        c.lrSchedule = m_schedule->currentData().toString().toStdString();
        c.lrStepEpochs = m_stepEpochs->value();
        c.lrGamma = m_gamma->value();
        c.clipNorm = m_clip->value();
        if (!(c.lr > 0)) return QObject::tr("Learning rate: must be above 0");
        return {};
    }

    void load(const ts::run::JobOptions& o) override {
        const auto& c = o.train;
        setCurrentData(m_opt, QString::fromStdString(c.optimizer));
        m_lr->setValue(c.lr);
        m_momentum->setValue(c.momentum);
        m_nesterov->setChecked(c.nesterov);
        m_wd->setValue(c.weightDecay);
        setCurrentData(m_schedule, QString::fromStdString(c.lrSchedule));
        m_stepEpochs->setValue(static_cast<int>(c.lrStepEpochs));
        m_gamma->setValue(c.lrGamma);
        m_clip->setValue(c.clipNorm);
        update();
    }

private:
    void update() {
        const bool sgd = m_opt->currentData().toString() == QLatin1String("sgd");
        m_form->setRowVisible(m_momentum, sgd);
        m_form->setRowVisible(m_nesterov, sgd);
        const bool step = m_schedule->currentData().toString() == QLatin1String("step");
        m_form->setRowVisible(m_stepEpochs, step);
        m_form->setRowVisible(m_gamma, step);
    }

    QWidget* m_w;
    QFormLayout* m_form;
    QComboBox *m_opt, *m_schedule;
    QDoubleSpinBox *m_lr, *m_momentum, *m_wd, *m_gamma, *m_clip;
    QCheckBox* m_nesterov;
    QSpinBox* m_stepEpochs;
};

}  // namespace

std::unique_ptr<TrainingOptionsSection> makeModelDataSection() {
    return std::make_unique<ModelDataSection>();
}

std::unique_ptr<TrainingOptionsSection> makeOptimizerSection() {
    return std::make_unique<OptimizerSection>();
}
