#include "core/debug/dump_observer.h"

#include <chrono>

#include "core/common/clock.h"
#include "core/engine/device/device.h"
#include "core/log/logger.h"

namespace ts::debug {
namespace {

constexpr size_t kMaxErrors = 8;

}  // namespace

DumpDType dumpDTypeOf(engine::DType t) {
    switch (t) {
        case engine::DType::Float32:
            return DumpDType::F32;
        case engine::DType::Float16:
            return DumpDType::F16;
        case engine::DType::Int32:
            return DumpDType::I32;
        case engine::DType::Int64:
            return DumpDType::I64;
        case engine::DType::UInt8:
            return DumpDType::U8;
    }
    return DumpDType::F32;
}

Status writeOpTensors(DumpWriter& w, const engine::OpEvent& op, int64_t seqid, bool inputs,
                      int64_t globalSeq) {
    const std::vector<engine::Tensor>* ts = inputs ? op.inputs : op.outputs;
    if (!ts) return {};
    DumpTensorAttrs at;
    at.opType = std::string(op.opType);
    at.scope = op.scopeName;
    at.step = op.step;
    at.wallTime = wallSeconds();
    at.globalSeq = globalSeq;
    at.backward = op.backward;
    const std::string opName(op.opType);
    for (size_t i = 0; i < ts->size(); ++i) {
        if (!(*ts)[i].defined()) continue;                  // e.g. a gradient an input did not need
        const engine::Tensor t = engine::toHost((*ts)[i]);  // a device tensor is read back
        if (auto s = w.writeTensor(opName, seqid, inputs ? "input" : "output", static_cast<int>(i),
                                   dumpDTypeOf(t.dtype()), t.shape(), t.raw(), at);
            !s)
            return s;
    }
    return {};
}

DumpObserver::DumpObserver(DumpConfig config) : m_config(std::move(config)) {}

DumpObserver::~DumpObserver() {
    closeFile();
}

Status DumpObserver::open() {
    if (m_config.loadFilePath.empty()) return {};
    auto l = DumpLoader::open(m_config.loadFilePath);
    if (!l) return Error{l.error()};
    m_loader = std::move(l.value());
    return {};
}

bool DumpObserver::stepWanted(int64_t step) const {
    return m_config.steps.empty() || m_config.steps.count(step) > 0;
}

void DumpObserver::fail(std::string message) {
    TS_LOG(DEBUG, WARNING) << "dump: " << message;
    if (m_summary.errors.size() < kMaxErrors) m_summary.errors.push_back(std::move(message));
}

void DumpObserver::onStepBegin(const engine::StepInfo& step) {
    m_inStep = true;
    m_step = step.step;
    m_stepWanted = stepWanted(step.step);
    if (m_stepWanted && m_config.filePerStep) {
        closeFile();
        m_typeCount.clear();  // seqids restart in every per-step file
        m_globalSeq = 0;
    }
}

void DumpObserver::onStepEnd(const engine::StepInfo& /*step*/) {
    m_inStep = false;
    if (m_config.filePerStep) closeFile();
}

bool DumpObserver::ensureFile(int64_t step) {
    if (m_failed) return false;
    if (m_writer.isOpen()) return true;
    const std::string path = m_config.fileForStep(step);
    if (auto s = m_writer.open(path); !s) {
        m_failed = true;
        fail(s.error() + " (dumping stopped)");
        return false;
    }
    m_fileStep = m_config.filePerStep ? step : -1;
    return true;
}

void DumpObserver::closeFile() {
    if (!m_writer.isOpen()) return;
    const std::string path = m_writer.path();
    m_summary.bytes += m_writer.bytesWritten();
    if (auto s = m_writer.close(); !s) fail(s.error());
    m_summary.files.emplace_back(path, m_fileStep);
}

void DumpObserver::onOpBegin(engine::OpEvent& op) {
    OpFrame f;
    if (m_inStep && m_stepWanted) {
        auto it = m_typeCount.find(op.opType);
        if (it == m_typeCount.end()) it = m_typeCount.emplace(std::string(op.opType), 0).first;
        f.seqid = it->second++;
        f.globalSeq = m_globalSeq++;
        f.wanted = !m_failed && m_config.wantsOp(op.scopeName, std::string(op.opType), m_step);
    }
    if (f.seqid >= 0 && m_loader && op.inputs) {
        for (size_t i = 0; i < op.inputs->size(); ++i) {
            engine::Tensor& live = (*op.inputs)[i];
            if (!live.defined()) continue;
            engine::Tensor rec;
            std::string why;
            switch (m_loader->load(std::string(op.opType), f.seqid, static_cast<int>(i), live, rec,
                                   &why)) {
                case DumpLoader::Outcome::Loaded:
                    live = std::move(rec);
                    ++m_summary.loadedInputs;
                    break;
                case DumpLoader::Outcome::Mismatch:
                    ++m_summary.loadMismatches;
                    fail("load: " + why);
                    break;
                case DumpLoader::Outcome::Absent:
                    break;
            }
        }
    }
    if (f.wanted && m_config.wantsInputs() && ensureFile(m_step)) {
        const auto t0 = std::chrono::steady_clock::now();
        if (auto s = writeOpTensors(m_writer, op, f.seqid, true, f.globalSeq); !s) fail(s.error());
        m_summary.writeSeconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        m_summary.tensors += op.inputs ? op.inputs->size() : 0;
    }
    m_ops.push_back(f);
}

void DumpObserver::onOpEnd(const engine::OpEvent& op) {
    if (m_ops.empty()) return;
    const OpFrame f = m_ops.back();
    m_ops.pop_back();
    if (!f.wanted || !m_config.wantsOutputs() || !ensureFile(m_step)) return;
    const auto t0 = std::chrono::steady_clock::now();
    if (auto s = writeOpTensors(m_writer, op, f.seqid, false, f.globalSeq); !s) fail(s.error());
    m_summary.writeSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m_summary.tensors += op.outputs ? op.outputs->size() : 0;
}

void DumpObserver::onOpError(const engine::OpEvent& /*op*/, const std::string& /*what*/) {
    if (!m_ops.empty()) m_ops.pop_back();
}

void DumpObserver::onRunEnd(const std::string& /*status*/, const std::string& /*reason*/) {
    closeFile();
}

const DumpSummary& DumpObserver::finish() {
    closeFile();
    return m_summary;
}

}  // namespace ts::debug
