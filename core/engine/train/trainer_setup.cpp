// Trainer setup: building model, data and optimizer from a TrainConfig and loading a
// checkpoint to resume from.
#include <algorithm>
#include <cmath>

#include "core/engine/data/device_feed.h"
#include "core/engine/model/models.h"
#include "core/engine/train/checkpoint.h"
#include "core/engine/train/grad_buckets.h"
#include "core/engine/train/step_graph.h"
#include "core/engine/train/trainer.h"
#include "core/engine/train/trainer_context.h"

namespace ts::engine {

using detail::ThreadContext;

namespace {

std::unique_ptr<DataPipeline> makePipeline(ArrayDataset ds, int64_t batch, bool drop) {
    auto p = std::make_unique<DataPipeline>(std::move(ds));
    MapOp norm;
    norm.column = p->source().columns()[0].name;
    norm.scale = p->source().columns()[0].data.dtype() == DType::UInt8 ? 1.f / 255.f : 1.f;
    p->map(norm);
    MapOp cast;
    cast.kind = MapOp::Kind::TypeCastInt32;
    cast.column = "label";
    p->map(cast);
    p->batch(batch, drop);
    return p;
}

/// A CSV file as training data: features [N,F] (as [N,1,28,28] for image models when F is 784)
/// and int32 labels; `classes` grows to cover the largest label.
Result<ArrayDataset> loadCsv(const std::string& path, const std::string& label,
                             const std::string& model, int64_t& classes) {
    if (path.empty()) return Error{"the csv dataset needs a file (--csv FILE)"};
    auto ds = readCsv(path, label);
    if (!ds) return ds;
    const Tensor& labels = ds.value().columns()[1].data;
    for (int64_t i = 0; i < labels.numel(); ++i) {
        const int32_t l = labels.i32()[i];
        if (l < 0)
            return Error{path + ": label " + std::to_string(l) + " in row " +
                         std::to_string(i + 2) + " (labels must be class indices 0, 1, ...)"};
        classes = std::max<int64_t>(classes, l + 1);
    }
    Tensor x = ds.value().columns()[0].data;
    if (modelTakesImages(model) && x.rank() == 2 && x.dim(1) == 784)
        return ArrayDataset::create({"image", "label"}, {x.view({x.dim(0), 1, 28, 28}), labels});
    return ds;
}

}  // namespace

Trainer::Trainer(TrainConfig config) : m_config(std::move(config)), m_pool(m_config.memReuse) {}

Trainer::~Trainer() {
    // Tensors allocated from m_pool (and m_devicePool) must go back before the pool dies.
    m_buckets.reset();
    m_opt.reset();
    m_net.reset();
    m_train.reset();
    m_eval.reset();
}

Status Trainer::prepare() {
    if (m_prepared) return Status::success();
    ThreadContext tc(m_pool, m_dispatcher, AmpLevel::O0);
    const TrainConfig& c = m_config;
    if (c.epochs < 1) return Error{"epochs must be >= 1"};
    if (c.batchSize < 1) return Error{"batch size must be >= 1"};
    if (!ampLevelFromName(c.amp, &m_amp))
        return Error{"unknown AMP level '" + c.amp + "' (O0, O1 or O2)"};
    if (auto d = parseDevice(c.device); !d) {
        return Error{"unknown device '" + c.device + "' (cpu or cuda)"};
    } else if (*d != Device::CPU) {  // before the data loads: a machine without one says so now
        if (c.worldSize > 1)
            return Error{
                "data-parallel training runs on the CPU only (the gradient allreduce "
                "works on host memory): use --device cpu with --nproc"};
        if (auto b = cudaBackend(); !b) return Error{b.error()};
        m_device = *d;
    }
    if (c.lossScale == "none" ||
        ((c.lossScale == "auto" || c.lossScale.empty()) && m_amp == AmpLevel::O0)) {
        m_lossScale = 1.0;
    } else if (c.lossScale == "dynamic" || c.lossScale == "auto" || c.lossScale.empty()) {
        // auto: O1/O2 get a dynamic scale, as apex's levels and MindSpore's O2 do.
        m_dynamicScale = true;
        m_lossScale = 65536.0;
    } else if (c.lossScale.rfind("static:", 0) == 0 || c.lossScale.rfind("dynamic:", 0) == 0) {
        m_dynamicScale = c.lossScale[0] == 'd';
        const size_t colon = c.lossScale.find(':');
        char* end = nullptr;
        m_lossScale = std::strtod(c.lossScale.c_str() + colon + 1, &end);
        if (*end != '\0' || !(m_lossScale > 0) || !std::isfinite(m_lossScale))
            return Error{"bad loss scale '" + c.lossScale + "' (" + c.lossScale.substr(0, colon) +
                         ":N with N > 0)"};
    } else {
        return Error{"bad loss scale '" + c.lossScale + "' (none, static:N, dynamic or auto)"};
    }
    if (!m_train) {
        if (c.dataset == "fashion-mnist") {
            auto tr = loadFashionMnist("train", c.datasetDir);
            if (!tr) return Error{tr.error()};
            auto te = loadFashionMnist("test", c.datasetDir);
            if (!te) return Error{te.error()};
            m_train = makePipeline(std::move(tr.value()), c.batchSize, c.dropRemainder);
            m_eval = makePipeline(std::move(te.value()), 256, false);
        } else if (c.dataset == "synthetic") {
            m_train = makePipeline(syntheticImages(c.syntheticSamples, 10, 28, 28, c.seed, 0),
                                   c.batchSize, c.dropRemainder);
            m_eval = makePipeline(syntheticImages(std::max<int64_t>(64, c.syntheticSamples / 4), 10,
                                                  28, 28, c.seed, 1),
                                  256, false);
        } else if (c.dataset == "csv") {
            m_classes = 2;
            auto tr = loadCsv(c.csvPath, c.csvLabel, c.model, m_classes);
            if (!tr) return Error{tr.error()};
            auto te = c.csvTestPath.empty()
                          ? loadCsv(c.csvPath, c.csvLabel, c.model, m_classes)
                          : loadCsv(c.csvTestPath, c.csvLabel, c.model, m_classes);
            if (!te) return Error{te.error()};
            m_train = makePipeline(std::move(tr.value()), c.batchSize, c.dropRemainder);
            m_eval = makePipeline(std::move(te.value()), 256, false);
        } else {
            return Error{"unknown dataset '" + c.dataset + "' (fashion-mnist, synthetic or csv)"};
        }
        m_train->shuffle(c.seed);
        if (auto s = m_train->shard(c.numShards, c.shardId); !s) return s;
    }
    if (!m_net) {
        const Column& x = m_train->source().columns()[0];
        const int64_t inputs = x.data.numel() / std::max<int64_t>(1, x.data.dim(0));
        const int64_t classes = m_classes;
        m_net = makeModel(c.model, c.seed, inputs, classes);
        if (!m_net)
            return Error{modelTakesImages(c.model) && inputs != 784
                             ? c.model +
                                   " needs 28x28 single-channel inputs (784 features), the data "
                                   "has " +
                                   std::to_string(inputs)
                             : "unknown model '" + c.model +
                                   "' (mlp, lenet5, resnet8 or shufflenetv2)"};
        m_net->setName("_backbone");
    }
    if (m_train->batchesPerEpoch() < 1)
        return Error{
            "the training data gives no batch: " + std::to_string(m_train->samplesPerEpoch()) +
            " samples per epoch, batch size " + std::to_string(c.batchSize)};
    if (c.optimizer == "sgd")
        m_opt = std::make_unique<Sgd>(m_net->parameters(),
                                      SgdOptions{c.momentum, c.nesterov, c.weightDecay});
    else if (c.optimizer == "adam")
        m_opt = std::make_unique<Adam>(m_net->parameters(),
                                       AdamOptions{0.9, 0.999, 1e-8, c.weightDecay});
    else
        return Error{"unknown optimizer '" + c.optimizer + "' (sgd or adam)"};
    m_schedule.base = c.lr;
    if (c.lrSchedule == "step") {
        m_schedule.kind = LrSchedule::Kind::Step;
        m_schedule.stepSize = c.lrStepEpochs;
        m_schedule.gamma = c.lrGamma;
    } else if (c.lrSchedule == "cosine") {
        m_schedule.kind = LrSchedule::Kind::Cosine;
        m_schedule.totalSteps = stepsPerEpoch() * c.epochs;
    } else if (c.lrSchedule != "constant") {
        return Error{"unknown lr schedule '" + c.lrSchedule + "' (constant, step or cosine)"};
    }
    if (!c.resumeFrom.empty()) {
        auto rep = loadCheckpoint(c.resumeFrom, *m_net, m_opt.get());
        if (!rep) return Error{rep.error()};
        if (rep.value().hasTrainState) {
            const TrainState& st = rep.value().state;
            m_startStep = st.step;
            m_startEpoch = static_cast<int>(st.step / stepsPerEpoch()) + 1;
            if (st.lossScale > 0 && m_lossScale != 1.0) m_lossScale = st.lossScale;
            m_goodSteps = st.goodSteps;
        }
        m_stepsDone = m_startStep;
        m_epochsDone = m_startEpoch - 1;
        m_resumeWarnings = rep.value().warnings;
    }
    if (auto s = moveToDevice(); !s) return s;
    m_prepared = true;
    return Status::success();
}

Status Trainer::moveToDevice() {
    if (m_device == Device::CPU) return Status::success();
    try {
        if (!m_devicePool) m_devicePool = makeDevicePool(m_device, m_config.memReuse);
        ThreadContext tc(m_pool, m_dispatcher, AmpLevel::O0, m_devicePool.get());
        // In place: the cells, the optimizer and the observers keep the same tensors.
        for (NamedParam& p : m_net->parameters()) moveTo(p.tensor, m_device);
        if (m_opt)
            for (auto& [tag, t] : m_opt->state()) {
                Tensor state = t;
                moveTo(state, m_device);
            }
    } catch (const std::exception& e) {
        return Error{std::string("cannot put the model on ") + deviceName(m_device) + ": " +
                     e.what()};
    }
    return Status::success();
}

void Trainer::batchToDevice(std::vector<Tensor>& batch) const {
    if (m_device == Device::CPU) return;
    for (Tensor& t : batch) t = toDevice(t, m_device);
}

void Trainer::setNetwork(std::shared_ptr<Cell> net) {
    m_net = std::move(net);
    if (m_net && m_net->name().empty()) m_net->setName("_backbone");
    if (m_opt) {
        const TrainConfig& c = m_config;
        if (c.optimizer == "adam")
            m_opt = std::make_unique<Adam>(m_net->parameters(),
                                           AdamOptions{0.9, 0.999, 1e-8, c.weightDecay});
        else
            m_opt = std::make_unique<Sgd>(m_net->parameters(),
                                          SgdOptions{c.momentum, c.nesterov, c.weightDecay});
    }
    // A network set after prepare() goes where the run's tensors live.
    if (m_prepared && m_device != Device::CPU)
        if (auto s = moveToDevice(); !s) throw std::runtime_error(s.error());
}
void Trainer::setTrainData(std::unique_ptr<DataPipeline> data) {
    m_train = std::move(data);
}
void Trainer::setEvalData(std::unique_ptr<DataPipeline> data) {
    m_eval = std::move(data);
}
void Trainer::addCallback(std::shared_ptr<Callback> cb) {
    m_callbacks.push_back(std::move(cb));
}

}  // namespace ts::engine
