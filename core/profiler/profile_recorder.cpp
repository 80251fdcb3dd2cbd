#include "core/profiler/profile_recorder.h"

#include <chrono>

#include "core/store/store_writer.h"

namespace ts::profiler {

const char* phaseName(Phase p) {
    switch (p) {
        case Phase::DataLoading: return "DataLoading";
        case Phase::Forward: return "Forward";
        case Phase::Backward: return "Backward";
        case Phase::Optimizer: return "Optimizer";
        case Phase::Callbacks: return "Callbacks";
    }
    return "Phase";
}

const char* counterName(Counter c) {
    switch (c) {
        case Counter::MemoryInUse: return "Memory In Use (bytes)";
        case Counter::MemoryPool: return "Memory Pool (bytes)";
        case Counter::SamplesPerSecond: return "samples/s";
        case Counter::Loss: return "loss";
        case Counter::LossScale: return "loss scale";
    }
    return "counter";
}

namespace {

int64_t steadyNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void appendJsonString(std::string& out, std::string_view s) {
    out += '"';
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            static const char* hex = "0123456789abcdef";
            out += "\\u00";
            out += hex[(c >> 4) & 0xf];
            out += hex[c & 0xf];
        } else {
            out += c;
        }
    }
    out += '"';
}

}  // namespace

ProfileRecorder::ProfileRecorder(ProfilerOptions options)
    : m_options(options), m_epochWallNs(store::nowNs()), m_epochSteadyNs(steadyNs()) {
    m_strings.emplace_back();  // id 0 = ""
    m_stringIds.emplace("", 0);
}

int64_t ProfileRecorder::now() const { return m_epochWallNs + (steadyNs() - m_epochSteadyNs); }

uint32_t ProfileRecorder::intern(std::string_view s) {
    auto it = m_stringIds.find(std::string(s));
    if (it != m_stringIds.end()) return it->second;
    const auto id = static_cast<uint32_t>(m_strings.size());
    m_strings.emplace_back(s);
    m_stringIds.emplace(m_strings.back(), id);
    return id;
}

int64_t ProfileRecorder::push(Kind kind, uint32_t name) {
    Slice s;
    s.ts = now();
    s.name = name;
    s.kind = kind;
    s.depth = static_cast<int32_t>(m_stack.size());
    m_slices.push_back(s);
    const auto index = static_cast<int64_t>(m_slices.size()) - 1;
    m_stack.push_back(index);
    return index;
}

void ProfileRecorder::close(int64_t index) {
    // Close everything opened inside `index` too (an exception may have skipped their ends).
    const int64_t t = now();
    while (!m_stack.empty()) {
        const int64_t top = m_stack.back();
        m_stack.pop_back();
        m_slices[top].dur = t - m_slices[top].ts;
        if (top == index) break;
    }
}

void ProfileRecorder::stepBegin(int64_t step) {
    const auto action = m_options.schedule.actionFor(step);
    m_recording = action == ProfileSchedule::Action::Record;
    m_forwardBySeq.clear();
    if (!m_recording) return;
    ++m_recordedSteps;
    push(Kind::Step, intern("ProfilerStep#" + std::to_string(step)));
}

void ProfileRecorder::stepEnd() {
    if (!m_recording) return;
    if (!m_stack.empty()) close(m_stack.front());
    m_recording = false;
}

void ProfileRecorder::phaseBegin(Phase p) {
    if (m_recording) push(Kind::Phase, intern(phaseName(p)));
}

void ProfileRecorder::phaseEnd() {
    if (!m_recording) return;
    for (auto it = m_stack.rbegin(); it != m_stack.rend(); ++it) {
        if (m_slices[*it].kind == Kind::Phase) {
            close(*it);
            return;
        }
    }
}

