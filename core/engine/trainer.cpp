#include "core/engine/trainer.h"

#include <chrono>
#include <cmath>
#include <thread>

#include "core/engine/checkpoint.h"
#include "core/engine/metrics.h"
#include "core/engine/models.h"
#include "core/engine/ops.h"

namespace ts::engine {

namespace {

double nowS() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// Installs the trainer's pool, dispatcher and AMP level on this thread for a scope and puts
/// back what was there before (scopes nest: run() -> prepare() / evaluate()).
class ThreadContext {
public:
    ThreadContext(MemoryPool& pool, Dispatcher& d, AmpLevel amp)
        : m_amp(ampLevel()), m_pool(MemoryPool::install(&pool)), m_d(Dispatcher::install(&d)) {
        setAmpLevel(amp);
    }
    ~ThreadContext() {
        setAmpLevel(m_amp);
        Dispatcher::install(m_d);
        MemoryPool::install(m_pool);
    }
    ThreadContext(const ThreadContext&) = delete;
    ThreadContext& operator=(const ThreadContext&) = delete;

private:
    AmpLevel m_amp;
    MemoryPool* m_pool;
    Dispatcher* m_d;
};

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

std::string jsonEscape(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        o += c;
    }
    return o;
}

}  // namespace

std::string TrainConfig::toJson() const {
    auto str = [](const char* k, const std::string& v) {
        return std::string("\"") + k + "\":\"" + jsonEscape(v) + "\"";
    };
    auto num = [](const char* k, double v) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        return std::string("\"") + k + "\":" + buf;
    };
    std::string j = "{";
    j += str("model", model) + "," + str("dataset", dataset) + "," + num("epochs", epochs) + "," +
         num("batch_size", static_cast<double>(batchSize)) + "," + str("optimizer", optimizer) +
         "," + num("lr", lr) + "," + num("momentum", momentum) + "," +
         num("nesterov", nesterov ? 1 : 0) + "," + num("weight_decay", weightDecay) + "," +
         str("lr_schedule", lrSchedule) + "," + num("clip_norm", clipNorm) + "," +
         num("seed", static_cast<double>(seed)) + "," + str("amp", amp) + "," +
         str("loss_scale", lossScale) + "," + num("num_shards", static_cast<double>(numShards)) +
         "," + num("shard_id", static_cast<double>(shardId)) + "," +
         num("limit_steps", static_cast<double>(limitSteps)) + "," +
         num("drop_remainder", dropRemainder ? 1 : 0) + "," + num("mem_reuse", memReuse ? 1 : 0) +
         "," + str("resume", resumeFrom);
    return j + "}";
}

Trainer::Trainer(TrainConfig config) : m_config(std::move(config)), m_pool(m_config.memReuse) {}

