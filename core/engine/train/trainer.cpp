#include "core/engine/train/trainer.h"

#include "core/dist/process_group.h"

#include <chrono>
#include <cmath>
#include <optional>
#include <thread>

#include "core/engine/data/device_feed.h"
#include "core/engine/device/device.h"
#include "core/engine/model/models.h"
#include "core/engine/ops/ops.h"
#include "core/engine/tensor/grad_ready.h"
#include "core/engine/tensor/parallel.h"
#include "core/engine/train/checkpoint.h"
#include "core/engine/train/metrics.h"
#include "core/engine/train/trainer_context.h"
#include "core/log/logger.h"

namespace ts::engine {

using detail::nowS;
using detail::ThreadContext;

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
    p.holding = m_holding.load();
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
    if (a.overflow) ++m_progress.overflowSteps;
    m_progress.bytesInUse = memoryPool().bytesInUse();
    m_progress.peakBytes = memoryPool().peakBytes();
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

Tensor Trainer::forwardBackward(std::vector<Tensor>& batch, RunContext& ctx, bool readLoss) {
    notifyPhase(Phase::Forward, true);
    Tensor loss;
    {
        ScopeGuard scope("network-WithLossCell");
        Tensor logits = (*m_net)(batch[0]);
        ScopeGuard lossScope("_loss_fn-SoftmaxCrossEntropyWithLogits");
        loss = ops::softmaxCrossEntropy(logits, batch[1]);
    }
    if (readLoss) takeLoss(loss, ctx);
    notifyPhase(Phase::Forward, false);

    notifyPhase(Phase::Backward, true);
    m_opt->zeroGrad();
    {
        // Data parallel: each bucket's allreduce starts as backward finishes its gradients
        // (trainer_parallel.cpp).
        std::optional<GradReadyHook> hook;
        if (m_group) hook.emplace(startGradientBuckets(ctx));
        loss.backward(static_cast<float>(m_lossScale));
    }
    if (m_group) {  // the mean gradient of every rank
        ScopeGuard dp("DataParallel");
        allreduceGradients();
    }
    notifyPhase(Phase::Backward, false);
    return loss;
}

bool Trainer::update(RunContext& ctx) {
    RunArgs& a = ctx.originalArgs();
    notifyPhase(Phase::Optimizer, true);
    a.loss_scale_used = m_lossScale;
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
                scaleInPlace(g, inv);
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

bool Trainer::trainStep(std::vector<Tensor>& batch, RunContext& ctx) {
    m_lossPending = false;
    Tensor loss = m_graph ? graphForwardBackward(batch, ctx) : Tensor();
    if (!loss.defined()) loss = forwardBackward(batch, ctx);
    loss = Tensor();  // the step's autograd graph goes before the update
    return update(ctx);
}

void Trainer::endStep(StepEnd& s, RunContext& ctx, TrainResult& result) {
    RunArgs& a = ctx.originalArgs();
    a.cur_epoch_num = s.info.epoch;
    a.cur_step_num = s.info.step;
    a.step_in_epoch = s.stepInEpoch;
    a.lr = s.lr;
    a.loss_scale_used = s.lossScaleUsed;
    a.loss_scale = s.info.lossScale;
    a.overflow = s.info.overflow;
    if (s.lossPending) {
        float v = 0;
        backendOf(m_device).readbackWait(s.slot, &v, sizeof v);
        a.net_outputs = v;
    }
    s.info.loss = a.net_outputs;
    m_samples += s.samples;
    m_trainTime += nowS() - m_clock;
    a.elapsed_s = m_trainTime;
    a.samples_per_s = m_trainTime > 0 ? static_cast<double>(m_samples) / m_trainTime : 0;
    TS_LOG(ENGINE, DEBUG) << "epoch " << a.cur_epoch_num << " step " << a.cur_step_num << " loss "
                          << a.net_outputs << " lr " << a.lr;
    if (s.info.overflow) {
        TS_LOG(ENGINE, WARNING) << "step " << a.cur_step_num
                                << ": gradients overflowed, step skipped; loss scale "
                                << s.info.lossScale;
        ++result.overflowSteps;
        for (OpObserver* o : m_dispatcher.observers()) o->onOverflow(s.info, s.info.lossScale);
    }
    notifyPhase(Phase::Callbacks, true);
    for (auto& cb : m_callbacks) cb->stepEnd(ctx);
    notifyPhase(Phase::Callbacks, false);
    for (OpObserver* o : m_dispatcher.observers()) o->onStepEnd(s.info);
    if (m_group) m_agreedStop = agreeToStop(ctx);
    publish(ctx);
    m_clock = nowS();
}

TrainResult Trainer::run() {
    TrainResult result;
    // prepare() first: its own ThreadContext uninstalls the pool and dispatcher on return.
    if (auto s = prepare(); !s) {
        result.reason = s.error();
        return result;
    }
    ThreadContext tc(m_pool, m_dispatcher, m_amp, m_devicePool.get());
    setAmpLevel(m_amp);
    if (m_config.threads > 0) setIntraOpThreads(m_config.threads);
    result.warnings = m_resumeWarnings;
    if (m_dispatcher.observed())
        memoryPool().setListener([this](const MemoryEvent& ev) {
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
    a.train_dataset = m_train.get();
    for (auto& cb : m_callbacks) a.list_callback.push_back(cb.get());
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
    TS_LOG(ENGINE, INFO) << "start training " << m_config.model << " on " << m_config.dataset
                         << ": " << m_config.epochs << " epochs x " << stepsPerEpoch()
                         << " steps, batch " << m_config.batchSize << ", " << m_config.optimizer
                         << " lr " << m_config.lr;

    m_trainTime = 0;
    m_samples = 0;
    m_graphBytes = 0;
    m_agreedStop = false;
    bool failed = false;
    std::string failReason;
    // A data-parallel rank stops only when the ranks agreed to (after the same step).
    auto stopping = [&] { return m_group ? m_agreedStop : (m_stop || ctx.stopRequested()); };
    try {
        broadcastParameters();
        if (m_device != Device::CPU) startDeviceRun(result);
        for (auto& cb : m_callbacks) cb->begin(ctx);
        for (int epoch = m_startEpoch; epoch <= m_config.epochs && !stopping(); ++epoch) {
            a.cur_epoch_num = epoch;
            m_train->startEpoch(epoch);
            int64_t first = 0;
            if (epoch == m_startEpoch && m_startStep > 0) {
                first = m_startStep - static_cast<int64_t>(epoch - 1) * stepsPerEpoch();
                m_train->skip(first);
            }
            if (m_feed) m_feed->startEpoch(*m_train);
            for (OpObserver* o : m_dispatcher.observers()) o->onEpochBegin(epoch);
            for (auto& cb : m_callbacks) cb->epochBegin(ctx);
            const int64_t batches = agreeOnBatches(m_train->batchesPerEpoch());
            bool epochComplete = true;
            // With late step ends: the step whose end runs after the next one was started.
            std::optional<StepEnd> pending;
            for (int64_t b = first; b < batches; ++b) {
                if (m_paused && !m_stop) {
                    if (pending) endStep(*pending, ctx, result);  // seen as it was
                    pending.reset();
                    m_holding.store(true);
                    while (m_paused && !m_stop)
                        std::this_thread::sleep_for(std::chrono::milliseconds(10));
                    m_holding.store(false);
                }
                if (stopping() || (m_config.limitSteps > 0 && m_stepsDone >= m_config.limitSteps)) {
                    epochComplete = false;
                    break;
                }
                if (!pending) m_clock = nowS();
                a.cur_step_num = m_stepsDone + 1;
                a.step_in_epoch = b + 1;
                m_dispatcher.beginStep(epoch, a.cur_step_num);
                StepEnd step;
                step.info = StepInfo{epoch, a.cur_step_num, b + 1, 0, m_lossScale, false};
                step.stepInEpoch = b + 1;
                for (OpObserver* o : m_dispatcher.observers()) o->onStepBegin(step.info);
                for (auto& cb : m_callbacks) cb->stepBegin(ctx);
                if (m_device != Device::CPU) countDeviceStep();
                notifyPhase(Phase::DataLoading, true);
                std::vector<Tensor> batch;
                nextBatch(batch);
                notifyPhase(Phase::DataLoading, false);
                const bool overflow = trainStep(batch, ctx);
                m_stepsDone = a.cur_step_num;
                step.samples = batch[0].dim(0);
                m_samplesStarted += step.samples;
                step.lr = a.lr;
                step.lossScaleUsed = a.loss_scale_used;
                step.info.lossScale = m_lossScale;
                step.info.overflow = overflow;
                step.lossPending = m_lossPending;
                step.slot = m_lossSlot;
                if (m_lateEnds) {  // the device runs this step while the last one ends
                    if (pending) endStep(*pending, ctx, result);
                    pending = step;
                } else {
                    endStep(step, ctx, result);
                }
                if (m_config.limitSteps > 0 && m_stepsDone >= m_config.limitSteps) {
                    epochComplete = b + 1 == batches;
                    break;
                }
            }
            if (pending) endStep(*pending, ctx, result);
            if (epochComplete) m_epochsDone = epoch;
            if (m_config.evalEachEpoch && epochComplete && !stopping() && !ctx.stopRequested()) {
                auto ev = evaluate();
                if (ev) a.eval_results = ev.value();
            }
            if (epochComplete) {
                TS_LOG(ENGINE, INFO) << "epoch " << epoch << " done at step " << m_stepsDone
                                     << ", loss " << a.net_outputs;
                for (auto& cb : m_callbacks) cb->epochEnd(ctx);
                for (OpObserver* o : m_dispatcher.observers()) o->onEpochEnd(epoch);
            }
            if (m_config.limitSteps > 0 && m_stepsDone >= m_config.limitSteps) break;
        }
    } catch (const std::exception& e) {
        failed = true;
        failReason = std::string("training failed at step ") + std::to_string(a.cur_step_num) +
                     ": " + e.what();
        TS_LOG(ENGINE, ERROR) << failReason;
        if (m_group) m_group->reportFailure("failed: " + failReason);
    }
    if (m_device != Device::CPU) endDeviceRun(result);
    const double trainTime = m_trainTime;
    const int64_t samples = m_samples;
    result.steps = m_stepsDone;
    result.epochs = m_epochsDone;
    result.trainSeconds = trainTime;
    result.samplesPerS = trainTime > 0 ? static_cast<double>(samples) / trainTime : 0;
    result.finalLoss = a.net_outputs;
    result.peakBytes = memoryPool().peakBytes() + m_graphBytes;
    result.reservedBytes = memoryPool().reservedBytes() + m_graphBytes;
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
    if (result.status == "completed")
        TS_LOG(ENGINE, INFO) << "training completed: " << result.steps << " steps, "
                             << result.reason;
    else if (result.status == "stopped")
        TS_LOG(ENGINE, WARNING) << "training stopped: " << result.reason;
    else if (!failed)
        TS_LOG(ENGINE, ERROR) << "training failed: " << result.reason;
    for (OpObserver* o : m_dispatcher.observers()) o->onRunEnd(result.status, result.reason);
    memoryPool().setListener(nullptr);
    {
        std::lock_guard lock(m_progressMutex);
        m_progress.running = false;
    }
    return result;
}

Result<std::map<std::string, double>> Trainer::evaluate(DataPipeline* data) {
    if (auto s = prepare(); !s) return Error{s.error()};
    ThreadContext tc(m_pool, m_dispatcher, m_amp, m_devicePool.get());
    DataPipeline* d = data ? data : m_eval.get();
    if (!d) return Error{"no evaluation data"};
    auto metrics = defaultMetrics(static_cast<int>(m_classes));
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
            const Tensor labels = batch[1];  // the metrics read the host's
            batchToDevice(batch);
            Tensor logits = (*m_net)(batch[0]);
            const double loss = ops::softmaxCrossEntropy(logits, batch[1]).item();
            logits = toHost(logits);
            for (auto& m : metrics) m->update(logits, labels, loss);
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
