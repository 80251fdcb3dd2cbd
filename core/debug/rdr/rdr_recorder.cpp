#include "core/debug/rdr/rdr_recorder.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/debug/rdr/rdr_fd_writer.h"
#include "core/debug/rdr/rdr_slots.h"

namespace ts::rdr {
namespace {

std::string shapeText(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ',';
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

void copy(char* dst, size_t cap, const std::string& s) {
    copyField(dst, cap, s.data(), s.size(), true);
}

}  // namespace

RunningDataRecorder::RunningDataRecorder(RdrLimits limits) : m_limits(limits), m_slots(new Slots) {
    auto& s = *m_slots;
    s.opCap = limits.opsPerStep ? limits.opsPerStep : 1;
    s.allocCap = limits.allocations ? limits.allocations : 1;
    s.logCap = limits.logLines ? limits.logLines : 1;
    s.irCap = limits.irBytes;
    for (auto& r : s.rings) r.slots.reset(new OpSlot[s.opCap]);
    s.allocs.reset(new AllocSlot[s.allocCap]);
    s.logs.reset(new LogSlot[s.logCap]);
    s.ir[0].reset(new char[s.irCap + 1]);
    s.ir[1].reset(new char[s.irCap + 1]);
}

RunningDataRecorder::~RunningDataRecorder() {
    uninstallFatalSignalHandlers();
}

void RunningDataRecorder::configure(const RdrConfig& config) {
    std::lock_guard lock(m_mutex);
    m_config = config;
    m_slots->mode = config.mode;
    m_slots->rankId = config.rankId;
    renderExportDir();
    m_slots->enabled = config.enable && !config.path.empty();
}

RdrConfig RunningDataRecorder::config() const {
    std::lock_guard lock(m_mutex);
    return m_config;
}

void RunningDataRecorder::renderExportDir() {
    const std::string dir = m_config.path.empty() ? std::string() : m_config.exportDir();
    copyField(m_slots->exportDir, sizeof(m_slots->exportDir), dir.data(), dir.size(), false);
}

void RunningDataRecorder::reset() {
    std::lock_guard lock(m_mutex);
    auto& s = *m_slots;
    for (auto& r : s.rings) {
        r.count = 0;
        r.epoch = -1;
        r.step = -1;
    }
    s.allocCount = 0;
    m_allocAt.clear();
    s.logCount = 0;
    s.irLen = 0;
    s.runStateActive = -1;
    s.epoch = -1;
    s.step = -1;
    s.poolInUse = s.poolPeak = s.poolCapacity = 0;
}

void RunningDataRecorder::setGraphIr(const std::string& irText) {
    std::lock_guard lock(m_mutex);
    auto& s = *m_slots;
    const int next = 1 - s.irActive.load();
    const size_t n = std::min(irText.size(), s.irCap);
    std::memcpy(s.ir[next].get(), irText.data(), n);
    s.ir[next][n] = '\0';
    s.irLen = 0;
    s.irActive = next;
    s.irLen = n;
}

void RunningDataRecorder::appendGraphIr(std::string_view irText) {
    std::lock_guard lock(m_mutex);
    auto& s = *m_slots;
    const size_t len = s.irLen.load();
    const size_t n = std::min(irText.size(), s.irCap - len);
    if (n == 0) return;
    char* buf = s.ir[s.irActive.load()].get();
    std::memcpy(buf + len, irText.data(), n);
    buf[len + n] = '\0';
    s.irLen.store(len + n, std::memory_order_release);
}

void RunningDataRecorder::beginStep(int64_t epoch, int64_t step) {
    std::lock_guard lock(m_mutex);
    auto& s = *m_slots;
    const int next = 1 - s.current.load();
    OpRing& ring = s.rings[next];
    ring.count = 0;
    ring.epoch = epoch;
    ring.step = step;
    s.current = next;
    s.epoch = epoch;
    s.step = step;
}

void RunningDataRecorder::recordOp(int64_t seqid, const std::string& opType,
                                   const std::string& scopeName,
                                   const std::vector<RdrTensorDesc>& inputs,
                                   const std::vector<std::vector<int64_t>>& outputShapes) {
    std::string in, out;
    for (const auto& t : inputs) {
        if (!in.empty()) in += ' ';
        in += shapeText(t.shape) + ':' + (t.dtype.empty() ? "?" : t.dtype);
    }
    for (const auto& o : outputShapes) {
        if (!out.empty()) out += ' ';
        out += shapeText(o);
    }
    recordOp(seqid, std::string_view(opType), std::string_view(scopeName), in, out);
}

void RunningDataRecorder::recordOp(int64_t seqid, std::string_view opType,
                                   std::string_view scopeName, std::string_view inputsText,
                                   std::string_view outputsText) {
    std::lock_guard lock(m_mutex);
    auto& s = *m_slots;
    OpRing& ring = s.rings[s.current.load()];
    const uint64_t n = ring.count.load();
    OpSlot& slot = ring.slots[n % s.opCap];
    slot.seqid = seqid;
    copyField(slot.op, sizeof(slot.op), opType.data(), opType.size(), true);
    copyField(slot.scope, sizeof(slot.scope), scopeName.data(), scopeName.size(), true);
    copyField(slot.inputs, sizeof(slot.inputs), inputsText.data(), inputsText.size(), true);
    copyField(slot.outputs, sizeof(slot.outputs), outputsText.data(), outputsText.size(), true);
    ring.count.store(n + 1, std::memory_order_release);
}

void RunningDataRecorder::setLastOpOutputs(std::string_view outputsText) {
    std::lock_guard lock(m_mutex);
    auto& s = *m_slots;
    OpRing& ring = s.rings[s.current.load()];
    const uint64_t n = ring.count.load();
    if (n == 0) return;
    OpSlot& slot = ring.slots[(n - 1) % s.opCap];
    copyField(slot.outputs, sizeof(slot.outputs), outputsText.data(), outputsText.size(), true);
}

void RunningDataRecorder::recordAlloc(const std::string& tensorName, uint64_t bytes,
                                      uint64_t offset, int64_t timeNs) {
    std::lock_guard lock(m_mutex);
    auto& s = *m_slots;
    const uint64_t n = s.allocCount.load();
    AllocSlot& a = s.allocs[n % s.allocCap];
    copy(a.name, sizeof(a.name), tensorName);
    a.bytes = bytes;
    a.offset = offset;
    a.allocNs = timeNs;
    a.freeNs = -1;
    a.status = kAllocLive;
    s.allocCount.store(n + 1, std::memory_order_release);
    m_allocAt[offset] = n;
}

void RunningDataRecorder::recordFree(const std::string& tensorName, uint64_t offset,
                                     int64_t timeNs) {
    char name[sizeof(AllocSlot::name)];
    copy(name, sizeof(name), tensorName);
    std::lock_guard lock(m_mutex);
    auto& s = *m_slots;
    const uint64_t n = s.allocCount.load();
    if (auto it = m_allocAt.find(offset); it != m_allocAt.end()) {
        const uint64_t seq = it->second;
        AllocSlot& a = s.allocs[seq % s.allocCap];
        const bool kept = seq + s.allocCap >= n && a.offset == offset;
        if (kept && a.status == kAllocLive && (name[0] == '\0' || std::strcmp(a.name, name) == 0)) {
            a.freeNs = timeNs;
            a.status = kAllocFreed;
            m_allocAt.erase(it);
            return;
        }
        if (!kept || name[0] == '\0') {
            m_allocAt.erase(it);  // its row left the table, or it was freed already
            return;
        }
    }
    if (name[0] == '\0') return;
    // A named free that is not the latest allocation at this offset: look further back.
    const uint64_t kept = std::min<uint64_t>(n, s.allocCap);
    for (uint64_t i = 0; i < kept; ++i) {
        AllocSlot& a = s.allocs[(n - 1 - i) % s.allocCap];
        if (a.status == kAllocLive && a.offset == offset && std::strcmp(a.name, name) == 0) {
            a.freeNs = timeNs;
            a.status = kAllocFreed;
            return;
        }
    }
}

void RunningDataRecorder::renameAlloc(uint64_t offset, std::string_view tensorName) {
    std::lock_guard lock(m_mutex);
    auto& s = *m_slots;
    const auto it = m_allocAt.find(offset);
    if (it == m_allocAt.end()) return;
    const uint64_t seq = it->second;
    AllocSlot& a = s.allocs[seq % s.allocCap];
    if (seq + s.allocCap < s.allocCount.load() || a.offset != offset) return;
    copyField(a.name, sizeof(a.name), tensorName.data(), tensorName.size(), true);
}

void RunningDataRecorder::recordAllocFailure(const std::string& tensorName, uint64_t bytes,
                                             int64_t timeNs) {
    std::lock_guard lock(m_mutex);
    auto& s = *m_slots;
    const uint64_t n = s.allocCount.load();
    AllocSlot& a = s.allocs[n % s.allocCap];
    copy(a.name, sizeof(a.name), tensorName);
    a.bytes = bytes;
    a.offset = 0;
    a.allocNs = timeNs;
    a.freeNs = -1;
    a.status = kAllocFailed;
    s.allocCount.store(n + 1, std::memory_order_release);
}

void RunningDataRecorder::setPoolTotals(uint64_t inUse, uint64_t peak, uint64_t capacity) {
    m_slots->poolInUse = inUse;
    m_slots->poolPeak = peak;
    m_slots->poolCapacity = capacity;
}

void RunningDataRecorder::addLogLine(const std::string& line) {
    std::lock_guard lock(m_mutex);
    auto& s = *m_slots;
    const uint64_t n = s.logCount.load();
    LogSlot& l = s.logs[n % s.logCap];
    copyField(l.line, sizeof(l.line), line.data(), line.size(), false);
    for (char* p = l.line; *p; ++p)
        if (*p == '\n' || *p == '\r') *p = ' ';
    s.logCount.store(n + 1, std::memory_order_release);
}

void RunningDataRecorder::setRunState(const std::string& configJson, int64_t epoch, int64_t step,
                                      double loss, double lossScale) {
    std::lock_guard lock(m_mutex);
    auto& s = *m_slots;
    const int next = s.runStateActive.load() == 0 ? 1 : 0;
    RunStateText& t = s.runState[next];
    const int len = std::snprintf(t.text, sizeof(t.text), "loss: %.9g\nloss_scale: %.9g\nconfig:\n",
                                  loss, lossScale);
    const size_t used =
        len > 0 ? std::min<size_t>(static_cast<size_t>(len), sizeof(t.text) - 1) : 0;
    copyField(t.text + used, sizeof(t.text) - used, configJson.data(), configJson.size(), false);
    s.runStateActive = next;
    s.epoch = epoch;
    s.step = step;
}

Status RunningDataRecorder::exportNow(const std::string& reason, const std::string& failingOp,
                                      const std::string& detail) {
    std::lock_guard lock(m_mutex);
    if (!m_slots->enabled) return Error{"RDR is disabled; nothing exported"};
    copyField(m_slots->detail, sizeof(m_slots->detail), detail.data(), detail.size(), false);
    if (!writeExport(reason.c_str(), failingOp.c_str(), m_slots->detail, 0))
        return Error{std::string("RDR export to ") + m_slots->exportDir +
                     " failed: " + std::strerror(errno)};
    ++m_exports;
    return {};
}

Status RunningDataRecorder::onRunEnd(bool abnormal, const std::string& reason,
                                     const std::string& failingOp, const std::string& detail) {
    if (!config().exportsOn(abnormal)) return {};
    return exportNow(reason, failingOp, detail);
}

}  // namespace ts::rdr
