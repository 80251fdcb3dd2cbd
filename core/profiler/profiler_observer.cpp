#include "core/profiler/profiler_observer.h"

#include <cmath>

#include "core/engine/tensor/memory_pool.h"

#ifdef __linux__
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace ts::profiler {

namespace {

Phase toPhase(engine::Phase p) {
    switch (p) {
        case engine::Phase::DataLoading:
            return Phase::DataLoading;
        case engine::Phase::Forward:
            return Phase::Forward;
        case engine::Phase::Backward:
            return Phase::Backward;
        case engine::Phase::Optimizer:
            return Phase::Optimizer;
        case engine::Phase::Callbacks:
            return Phase::Callbacks;
    }
    return Phase::Callbacks;
}

/// The forward scope inside a backward op's scope "Gradients/<forward scope>/<op>-opN".
std::string_view forwardScopeOf(std::string_view scope) {
    constexpr std::string_view kPrefix = "Gradients/";
    if (scope.substr(0, kPrefix.size()) != kPrefix) return {};
    scope.remove_prefix(kPrefix.size());
    const size_t slash = scope.rfind('/');
    return slash == std::string_view::npos ? std::string_view() : scope.substr(0, slash);
}

const char* const kOutputNames[] = {"output 0", "output 1", "output 2", "output 3"};

}  // namespace

ProfilerObserver::ProfilerObserver(ProfilerOptions options, const engine::MemoryPool* pool,
                                   int64_t batchSize)
    : m_rec(options), m_pool(pool), m_batchSize(batchSize) {}

void ProfilerObserver::addResident(const void* ptr, int64_t bytes, std::string_view origin,
                                   std::string_view tensor, const std::vector<int64_t>& shape) {
    const int64_t h = m_rec.resident(bytes, origin, tensor, shape);
    if (h >= 0 && ptr) m_live.set(ptr, h);
}

void ProfilerObserver::onRunBegin(const std::string& /*configJson*/) {
#ifdef __linux__
    const auto tid = static_cast<int64_t>(::syscall(SYS_gettid));
    m_rec.setThread(static_cast<int64_t>(::getpid()), tid,
                    "training thread " + std::to_string(tid));
#endif
}

void ProfilerObserver::onStepBegin(const engine::StepInfo& step) {
    m_ops.clear();
    m_rec.stepBegin(m_stepIndex++, step.step);
    if (!m_rec.recording()) return;
    m_stepStartNs = m_rec.now();
    if (m_pool && m_rec.options().profileMemory) {
        m_rec.counter(Counter::MemoryInUse, static_cast<double>(m_pool->bytesInUse()));
        m_lastReserved = m_pool->reservedBytes();
        m_rec.counter(Counter::MemoryPool, static_cast<double>(m_lastReserved));
    }
}

void ProfilerObserver::onStepEnd(const engine::StepInfo& step) {
    if (!m_rec.recording()) return;
    const int64_t dur = m_rec.now() - m_stepStartNs;
    if (m_batchSize > 0 && dur > 0)
        m_rec.counter(Counter::SamplesPerSecond,
                      static_cast<double>(m_batchSize) * 1e9 / static_cast<double>(dur));
    if (std::isfinite(step.loss)) m_rec.counter(Counter::Loss, step.loss);
    if (std::isfinite(step.lossScale)) m_rec.counter(Counter::LossScale, step.lossScale);
    m_rec.stepEnd();
    m_ops.clear();
    if (m_onRecordedStep) m_onRecordedStep();
}

void ProfilerObserver::onPhaseBegin(engine::Phase phase) {
    m_rec.phaseBegin(toPhase(phase));
}

void ProfilerObserver::onPhaseEnd(engine::Phase /*phase*/) {
    m_rec.phaseEnd();
}

void ProfilerObserver::onOpBegin(engine::OpEvent& op) {
    if (!m_rec.recording()) return;
    const int64_t token =
        m_rec.opBegin(op.opType, op.scopeName, op.seqId, op.backward,
                      op.backward ? forwardScopeOf(op.scopeName) : std::string_view(), op.startNs);
    if (m_rec.options().recordShapes && op.inputs) {
        for (const engine::Tensor& t : *op.inputs) {
            if (t.defined())
                m_rec.addInput(token, t.shape().data(), t.shape().size(),
                               engine::dtypeName(t.dtype()));
            else
                m_rec.addInput(token, nullptr, 0, "undefined");
        }
    }
    if (!op.attrs.empty()) m_rec.setAttrs(token, op.attrs);
    m_ops.push_back({token, m_allocated, m_freed, m_rec.recordedAllocations()});
}

void ProfilerObserver::onOpEnd(const engine::OpEvent& op) {
    if (m_ops.empty()) return;
    const OpFrame f = m_ops.back();
    m_ops.pop_back();
    if (op.outputs && !m_live.empty()) {
        size_t k = 0;
        for (const engine::Tensor& t : *op.outputs) {
            if (t.defined() && k < std::size(kOutputNames)) {
                const int64_t h = m_live.find(t.raw());
                if (h >= f.firstAlloc)
                    m_rec.describe(h, kOutputNames[k], t.shape().data(), t.shape().size());
            }
            ++k;
        }
    }
    if (!op.endAttrs.empty()) m_rec.addAttrs(f.token, op.endAttrs);
    m_rec.opEnd(f.token, m_allocated - f.allocated, m_freed - f.freed, op.endNs);
}

void ProfilerObserver::onOpError(const engine::OpEvent& op, const std::string& /*what*/) {
    onOpEnd(op);
}

void ProfilerObserver::onMemory(const engine::MemoryEvent& ev) {
    if (!m_rec.options().profileMemory) return;
    const auto bytes = static_cast<int64_t>(ev.bytes);
    const bool recording = m_rec.recording();
    if (!recording && (ev.alloc || m_live.empty())) return;
    const int64_t t = m_rec.now();  // one clock read for the block and the counters
    if (ev.alloc) {
        m_allocated += bytes;
        const int64_t h = m_rec.allocation(bytes, t);
        if (h >= 0) m_live.set(ev.ptr, h);
    } else {
        if (const int64_t h = m_live.take(ev.ptr); h >= 0) m_rec.release(h, t);
        if (!recording) return;
        m_freed += bytes;
    }
    m_rec.counter(Counter::MemoryInUse, static_cast<double>(ev.inUse), t);
    if (ev.reserved != m_lastReserved) {
        m_lastReserved = ev.reserved;
        m_rec.counter(Counter::MemoryPool, static_cast<double>(ev.reserved), t);
    }
}

}  // namespace ts::profiler
