#include "core/debug/rdr/rdr_observer.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "core/engine/device/device.h"
#include "core/engine/tensor/dispatcher.h"
#include "core/engine/train/trainer.h"

namespace ts::rdr {
namespace {

void appendShape(std::string& out, const engine::Shape& s) {
    out += '[';
    for (size_t i = 0; i < s.size(); ++i) {
        if (i) out += ',';
        out += std::to_string(s[i]);
    }
    out += ']';
}

void appendDesc(std::string& out, const engine::Tensor& t) {
    if (!out.empty()) out += ' ';
    if (!t.defined()) {
        out += "None";
        return;
    }
    appendShape(out, t.shape());
    out += ':';
    out += engine::dtypeName(t.dtype());
}

// Exponent bits all set = Inf or NaN. Sixteen floats per iteration with GCC/Clang vector
// extensions in the target's native 16-byte width (the project builds at -O2, where such
// loops are not auto-vectorised; 32-byte vectors would be split into scalar code on SSE2).
bool floatsFinite(const float* p, int64_t n) {
    using V4 = int32_t __attribute__((vector_size(16)));
    constexpr int32_t kExp = 0x7f800000;
    const V4 exp = {kExp, kExp, kExp, kExp};
    int64_t i = 0;
    while (i + 16 <= n) {
        V4 bad0 = {}, bad1 = {}, bad2 = {}, bad3 = {};
        const int64_t end = std::min<int64_t>(n, i + 8192) - 15;  // blocks: early exit
        for (; i < end; i += 16) {
            V4 a, b, c, d;
            std::memcpy(&a, p + i, sizeof a);
            std::memcpy(&b, p + i + 4, sizeof b);
            std::memcpy(&c, p + i + 8, sizeof c);
            std::memcpy(&d, p + i + 12, sizeof d);
            bad0 |= (a & exp) == exp;
            bad1 |= (b & exp) == exp;
            bad2 |= (c & exp) == exp;
            bad3 |= (d & exp) == exp;
        }
        const V4 bad = bad0 | bad1 | bad2 | bad3;
        if (bad[0] | bad[1] | bad[2] | bad[3]) return false;
    }
    for (; i < n; ++i) {
        int32_t u;
        std::memcpy(&u, p + i, sizeof u);
        if ((u & kExp) == kExp) return false;
    }
    return true;
}

}  // namespace

bool tensorFinite(const engine::Tensor& tensor) {
    if (!tensor.defined() || !tensor.raw()) return true;
    const engine::Tensor t = engine::toHost(tensor);  // a device tensor is read back
    if (t.dtype() == engine::DType::Float32) return floatsFinite(t.f32(), t.numel());
    if (t.dtype() == engine::DType::Float16) {
        const auto* h = static_cast<const uint16_t*>(t.raw());
        for (int64_t i = 0, n = t.numel(); i < n; ++i)
            if ((h[i] & 0x7c00u) == 0x7c00u) return false;
    }
    return true;
}

RdrObserver::RdrObserver(RunningDataRecorder& recorder, engine::Trainer& trainer, bool checkFinite)
    : m_rec(recorder),
      m_trainer(trainer),
      m_checkFinite(checkFinite),
      m_lastLoss(std::numeric_limits<double>::quiet_NaN()) {}

void RdrObserver::onRunBegin(const std::string& configJson) {
    m_config = configJson.empty() ? "{}" : configJson;
    m_irStep = -1;
    m_opError = m_allocFailure = m_stepNonFinite = m_prevNonFinite = RdrOpRef{};
    m_allocFailed = false;
    m_peak = 0;
    m_poolCap = m_trainer.memoryPool().limit();
    m_rec.reset();
    if (const engine::Cell* net = m_trainer.network())
        m_rec.setGraphIr(m_ir.begin(*net, m_trainer.config().model));
    else
        m_rec.setGraphIr("# no network\n");
    m_rec.setRunState(m_config, 0, 0, m_lastLoss, m_trainer.lossScale());
}

void RdrObserver::onStepBegin(const engine::StepInfo& step) {
    m_step = step.step;
    m_epoch = step.epoch;
    m_inEval = false;
    if (m_irStep < 0) m_irStep = step.step;
    m_prevNonFinite = m_stepNonFinite;
    m_stepNonFinite = RdrOpRef{};
    m_rec.beginStep(step.epoch, step.step);
}

void RdrObserver::onStepEnd(const engine::StepInfo& step) {
    m_lastLoss = step.loss;
    m_rec.setRunState(m_config, step.epoch, step.step, step.loss, step.lossScale);
    if (step.step == m_irStep) m_rec.appendGraphIr("\n# end of the first training step\n");
}

void RdrObserver::onOverflow(const engine::StepInfo&, double) {
    // Loss scaling skipped this step: its Inf gradients are expected, not a failure.
    m_stepNonFinite = RdrOpRef{};
}

void RdrObserver::onPhaseBegin(engine::Phase phase) {
    m_phase = engine::phaseName(phase);
    m_phaseAllocs = 0;
    m_inForward = phase == engine::Phase::Forward;
}

void RdrObserver::onPhaseEnd(engine::Phase) {
    m_phase = nullptr;
    m_inForward = false;
}

std::string RdrObserver::inputsText(const engine::OpEvent& op) const {
    std::string s;
    if (op.inputs)
        for (const auto& t : *op.inputs) appendDesc(s, t);
    return s;
}

std::string RdrObserver::outputsText(const engine::OpEvent& op) {
    std::string s;
    if (op.outputs)
        for (const auto& t : *op.outputs) appendDesc(s, t);
    return s;
}

void RdrObserver::onOpBegin(engine::OpEvent& op) {
    if (!m_inEval && op.scopeName.find("WithEvalCell") != std::string::npos) {
        m_inEval = true;  // evaluation ops get their own order, after the last train step
        m_rec.beginStep(m_epoch, m_step);
    }
    m_opScope = op.scopeName;
    m_opType = std::string(op.opType);
    m_opSeq = op.seqId;
    m_opAllocs = 0;
    m_opAllocAddrs.clear();
    m_rec.recordOp(op.seqId, op.opType, op.scopeName, inputsText(op), std::string_view());
}

void RdrObserver::onOpEnd(const engine::OpEvent& op) {
    m_rec.setLastOpOutputs(outputsText(op));
    // Now that the outputs are known, name what the op allocated: outputs or workspaces.
    for (size_t k = 0; k < m_opAllocAddrs.size(); ++k) {
        const uint64_t addr = m_opAllocAddrs[k];
        std::string name = op.scopeName + ":workspace" + std::to_string(k);
        if (op.outputs)
            for (size_t j = 0; j < op.outputs->size(); ++j)
                if (reinterpret_cast<uintptr_t>((*op.outputs)[j].raw()) == addr)
                    name = op.scopeName + ":output" + std::to_string(j);
        m_rec.renameAlloc(addr, name);
    }
    m_opAllocAddrs.clear();
    if (m_irStep >= 0 && op.step == m_irStep && !m_inEval) m_rec.appendGraphIr(m_ir.opLines(op));
    if (m_checkFinite && m_inForward && !m_stepNonFinite.found() && op.outputs) {
        for (const auto& t : *op.outputs) {
            if (tensorFinite(t)) continue;
            m_stepNonFinite = {op.scopeName, std::string(op.opType), op.seqId, m_step,
                               blameInputs(op)};
            break;
        }
    }
    m_opScope.clear();
    m_opSeq = -1;
}

void RdrObserver::onOpError(const engine::OpEvent& op, const std::string& what) {
    if (!m_opError.found())
        m_opError = {op.scopeName, std::string(op.opType), op.seqId, m_step, what};
    if (m_irStep >= 0 && op.step == m_irStep && !m_inEval)
        m_rec.appendGraphIr(m_ir.opLines(op, what));
    m_opScope.clear();
    m_opSeq = -1;
}

void RdrObserver::onMemory(const engine::MemoryEvent& ev) {
    const int64_t now = engine::Dispatcher::nowNs();
    if (!ev.alloc) {
        m_rec.recordFree(std::string(), reinterpret_cast<uintptr_t>(ev.ptr), now);
    } else {
        std::string name;
        if (!m_opScope.empty()) {
            name = m_opScope + ":alloc" + std::to_string(m_opAllocs++);
            if (!ev.failed) m_opAllocAddrs.push_back(reinterpret_cast<uintptr_t>(ev.ptr));
        } else {
            name = m_phase ? m_phase : (m_inEval ? "Evaluation" : "OutsideOps");
            name += "#" + std::to_string(m_phaseAllocs++);
        }
        if (ev.failed) {
            m_rec.recordAllocFailure(name, ev.bytes, now);
            if (!m_allocFailed) {
                m_allocFailed = true;
                m_allocFailure = {m_opScope, m_opType, m_opSeq, m_step,
                                  "allocation of " + std::to_string(ev.bytes) + " bytes failed"};
            }
        } else {
            m_rec.recordAlloc(name, ev.bytes, reinterpret_cast<uintptr_t>(ev.ptr), now);
        }
    }
    if (static_cast<uint64_t>(ev.inUse) > m_peak) m_peak = static_cast<uint64_t>(ev.inUse);
    m_rec.setPoolTotals(static_cast<uint64_t>(ev.inUse), m_peak,
                        static_cast<uint64_t>(m_poolCap > 0 ? m_poolCap : ev.reserved));
}

std::string RdrObserver::blameInputs(const engine::OpEvent& op) const {
    std::string bad;
    if (op.inputs) {
        for (size_t i = 0; i < op.inputs->size(); ++i) {
            const engine::Tensor& t = (*op.inputs)[i];
            if (tensorFinite(t)) continue;
            std::string name = m_ir.parameterName(t);
            if (name.empty()) name = "input " + std::to_string(i);
            bad += (bad.empty() ? "" : ", ") + name;
        }
    }
    if (bad.empty()) return "its inputs were finite: the op itself overflowed";
    return "its input " + bad + " already held NaN/Inf";
}

RdrOpRef RdrObserver::nonFiniteOp() const {
    return m_stepNonFinite.found() ? m_stepNonFinite : m_prevNonFinite;
}

}  // namespace ts::rdr