Trainer::~Trainer() {
    // Tensors allocated from m_pool must go back before the pool dies.
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
    if (c.lossScale == "none" || c.lossScale.empty()) {
        m_lossScale = 1.0;
    } else if (c.lossScale == "dynamic") {
        m_dynamicScale = true;
        m_lossScale = 65536.0;
    } else if (c.lossScale.rfind("static:", 0) == 0) {
        char* end = nullptr;
        m_lossScale = std::strtod(c.lossScale.c_str() + 7, &end);
        if (*end != '\0' || !(m_lossScale > 0))
            return Error{"bad loss scale '" + c.lossScale + "' (static:N with N > 0)"};
    } else {
        return Error{"bad loss scale '" + c.lossScale + "' (static:N or dynamic)"};
    }
    if (!m_net) {
        m_net = makeModel(c.model, c.seed);
        if (!m_net) return Error{"unknown model '" + c.model + "' (mlp or lenet5)"};
        m_net->setName("_backbone");
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
        } else {
            return Error{"unknown dataset '" + c.dataset + "' (fashion-mnist or synthetic)"};
        }
        m_train->shuffle(c.seed);
        if (auto s = m_train->shard(c.numShards, c.shardId); !s) return s;
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
    m_prepared = true;
    return Status::success();
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

int64_t Trainer::stepsPerEpoch() const {
    return m_train ? std::max<int64_t>(1, m_train->batchesPerEpoch()) : 1;
}

void Trainer::requestStop(const std::string& reason) {
    {
        std::lock_guard lock(m_progressMutex);
        if (m_stopReason.empty()) m_stopReason = reason;
    }
    m_stop.store(true);
}
void Trainer::pause() {
    m_paused.store(true);
}
void Trainer::resume() {
    m_paused.store(false);
}

TrainProgress Trainer::progress() const {
    std::lock_guard lock(m_progressMutex);
    TrainProgress p = m_progress;
    p.paused = m_paused.load();
    return p;
}

void Trainer::publish(const RunContext& ctx) {
    const RunArgs& a = ctx.originalArgs();
    std::lock_guard lock(m_progressMutex);
    m_progress.epoch = a.cur_epoch_num;
    m_progress.epochs = a.epoch_num;
    m_progress.step = a.cur_step_num;
    m_progress.totalSteps = a.batch_num * a.epoch_num;
    if (m_config.limitSteps > 0)
        m_progress.totalSteps = std::min(m_progress.totalSteps, m_config.limitSteps);
    m_progress.loss = a.net_outputs;
    m_progress.lr = a.lr;
    m_progress.lossScale = a.loss_scale;
    m_progress.samplesPerS = a.samples_per_s;
    m_progress.elapsedS = a.elapsed_s;
}

void Trainer::notifyPhase(Phase p, bool begin) {
    for (OpObserver* o : m_dispatcher.observers()) begin ? o->onPhaseBegin(p) : o->onPhaseEnd(p);
}

Status Trainer::saveCheckpoint(const std::string& path) const {
    TrainState st;
    st.epoch = m_epochsDone;
    st.step = m_stepsDone;
    st.optimizer = m_opt ? m_opt->name() : "";
    st.lossScale = m_lossScale;
    st.optimizerUpdates = m_opt ? m_opt->updates() : 0;
    st.goodSteps = m_goodSteps;
    st.configJson = m_config.toJson();
    if (!m_net) return Error{"no network to save"};
    return writeCheckpoint(path, makeCheckpoint(*m_net, m_opt.get(), st));
}

bool Trainer::trainStep(std::vector<Tensor>& batch, RunContext& ctx) {
    RunArgs& a = ctx.originalArgs();
    notifyPhase(Phase::Forward, true);
    Tensor loss;
    {
        ScopeGuard scope("network-WithLossCell");
        Tensor logits = (*m_net)(batch[0]);
        ScopeGuard lossScope("_loss_fn-SoftmaxCrossEntropyWithLogits");
        loss = ops::softmaxCrossEntropy(logits, batch[1]);
    }
    a.net_outputs = loss.item();
    notifyPhase(Phase::Forward, false);

    notifyPhase(Phase::Backward, true);
    m_opt->zeroGrad();
    loss.backward(static_cast<float>(m_lossScale));
    loss = Tensor();
    notifyPhase(Phase::Backward, false);

    notifyPhase(Phase::Optimizer, true);
    const bool scaled = m_lossScale != 1.0 || m_dynamicScale;
    bool overflow = false;
    if (scaled || m_amp != AmpLevel::O0) overflow = !gradientsFinite(m_opt->params());
    a.lr = m_schedule.at(a.cur_step_num - 1, stepsPerEpoch());
    if (overflow) {
        if (m_dynamicScale) m_lossScale = std::max(1.0, m_lossScale / 2.0);
        m_goodSteps = 0;
    } else {
        if (m_lossScale != 1.0) {
            const float inv = static_cast<float>(1.0 / m_lossScale);
            for (auto& p : m_opt->params()) {
                Tensor g = p.tensor.grad();
                if (!g.defined()) continue;
                for (int64_t i = 0, n = g.numel(); i < n; ++i) g.f32()[i] *= inv;
            }
        }
        if (m_config.clipNorm > 0) clipGradNorm(m_opt->params(), m_config.clipNorm);
        m_opt->step(a.lr);
        if (m_dynamicScale && ++m_goodSteps >= 2000) {
            m_lossScale *= 2.0;
            m_goodSteps = 0;
        }
    }
    m_opt->zeroGrad();
    notifyPhase(Phase::Optimizer, false);
    a.overflow = overflow;
    a.loss_scale = m_lossScale;
    return overflow;
}

TrainResult Trainer::run() {
    TrainResult result;
    ThreadContext tc(m_pool, m_dispatcher, m_amp);
    if (auto s = prepare(); !s) {
        result.reason = s.error();
        return result;
    }
    setAmpLevel(m_amp);
    result.warnings = m_resumeWarnings;
    if (m_dispatcher.observed())
        m_pool.setListener([this](const MemoryEvent& ev) {
            for (OpObserver* o : m_dispatcher.observers()) o->onMemory(ev);
        });
    m_net->setTraining(true);
    RunContext ctx;
    RunArgs& a = ctx.originalArgs();
    a.epoch_num = m_config.epochs;
    a.batch_num = stepsPerEpoch();
    a.batch_size = m_config.batchSize;
    a.optimizer = m_opt.get();
    a.train_network = m_net.get();
    a.trainer = this;
    a.loss_scale = m_lossScale;
    a.cur_step_num = m_startStep;
    a.cur_epoch_num = m_startEpoch;
    a.lr = m_schedule.at(m_startStep, stepsPerEpoch());
    {
        std::lock_guard lock(m_progressMutex);
        m_progress.running = true;
    }
    publish(ctx);
    for (OpObserver* o : m_dispatcher.observers()) o->onRunBegin(m_config.toJson());

    double trainTime = 0;
    int64_t samples = 0;
    bool failed = false;
    std::string failReason;
    try {
        for (auto& cb : m_callbacks) cb->begin(ctx);
        for (int epoch = m_startEpoch; epoch <= m_config.epochs && !m_stop && !ctx.stopRequested();
             ++epoch) {
            a.cur_epoch_num = epoch;
            m_train->startEpoch(epoch);
            int64_t first = 0;
            if (epoch == m_startEpoch && m_startStep > 0) {
                first = m_startStep - static_cast<int64_t>(epoch - 1) * stepsPerEpoch();
                m_train->skip(first);
            }
            for (OpObserver* o : m_dispatcher.observers()) o->onEpochBegin(epoch);
            for (auto& cb : m_callbacks) cb->epochBegin(ctx);
            const int64_t batches = m_train->batchesPerEpoch();
            bool epochComplete = true;
            for (int64_t b = first; b < batches; ++b) {
                while (m_paused && !m_stop)
                    std::this_thread::sleep_for(std::chrono::milliseconds(10));
                if (m_stop || ctx.stopRequested() ||
                    (m_config.limitSteps > 0 && m_stepsDone >= m_config.limitSteps)) {
                    epochComplete = false;
                    break;
                }
                const double t0 = nowS();
                a.cur_step_num = m_stepsDone + 1;
                a.step_in_epoch = b + 1;
                m_dispatcher.beginStep(epoch, a.cur_step_num);
                StepInfo info{epoch, a.cur_step_num, b + 1, 0, m_lossScale, false};
                for (OpObserver* o : m_dispatcher.observers()) o->onStepBegin(info);
                for (auto& cb : m_callbacks) cb->stepBegin(ctx);
                notifyPhase(Phase::DataLoading, true);
                std::vector<Tensor> batch;
                m_train->next(batch);
                notifyPhase(Phase::DataLoading, false);
                const bool overflow = trainStep(batch, ctx);
                m_stepsDone = a.cur_step_num;
                samples += batch[0].dim(0);
                trainTime += nowS() - t0;
                a.elapsed_s = trainTime;
                a.samples_per_s = trainTime > 0 ? static_cast<double>(samples) / trainTime : 0;
                info.loss = a.net_outputs;
                info.lossScale = m_lossScale;
                info.overflow = overflow;
                if (overflow) {
                    ++result.overflowSteps;
                    for (OpObserver* o : m_dispatcher.observers()) o->onOverflow(info, m_lossScale);
                }
                notifyPhase(Phase::Callbacks, true);
                for (auto& cb : m_callbacks) cb->stepEnd(ctx);
                notifyPhase(Phase::Callbacks, false);
                for (OpObserver* o : m_dispatcher.observers()) o->onStepEnd(info);
                publish(ctx);
                if (m_config.limitSteps > 0 && m_stepsDone >= m_config.limitSteps) {
                    epochComplete = b + 1 == batches;
                    break;
                }
            }
            if (epochComplete) m_epochsDone = epoch;
            if (m_config.evalEachEpoch && epochComplete && !ctx.stopRequested()) {
                auto ev = evaluate();
                if (ev) a.eval_results = ev.value();
            }
            if (epochComplete) {
                for (auto& cb : m_callbacks) cb->epochEnd(ctx);
                for (OpObserver* o : m_dispatcher.observers()) o->onEpochEnd(epoch);
            }
            if (m_config.limitSteps > 0 && m_stepsDone >= m_config.limitSteps) break;
        }
    } catch (const std::exception& e) {
        failed = true;
        failReason = std::string("training failed at step ") + std::to_string(a.cur_step_num) +
                     ": " + e.what();
    }
    result.steps = m_stepsDone;
    result.epochs = m_epochsDone;
    result.trainSeconds = trainTime;
    result.samplesPerS = trainTime > 0 ? static_cast<double>(samples) / trainTime : 0;
    result.finalLoss = a.net_outputs;
    if (failed) {
        result.status = "failed";
        result.reason = failReason;
    } else if (ctx.stopRequested()) {
        result.status = ctx.stopIsFailure() ? "failed" : "stopped";
        result.reason = ctx.stopReason();
    } else if (m_stop) {
        result.status = "stopped";
        std::lock_guard lock(m_progressMutex);
        result.reason = m_stopReason;
    } else {
        result.status = "completed";
        result.reason = m_config.limitSteps > 0 && m_stepsDone >= m_config.limitSteps &&
                                m_epochsDone < m_config.epochs
                            ? "step limit " + std::to_string(m_config.limitSteps) + " reached"
                            : "all epochs done";
    }
    if (!failed && m_config.evalAtEnd && result.status != "failed") {
        auto ev = evaluate();
        if (ev) {
            result.eval = ev.value();
            a.eval_results = ev.value();
        } else {
            result.warnings.push_back("evaluation failed: " + ev.error());
        }
    }
    try {
        for (auto& cb : m_callbacks) cb->end(ctx);
    } catch (const std::exception& e) {
        result.warnings.push_back(std::string("callback end() failed: ") + e.what());
    }
    for (OpObserver* o : m_dispatcher.observers()) o->onRunEnd(result.status, result.reason);
    m_pool.setListener(nullptr);
    {
        std::lock_guard lock(m_progressMutex);
        m_progress.running = false;
    }
    return result;
}

Result<std::map<std::string, double>> Trainer::evaluate(DataPipeline* data) {
    ThreadContext tc(m_pool, m_dispatcher, m_amp);
    if (auto s = prepare(); !s) return Error{s.error()};
    DataPipeline* d = data ? data : m_eval.get();
    if (!d) return Error{"no evaluation data"};
    auto metrics = defaultMetrics(10);
    for (auto& m : metrics) m->clear();
    const bool wasTraining = m_net->training();
    m_net->setTraining(false);
    try {
        NoGradGuard noGrad;
        d->startEpoch(1);
        std::vector<Tensor> batch;
        int64_t seen = 0;
        while ((m_config.evalLimit <= 0 || seen < m_config.evalLimit) && d->next(batch)) {
            ScopeGuard scope("network-WithEvalCell");
            Tensor logits = (*m_net)(batch[0]);
            const double loss = ops::softmaxCrossEntropy(logits, batch[1]).item();
            for (auto& m : metrics) m->update(logits, batch[1], loss);
            seen += batch[0].dim(0);
        }
    } catch (const std::exception& e) {
        m_net->setTraining(wasTraining);
        return Error{std::string("evaluation failed: ") + e.what()};
    }
    m_net->setTraining(wasTraining);
    std::map<std::string, double> out;
    for (auto& m : metrics)
        for (auto& [k, v] : m->eval()) out[k] = v;
    return out;
}

}  // namespace ts::engine