int64_t ProfileRecorder::opBegin(std::string_view opType, std::string_view scope, int64_t seqid,
                                 bool backward, int64_t forwardSeqId,
                                 const std::vector<std::vector<int64_t>>& inputShapes,
                                 const std::vector<std::string_view>& inputDtypes) {
    if (!m_recording) return -1;
    const int64_t index = push(Kind::Op, intern(opType));
    Slice& s = m_slices[index];
    s.scope = intern(scope);
    s.seqid = seqid;
    s.backward = backward;
    if (m_options.recordShapes) {
        s.hasShapes = true;
        s.shapesBegin = static_cast<uint32_t>(m_dims.size());
        m_dims.push_back(static_cast<int64_t>(inputShapes.size()));
        for (const auto& shape : inputShapes) {
            m_dims.push_back(static_cast<int64_t>(shape.size()));
            m_dims.insert(m_dims.end(), shape.begin(), shape.end());
        }
        s.dtypesBegin = static_cast<uint32_t>(m_dtypeRefs.size());
        m_dtypeRefs.push_back(static_cast<uint32_t>(inputDtypes.size()));
        for (auto d : inputDtypes) m_dtypeRefs.push_back(intern(d));
    }
    if (!backward && seqid >= 0) m_forwardBySeq[seqid] = index;
    if (backward && forwardSeqId >= 0) {
        if (auto it = m_forwardBySeq.find(forwardSeqId); it != m_forwardBySeq.end())
            m_flows.emplace_back(it->second, index);
    }
    return index;
}

void ProfileRecorder::opEnd(int64_t token, int64_t allocBytes, int64_t freeBytes) {
    if (token < 0 || token >= static_cast<int64_t>(m_slices.size())) return;
    m_slices[token].allocBytes = allocBytes;
    m_slices[token].freeBytes = freeBytes;
    close(token);
}

void ProfileRecorder::counter(Counter c, double value) {
    if (m_recording) m_counters.push_back({c, now(), value});
}

int64_t ProfileRecorder::allocation(int64_t bytes, std::string_view tensor,
                                    const std::vector<int64_t>& shape) {
    if (!m_recording || !m_options.profileMemory) return -1;
    Alloc a;
    a.ts = now();
    a.bytes = bytes;
    for (auto it = m_stack.rbegin(); it != m_stack.rend(); ++it) {
        if (m_slices[*it].kind == Kind::Op) {
            a.op = m_slices[*it].name;
            break;
        }
    }
    a.tensor = intern(tensor);
    a.shapeBegin = static_cast<uint32_t>(m_dims.size());
    m_dims.push_back(static_cast<int64_t>(shape.size()));
    m_dims.insert(m_dims.end(), shape.begin(), shape.end());
    m_allocs.push_back(a);
    return static_cast<int64_t>(m_allocs.size()) - 1;
}

void ProfileRecorder::release(int64_t handle) {
    if (handle >= 0 && handle < static_cast<int64_t>(m_allocs.size()) && m_allocs[handle].freeTs < 0)
        m_allocs[handle].freeTs = now();
}

namespace {

void appendShape(std::string& out, const std::vector<int64_t>& dims, size_t& pos) {
    const int64_t rank = dims[pos++];
    out += '[';
    for (int64_t d = 0; d < rank; ++d) {
        if (d) out += ',';
        out += std::to_string(dims[pos++]);
    }
    out += ']';
}

}  // namespace

std::string ProfileRecorder::opArgs(const Slice& s) const {
    std::string out = "{\"scope\":";
    appendJsonString(out, m_strings[s.scope]);
    out += ",\"seqid\":" + std::to_string(s.seqid);
    out += ",\"backward\":";
    out += s.backward ? "true" : "false";
    if (s.hasShapes) {
        size_t pos = s.shapesBegin;
        const int64_t n = m_dims[pos++];
        out += ",\"Input Dims\":[";
        for (int64_t i = 0; i < n; ++i) {
            if (i) out += ',';
            appendShape(out, m_dims, pos);
        }
        out += "],\"Input type\":[";
        size_t dpos = s.dtypesBegin;
        const uint32_t nd = m_dtypeRefs[dpos++];
        for (uint32_t i = 0; i < nd; ++i) {
            if (i) out += ',';
            appendJsonString(out, m_strings[m_dtypeRefs[dpos++]]);
        }
        out += ']';
    }
    if (m_options.profileMemory) {
        out += ",\"alloc_bytes\":" + std::to_string(s.allocBytes);
        out += ",\"free_bytes\":" + std::to_string(s.freeBytes);
    }
    out += '}';
    return out;
}

