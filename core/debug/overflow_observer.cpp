#include "core/debug/overflow_observer.h"

#include <chrono>
#include <cstdio>

#include "core/common/clock.h"
#include "core/debug/dump_observer.h"
#include "core/engine/device/device.h"
#include "core/log/logger.h"

namespace ts::debug {
namespace {

std::string countsText(const NonFiniteCounts& c) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "nan=%llu +inf=%llu -inf=%llu",
                  static_cast<unsigned long long>(c.nan), static_cast<unsigned long long>(c.posinf),
                  static_cast<unsigned long long>(c.neginf));
    return buf;
}

}  // namespace

NonFiniteCounts countNonFinite(const engine::Tensor& tensor) {
    if (!tensor.defined() || !tensor.raw()) return {};
    const engine::Tensor t = engine::toHost(tensor);  // a device tensor is read back
    const auto n = static_cast<size_t>(t.numel());
    switch (t.dtype()) {
        case engine::DType::Float32:
            return countNonFiniteF32(t.data<float>(), n);
        case engine::DType::Float16:
            return countNonFiniteF16(t.data<uint16_t>(), n);
        default:
            return {};
    }
}

OverflowObserver::OverflowObserver(OverflowOptions options, OverflowSink* sink,
                                   std::function<void(const std::string&)> stop)
    : m_options(std::move(options)), m_sink(sink), m_stop(std::move(stop)) {}

OverflowObserver::~OverflowObserver() {
    closeDump();
}

void OverflowObserver::onStepBegin(const engine::StepInfo& step) {
    m_inStep = true;
    m_step = step.step;
    m_typeCount.clear();
    m_stepFindings = 0;
    m_stepGradCounts = {};
    m_globalSeq = 0;
}

void OverflowObserver::onStepEnd(const engine::StepInfo& /*step*/) {
    m_inStep = false;
    if (m_stepFindings > static_cast<uint64_t>(m_options.maxRecordedPerStep))
        TS_LOG(DEBUG, WARNING) << "overflow check: step " << m_step << " had " << m_stepFindings
                               << " tensors with NaN/Inf; the first "
                               << m_options.maxRecordedPerStep << " were recorded";
    closeDump();
    if (m_sink) m_sink->flush();
}

void OverflowObserver::onOpBegin(engine::OpEvent& op) {
    int64_t seqid = -1;
    if (m_inStep) {
        auto it = m_typeCount.find(op.opType);
        if (it == m_typeCount.end()) it = m_typeCount.emplace(std::string(op.opType), 0).first;
        seqid = it->second++;
    }
    m_seqids.push_back(seqid);
}

void OverflowObserver::onOpError(const engine::OpEvent& /*op*/, const std::string& /*what*/) {
    if (!m_seqids.empty()) m_seqids.pop_back();
}

void OverflowObserver::onOpEnd(const engine::OpEvent& op) {
    if (m_seqids.empty()) return;
    const int64_t seqid = m_seqids.back();
    m_seqids.pop_back();
    if (seqid < 0 || !op.outputs) return;
    bool found = false;
    for (size_t i = 0; i < op.outputs->size(); ++i) {
        const NonFiniteCounts c = countNonFinite((*op.outputs)[i]);
        ++m_summary.checkedTensors;
        if (!c.any()) continue;
        found = true;
        if (op.backward) m_stepGradCounts += c;
        report(op, seqid, "output/" + std::to_string(i), c);
    }
    if (found) {
        if (!m_options.dumpDir.empty() && m_dumpedOps < m_options.maxDumpedOps) dumpOp(op, seqid);
        if (m_options.stopOnFirst && !m_stopped && m_stop) {
            m_stopped = true;
            const OverflowRecord& f = m_summary.first;
            m_stop("overflow: " + countsText({f.nan, f.posinf, f.neginf}) + " in " + f.tensor +
                   " of " + f.op + "/" + std::to_string(f.seqid) + " (" + f.scope + ") at step " +
                   std::to_string(f.step));
        }
    }
}

void OverflowObserver::report(const engine::OpEvent& op, int64_t seqid, const std::string& tensor,
                              const NonFiniteCounts& c) {
    ++m_summary.findings;
    ++m_stepFindings;
    OverflowRecord r;
    r.step = m_step;
    r.op = std::string(op.opType);
    r.scope = op.scopeName;
    r.seqid = seqid;
    r.tensor = tensor;
    r.nan = c.nan;
    r.posinf = c.posinf;
    r.neginf = c.neginf;
    r.origin = "op";
    r.ts = nowNs();
    if (!m_summary.hasFirst) {
        m_summary.hasFirst = true;
        m_summary.first = r;
    }
    if (m_stepFindings > static_cast<uint64_t>(m_options.maxRecordedPerStep)) return;
    if (m_stepFindings <= 8)
        TS_LOG(DEBUG, WARNING) << "overflow at step " << m_step << ": " << countsText(c) << " in "
                               << tensor << " of " << r.op << "/" << seqid << " (" << r.scope
                               << ")";
    ++m_summary.recorded;
    if (m_sink) m_sink->add(r);
}

void OverflowObserver::dumpOp(const engine::OpEvent& op, int64_t seqid) {
    if (!m_writer.isOpen()) {
        std::string path = m_options.dumpDir;
        path += "/overflow_step";
        path += std::to_string(m_step);
        path += ".h5";
        if (auto s = m_writer.open(path); !s) {
            if (m_summary.errors.size() < 8) m_summary.errors.push_back(s.error());
            m_options.dumpDir.clear();  // do not retry every op
            return;
        }
    }
    ++m_dumpedOps;
    const int64_t g = m_globalSeq++;
    Status s = writeOpTensors(m_writer, op, seqid, true, g);
    if (s) s = writeOpTensors(m_writer, op, seqid, false, g);
    if (!s && m_summary.errors.size() < 8) m_summary.errors.push_back(s.error());
}

void OverflowObserver::closeDump() {
    if (!m_writer.isOpen()) return;
    const std::string path = m_writer.path();
    if (auto s = m_writer.close(); !s && m_summary.errors.size() < 8)
        m_summary.errors.push_back(s.error());
    m_summary.dumpFiles.push_back(path);
    if (m_sink) m_sink->dumpFile(path, m_step);
}

void OverflowObserver::onOverflow(const engine::StepInfo& step, double newScale) {
    ++m_summary.lossScaleSteps;
    OverflowRecord r;
    r.step = step.step;
    r.op = "LossScale";
    char buf[128];
    std::snprintf(buf, sizeof buf, "gradients overflowed: step skipped, loss scale now %g",
                  newScale);
    r.scope = buf;
    r.tensor = "gradients";
    r.nan = m_stepGradCounts.nan;
    r.posinf = m_stepGradCounts.posinf;
    r.neginf = m_stepGradCounts.neginf;
    r.origin = "loss_scale";
    r.ts = nowNs();
    TS_LOG(DEBUG, WARNING) << "overflow at step " << step.step << ": " << buf;
    if (m_sink) m_sink->add(r);
}

void OverflowObserver::onRunEnd(const std::string& /*status*/, const std::string& /*reason*/) {
    closeDump();
    if (m_sink) m_sink->flush();
}

}  // namespace ts::debug