Result<int64_t> ProfileRecorder::writeTo(store::TraceStore& store, int64_t runId,
                                         const std::string& label) {
    if (!m_stack.empty()) close(m_stack.front());
    m_recording = false;
    auto src = store.beginSource(label, "profiler");
    if (!src) return Error{src.error()};
    store::SourceSummary sum;
    {
        store::StoreWriter w(store, src.value());
        const int64_t proc = w.addProcess("trainscope", "TrainScope engine");
        const int64_t track = w.addTrack("thread", proc, w.addThread(proc, "engine", "engine"), "engine");
        const int64_t catStep = w.intern("step"), catPhase = w.intern("phase"),
                      catOp = w.intern("cpu_op");
        std::vector<int64_t> ids(m_slices.size());
        for (size_t i = 0; i < m_slices.size(); ++i) {
            const Slice& s = m_slices[i];
            store::SliceRow row;
            row.trackId = track;
            row.ts = s.ts;
            row.dur = s.dur < 0 ? 0 : s.dur;
            row.depth = s.depth;
            row.nameId = w.intern(m_strings[s.name]);
            row.catId = s.kind == Kind::Step ? catStep : s.kind == Kind::Phase ? catPhase : catOp;
            if (s.kind == Kind::Op) row.argSetId = w.addArgs(opArgs(s));
            ids[i] = w.addSlice(row);
            if (!sum.tsMin || s.ts < *sum.tsMin) sum.tsMin = s.ts;
            if (!sum.tsMax || s.ts + row.dur > *sum.tsMax) sum.tsMax = s.ts + row.dur;
        }
        const int64_t flowName = w.intern("fwd_bwd");
        for (const auto& [f, b] : m_flows) w.addFlow(ids[f], ids[b], flowName, flowName);

        int64_t counterTracks[5] = {0, 0, 0, 0, 0};
        for (const CounterSample& c : m_counters) {
            int64_t& t = counterTracks[static_cast<int>(c.c)];
            if (t == 0) t = w.addTrack("counter", proc, 0, counterName(c.c));
            w.addCounter(t, c.ts, c.value);
        }
        if (!m_allocs.empty()) {
            const int64_t allocTrack =
                w.addTrack("thread", proc, w.addThread(proc, "allocations", "Allocations"),
                           "Allocations");
            const int64_t allocName = w.intern("alloc"), memCat = w.intern("memory");
            for (const Alloc& a : m_allocs) {
                std::string args = "{\"bytes\":" + std::to_string(a.bytes) + ",\"op\":";
                appendJsonString(args, m_strings[a.op]);
                args += ",\"tensor\":";
                appendJsonString(args, m_strings[a.tensor]);
                args += ",\"shape\":";
                size_t pos = a.shapeBegin;
                appendShape(args, m_dims, pos);
                args += ",\"free_ts\":" + (a.freeTs < 0 ? std::string("null") : std::to_string(a.freeTs)) + "}";
                w.addInstant(allocTrack, a.ts, allocName, memCat, 't', w.addArgs(args));
            }
        }
        if (auto s = w.flush(); !s) return Error{s.error()};
        if (!w.error().empty()) return Error{w.error()};
    }
    sum.status = "complete";
    sum.slices = static_cast<int64_t>(m_slices.size());
    sum.events = sum.slices + static_cast<int64_t>(m_counters.size() + m_allocs.size() + m_flows.size());
    sum.statsJson = "{\"steps\":" + std::to_string(m_recordedSteps) +
                    ",\"slices\":" + std::to_string(m_slices.size()) +
                    ",\"counter_samples\":" + std::to_string(m_counters.size()) +
                    ",\"flows\":" + std::to_string(m_flows.size()) +
                    ",\"instants\":" + std::to_string(m_allocs.size()) + "}";
    if (auto s = store.finishSource(src.value(), sum); !s) return Error{s.error()};
    if (runId > 0)
        if (auto s = store.setRunProfileSource(runId, src.value()); !s) return Error{s.error()};
    m_slices.clear();
    m_stack.clear();
    m_dims.clear();
    m_dtypeRefs.clear();
    m_allocs.clear();
    m_counters.clear();
    m_flows.clear();
    m_forwardBySeq.clear();
    return src.value();
}

}  // namespace ts::profiler
