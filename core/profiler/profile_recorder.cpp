#include "core/profiler/profile_recorder.h"

#include <algorithm>

#include "core/common/clock.h"
#include "core/common/json.h"
#include "core/store/store_writer.h"

namespace ts::profiler {

const char* phaseName(Phase p) {
    switch (p) {
        case Phase::DataLoading:
            return "DataLoading";
        case Phase::Forward:
            return "Forward";
        case Phase::Backward:
            return "Backward";
        case Phase::Optimizer:
            return "Optimizer";
        case Phase::Callbacks:
            return "Callbacks";
    }
    return "Phase";
}

const char* counterName(Counter c) {
    switch (c) {
        case Counter::MemoryInUse:
            return "Memory In Use (bytes)";
        case Counter::MemoryPool:
            return "Memory Pool (bytes)";
        case Counter::SamplesPerSecond:
            return "samples/s";
        case Counter::Loss:
            return "loss";
        case Counter::LossScale:
            return "loss scale";
    }
    return "counter";
}

namespace {

/// The tid the "Allocations" pseudo-thread gets: above Linux's pid_max (2^22), so it never
/// clashes with a real thread of the process.
constexpr int64_t kAllocationsTid = (int64_t{1} << 22) + 1;

void appendShape(std::string& out, const std::vector<int64_t>& dims, size_t& pos) {
    const int64_t rank = dims[pos++];
    out += '[';
    for (int64_t d = 0; d < rank; ++d) {
        if (d) out += ',';
        out += std::to_string(dims[pos++]);
    }
    out += ']';
}

void appendField(std::string& out, const char* key, int64_t v) {
    out += ",\"";
    out += key;
    out += "\":";
    out += std::to_string(v);
}

}  // namespace

ProfileRecorder::ProfileRecorder(ProfilerOptions options)
    : m_options(options), m_epochWallNs(nowNs()), m_epochSteadyNs(steadyNs()) {
    m_strings.emplace_back();  // id 0 = ""
    m_stringIds.emplace("", 0);
}

int64_t ProfileRecorder::now() const {
    return fromSteady(steadyNs());
}

void ProfileRecorder::setThread(int64_t pid, int64_t tid, std::string threadName) {
    m_pid = pid;
    m_tid = tid;
    m_threadName = std::move(threadName);
}

uint32_t ProfileRecorder::internSlot(std::string_view s, size_t slot) {
    if (slot >= kTypeSlots + kScopeSlots) slot = kTypeSlots + kScopeSlots - 1;
    if (slot < kTypeSlots) slot %= kTypeSlots;
    uint32_t& cached = m_slots[slot];
    if (cached && m_strings[cached] == s) return cached;
    cached = intern(s);
    return cached;
}

uint32_t ProfileRecorder::intern(std::string_view s) {
    if (auto it = m_stringIds.find(s); it != m_stringIds.end()) return it->second;
    const auto id = static_cast<uint32_t>(m_strings.size());
    m_strings.emplace_back(s);
    m_stringIds.emplace(m_strings.back(), id);
    return id;
}

int64_t ProfileRecorder::push(Kind kind, uint32_t name, int64_t ts) {
    Slice s;
    s.ts = ts;
    s.name = name;
    s.kind = kind;
    s.depth = static_cast<int32_t>(m_stack.size());
    m_slices.push_back(s);
    const auto index = static_cast<int64_t>(m_slices.size()) - 1;
    m_stack.push_back(index);
    return index;
}

void ProfileRecorder::close(int64_t index, int64_t t) {
    // Close everything opened inside `index` too (an exception may have skipped their ends).
    while (!m_stack.empty()) {
        const int64_t top = m_stack.back();
        m_stack.pop_back();
        m_slices[top].dur = t - m_slices[top].ts;
        if (top == index) break;
    }
}

int64_t ProfileRecorder::innermostOp() const {
    for (auto it = m_stack.rbegin(); it != m_stack.rend(); ++it)
        if (m_slices[*it].kind == Kind::Op) return *it;
    return -1;
}

bool ProfileRecorder::overCap() const {
    return static_cast<int64_t>(m_slices.size() + m_allocs.size() + m_counters.size()) >=
           m_options.maxEvents;
}

void ProfileRecorder::stepBegin(int64_t scheduleIndex, int64_t number) {
    if (m_recording) stepEnd();  // a step that never ended (exception mid-step)
    const auto action = m_options.schedule.actionFor(scheduleIndex);
    m_recording = action == ProfileSchedule::Action::Record;
    m_forwardBySeq.clear();
    if (m_recording && overCap()) {
        m_recording = false;
        ++m_droppedSteps;
    }
    if (!m_recording) return;
    ++m_recordedSteps;
    if (m_slices.capacity() == 0) {  // spare the first steps the vector regrowth
        m_slices.reserve(8192);
        m_dims.reserve(32768);
        m_dtypeRefs.reserve(16384);
        m_allocs.reserve(8192);
        m_counters.reserve(16384);
    }
    std::string name = "ProfilerStep#";
    name += std::to_string(number);
    push(Kind::Step, intern(name), now());
}

void ProfileRecorder::stepEnd() {
    if (!m_recording) return;
    if (!m_stack.empty()) close(m_stack.front(), now());
    m_recording = false;
}

void ProfileRecorder::phaseBegin(Phase p) {
    if (m_recording) push(Kind::Phase, intern(phaseName(p)), now());
}

void ProfileRecorder::phaseEnd() {
    if (!m_recording) return;
    for (auto it = m_stack.rbegin(); it != m_stack.rend(); ++it) {
        if (m_slices[*it].kind == Kind::Phase) {
            close(*it, now());
            return;
        }
    }
}

int64_t ProfileRecorder::opBegin(std::string_view opType, std::string_view scope, int64_t seqid,
                                 bool backward, std::string_view forwardScope, int64_t steadyNs) {
    if (!m_recording) return -1;
    // Op types are mostly literals and scopes repeat per seqid from step to step: a checked
    // slot cache saves the hash lookup.
    const uint32_t name = internSlot(opType, reinterpret_cast<uintptr_t>(opType.data()) >> 3);
    const uint32_t scopeId =
        internSlot(scope, kTypeSlots + static_cast<size_t>(seqid < 0 ? 0 : seqid));
    const int64_t index = push(Kind::Op, name, steadyNs ? fromSteady(steadyNs) : now());
    Slice& s = m_slices[index];
    s.scope = scopeId;
    s.seqid = seqid;
    s.backward = backward;
    s.shapesBegin = static_cast<uint32_t>(m_dims.size());
    s.dtypesBegin = static_cast<uint32_t>(m_dtypeRefs.size());
    if (!backward) {
        // Forward ops of this step by scope id, stamped with the step (no per-op allocation).
        if (m_forwardByScope.size() <= scopeId) m_forwardByScope.resize(scopeId + 64, {-1, -1});
        m_forwardByScope[scopeId] = {m_recordedSteps, index};
    } else if (!forwardScope.empty()) {
        if (auto id = m_stringIds.find(forwardScope); id != m_stringIds.end())
            if (id->second < m_forwardByScope.size() &&
                m_forwardByScope[id->second].first == m_recordedSteps)
                m_flows.emplace_back(m_forwardByScope[id->second].second, index);
    }
    return index;
}

void ProfileRecorder::addInput(int64_t token, const int64_t* dims, size_t rank,
                               std::string_view dtype) {
    if (!m_options.recordShapes || token < 0 || token != static_cast<int64_t>(m_slices.size()) - 1)
        return;
    Slice& s = m_slices[static_cast<size_t>(token)];
    if (s.inputs == UINT16_MAX) return;
    ++s.inputs;
    m_dims.push_back(static_cast<int64_t>(rank));
    m_dims.insert(m_dims.end(), dims, dims + rank);
    m_dtypeRefs.push_back(internSlot(dtype, reinterpret_cast<uintptr_t>(dtype.data()) >> 3));
}

int64_t ProfileRecorder::opBegin(std::string_view opType, std::string_view scope, int64_t seqid,
                                 bool backward, int64_t forwardSeqId,
                                 const std::vector<std::vector<int64_t>>& inputShapes,
                                 const std::vector<std::string_view>& inputDtypes) {
    const int64_t index = opBegin(opType, scope, seqid, backward, std::string_view());
    if (index < 0) return index;
    if (!backward && seqid >= 0) m_forwardBySeq[seqid] = index;
    if (backward && forwardSeqId >= 0)
        if (auto it = m_forwardBySeq.find(forwardSeqId); it != m_forwardBySeq.end())
            m_flows.emplace_back(it->second, index);
    for (size_t i = 0; i < inputShapes.size(); ++i)
        addInput(index, inputShapes[i].data(), inputShapes[i].size(),
                 i < inputDtypes.size() ? inputDtypes[i] : std::string_view());
    return index;
}

void ProfileRecorder::setAttrs(int64_t token, std::string_view attrs) {
    if (token < 0 || token >= static_cast<int64_t>(m_slices.size()) || attrs.empty()) return;
    m_slices[token].attrs = intern(attrs);
}

void ProfileRecorder::addAttrs(int64_t token, std::string_view attrs) {
    if (token < 0 || token >= static_cast<int64_t>(m_slices.size()) || attrs.empty()) return;
    const uint32_t before = m_slices[token].attrs;
    if (before == UINT32_MAX) return setAttrs(token, attrs);
    std::string both = m_strings[before];  // a copy: intern() may grow m_strings
    both.append(1, ',').append(attrs);
    m_slices[token].attrs = intern(both);
}

void ProfileRecorder::opEnd(int64_t token, int64_t allocBytes, int64_t freeBytes,
                            int64_t steadyNs) {
    if (token < 0 || token >= static_cast<int64_t>(m_slices.size())) return;
    m_slices[token].allocBytes = allocBytes;
    m_slices[token].freeBytes = freeBytes;
    close(token, steadyNs ? fromSteady(steadyNs) : now());
}

void ProfileRecorder::counter(Counter c, double value, int64_t ts) {
    if (m_recording) m_counters.push_back({c, ts ? ts : now(), value});
}

int64_t ProfileRecorder::allocation(int64_t bytes, int64_t ts) {
    if (!m_recording || !m_options.profileMemory) return -1;
    Alloc a;
    a.ts = ts ? ts : now();
    a.bytes = bytes;
    if (const int64_t op = innermostOp(); op >= 0) {
        a.op = m_slices[op].name;
        a.scope = m_slices[op].scope;
        a.tensor = intern("(not an output)");  // describe() names the op's outputs
    } else if (!m_stack.empty()) {
        a.op = m_slices[m_stack.back()].name;  // outside ops: the phase (DataLoading, ...)
        a.tensor = intern("(outside ops)");
    }
    m_allocs.push_back(a);
    return static_cast<int64_t>(m_allocs.size()) - 1;
}

void ProfileRecorder::describe(int64_t handle, std::string_view tensor, const int64_t* dims,
                               size_t rank) {
    if (handle < 0 || handle >= static_cast<int64_t>(m_allocs.size())) return;
    Alloc& a = m_allocs[static_cast<size_t>(handle)];
    a.tensor = intern(tensor);
    a.shapeBegin = static_cast<int64_t>(m_dims.size());
    m_dims.push_back(static_cast<int64_t>(rank));
    m_dims.insert(m_dims.end(), dims, dims + rank);
}

int64_t ProfileRecorder::allocation(int64_t bytes, std::string_view tensor,
                                    const std::vector<int64_t>& shape) {
    const int64_t h = allocation(bytes);
    describe(h, tensor, shape.data(), shape.size());
    return h;
}

int64_t ProfileRecorder::resident(int64_t bytes, std::string_view op, std::string_view tensor,
                                  const std::vector<int64_t>& shape) {
    if (!m_options.profileMemory) return -1;
    Alloc a;
    a.ts = -1;  // placed at the start of the profile by writeTo()
    a.bytes = bytes;
    a.op = intern(op);
    m_allocs.push_back(a);
    const int64_t h = static_cast<int64_t>(m_allocs.size()) - 1;
    describe(h, tensor, shape.data(), shape.size());
    return h;
}

void ProfileRecorder::release(int64_t handle, int64_t ts) {
    if (handle >= 0 && handle < static_cast<int64_t>(m_allocs.size()) &&
        m_allocs[handle].freeTs < 0)
        m_allocs[handle].freeTs = ts ? ts : now();
}

std::string ProfileRecorder::opArgs(const Slice& s) const {
    std::string out = "{\"scope\":";
    json::appendQuoted(out, m_strings[s.scope]);
    appendField(out, "Sequence number", s.seqid);
    out += ",\"backward\":";
    out += s.backward ? "true" : "false";
    if (m_options.recordShapes) {
        size_t pos = s.shapesBegin;
        out += ",\"Input Dims\":[";
        for (uint16_t i = 0; i < s.inputs; ++i) {
            if (i) out += ',';
            appendShape(out, m_dims, pos);
        }
        out += "],\"Input type\":[";
        for (uint16_t i = 0; i < s.inputs; ++i) {
            if (i) out += ',';
            json::appendQuoted(out, m_strings[m_dtypeRefs[s.dtypesBegin + i]]);
        }
        out += ']';
    }
    if (m_options.profileMemory) {
        appendField(out, "alloc_bytes", s.allocBytes);
        appendField(out, "free_bytes", s.freeBytes);
    }
    if (s.attrs != UINT32_MAX) {
        out += ',';
        out += m_strings[s.attrs];
    }
    out += '}';
    return out;
}

std::string ProfileRecorder::allocArgs(const Alloc& a) const {
    std::string args = "{\"bytes\":" + std::to_string(a.bytes) + ",\"op\":";
    json::appendQuoted(args, m_strings[a.op]);
    if (a.scope) {
        args += ",\"scope\":";
        json::appendQuoted(args, m_strings[a.scope]);
    }
    args += ",\"tensor\":";
    json::appendQuoted(args, m_strings[a.tensor]);
    if (a.shapeBegin >= 0) {
        args += ",\"shape\":";
        size_t pos = static_cast<size_t>(a.shapeBegin);
        appendShape(args, m_dims, pos);
    }
    args += ",\"free_ts\":";
    args += a.freeTs < 0 ? std::string("null") : std::to_string(a.freeTs);
    args += '}';
    return args;
}

void ProfileRecorder::clear() {
    m_slices.clear();
    m_stack.clear();
    m_dims.clear();
    m_dtypeRefs.clear();
    m_allocs.clear();
    m_counters.clear();
    m_flows.clear();
    m_forwardByScope.clear();
    m_forwardBySeq.clear();
    m_out = Output{};
}

int64_t ProfileRecorder::firstTs() const {
    return m_slices.empty() ? 0 : m_slices.front().ts;
}

int64_t ProfileRecorder::lastTs() const {
    int64_t end = 0;
    for (const Slice& s : m_slices) end = std::max(end, s.ts + std::max<int64_t>(0, s.dur));
    return end;
}

std::string ProfileRecorder::opAt(int64_t ts) const {
    // Slices are kept in start order: the last one starting at or before ts is the op that
    // runs then, if it is an op and has not ended (ops do not nest). Outside an op, the
    // phase that runs then: work a device is given between ops (the batch gathered in
    // DataLoading, the gradient seed filled in Backward) is named by its phase.
    auto it = std::upper_bound(m_slices.begin(), m_slices.end(), ts,
                               [](int64_t t, const Slice& s) { return t < s.ts; });
    auto open = [ts](const Slice& s) { return s.dur < 0 || ts < s.ts + s.dur; };
    for (auto p = it; p != m_slices.begin();) {
        const Slice& s = *--p;
        if (s.kind == Kind::Op) {
            if (open(s)) return m_strings[s.scope];
            continue;  // an op that ended: look for the phase around it
        }
        if (s.kind == Kind::Phase && open(s)) return m_strings[s.name];
        if (s.kind != Kind::Op) return {};
    }
    return {};
}

// The source's process, threads and tracks, made by the first write.
void ProfileRecorder::openOutput(store::StoreWriter& w, const std::string& label) {
    Output& o = m_out;
    const std::string pid = m_pid ? std::to_string(m_pid) : std::string("trainscope");
    const std::string tid = m_tid ? std::to_string(m_tid) : std::string("engine");
    // "TrainScope engine · run 2 profile (lenet5)": runs of one session stay apart.
    std::string processName = "TrainScope engine";
    if (!label.empty()) processName += " \u00b7 " + label;
    o.process = w.addProcess(pid, processName);
    // Negative sort indexes put the training thread, then the allocations, above the
    // counter tracks (sort index 0) in the timeline and in Chrome/Perfetto.
    o.thread = w.addThread(o.process, tid, m_threadName, -2);
    o.track = w.addTrack("thread", o.process, o.thread, m_threadName, -2);
}

// Writes what is complete and not written yet: closed slices, their flows, the counter
// samples, and the allocations that were freed (`all`: every allocation, the live ones too).
void ProfileRecorder::writeRows(store::StoreWriter& w, bool all) {
    Output& o = m_out;
    const int64_t catStep = w.intern("step"), catPhase = w.intern("phase"),
                  catOp = w.intern("cpu_op");
    const size_t closed = m_stack.empty() ? m_slices.size() : static_cast<size_t>(m_stack.front());
    o.sliceIds.resize(m_slices.size(), 0);
    for (; o.slices < closed; ++o.slices) {
        const Slice& s = m_slices[o.slices];
        store::SliceRow row;
        row.trackId = o.track;
        row.ts = s.ts;
        row.dur = s.dur < 0 ? 0 : s.dur;
        row.depth = s.depth;
        row.nameId = w.intern(m_strings[s.name]);
        row.catId = s.kind == Kind::Step ? catStep : s.kind == Kind::Phase ? catPhase : catOp;
        if (s.kind == Kind::Op) row.argSetId = w.addArgs(opArgs(s));
        o.sliceIds[o.slices] = w.addSlice(row);
    }
    // Flow "fwdbwd" in the ops' category: viewers that bind a flow to the slice with the
    // same (ts, pid, tid, cat) — Chrome DevTools — find both ends; the others bind to the
    // enclosing slice anyway. Both ends lie in one step.
    const int64_t flowName = w.intern("fwdbwd");
    for (; o.flows < m_flows.size(); ++o.flows) {
        const auto [f, b] = m_flows[o.flows];
        if (static_cast<size_t>(std::max(f, b)) >= o.slices) break;
        w.addFlow(o.sliceIds[f], o.sliceIds[b], flowName, catOp);
    }
    for (; o.counters < m_counters.size(); ++o.counters) {
        const CounterSample& c = m_counters[o.counters];
        int64_t& t = o.counterTracks[static_cast<int>(c.c)];
        if (t == 0) t = w.addTrack("counter", o.process, 0, counterName(c.c));
        w.addCounter(t, c.ts, c.value);
    }
    o.allocWritten.resize(m_allocs.size(), false);
    const int64_t placeResidents = m_slices.empty() ? now() : m_slices.front().ts;
    for (size_t i = 0; i < m_allocs.size(); ++i) {
        const Alloc& a = m_allocs[i];
        if (o.allocWritten[i] || (!all && a.freeTs < 0)) continue;
        if (!o.allocTrack) {
            const int64_t allocThread =
                w.addThread(o.process, std::to_string(kAllocationsTid), "Allocations", -1);
            o.allocTrack = w.addTrack("thread", o.process, allocThread, "Allocations", -1);
        }
        const int64_t ts = a.ts < 0 ? placeResidents : a.ts;
        w.addInstant(o.allocTrack, ts, w.intern("alloc"), w.intern("memory"), 't',
                     w.addArgs(allocArgs(a)));
        o.allocWritten[i] = true;
        ++o.instants;
    }
}

Result<int64_t> ProfileRecorder::flushTo(store::TraceStore& store, int64_t runId,
                                         const std::string& label) {
    if (!m_out.source) {
        if (m_slices.empty()) return int64_t{0};
        auto src = store.beginSource(label, "profiler");
        if (!src) return Error{src.error()};
        m_out.source = src.value();
        // Linked at once, so the run's profile is found while it runs and after a kill.
        if (runId > 0)
            if (auto s = store.setRunProfileSource(runId, m_out.source); !s)
                return Error{s.error()};
    }
    store::StoreWriter w(store, m_out.source);
    if (!m_out.process) openOutput(w, label);
    writeRows(w, false);
    if (auto s = w.flush(); !s) return Error{s.error()};
    if (!w.error().empty()) return Error{w.error()};
    return m_out.source;
}

Result<int64_t> ProfileRecorder::writeTo(store::TraceStore& store, int64_t runId,
                                         const std::string& label, const ExtraRows& extra) {
    if (!m_stack.empty()) close(m_stack.front(), now());
    m_recording = false;
    int64_t tsMin = INT64_MAX, tsMax = INT64_MIN;
    for (const Slice& s : m_slices) {
        tsMin = std::min(tsMin, s.ts);
        tsMax = std::max(tsMax, s.ts + std::max<int64_t>(0, s.dur));
    }
    for (const CounterSample& c : m_counters) tsMin = std::min(tsMin, c.ts);
    if (tsMin == INT64_MAX) tsMin = now();
    if (tsMax < tsMin) tsMax = tsMin;
    if (!m_out.source) {
        auto src = store.beginSource(label, "profiler");
        if (!src) return Error{src.error()};
        m_out.source = src.value();
    }
    const int64_t source = m_out.source;
    store::SourceSummary sum;
    sum.tsMin = tsMin;
    sum.tsMax = tsMax;
    int64_t extraSlices = 0;
    {
        store::StoreWriter w(store, source);
        if (!m_out.process) openOutput(w, label);
        writeRows(w, true);
        if (extra) {
            const gpu::TraceCounts more = extra(w, m_out.process, m_out.thread);
            extraSlices = more.slices + more.asyncSlices;
            if (more.tsMin) sum.tsMin = std::min(*sum.tsMin, *more.tsMin);
            if (more.tsMax) sum.tsMax = std::max(*sum.tsMax, *more.tsMax);
        }
        if (auto s = w.flush(); !s) return Error{s.error()};
        if (!w.error().empty()) return Error{w.error()};
    }
    const int64_t instants = m_out.instants;
    sum.status = store::SourceStatus::Complete;
    sum.slices = static_cast<int64_t>(m_slices.size()) + extraSlices;
    sum.events = sum.slices + static_cast<int64_t>(m_counters.size() + m_flows.size()) + instants;
    sum.statsJson = "{\"steps\":" + std::to_string(m_recordedSteps) +
                    ",\"dropped_steps\":" + std::to_string(m_droppedSteps) +
                    ",\"slices\":" + std::to_string(m_slices.size()) +
                    ",\"counter_samples\":" + std::to_string(m_counters.size()) +
                    ",\"flows\":" + std::to_string(m_flows.size()) +
                    ",\"instants\":" + std::to_string(instants) + "}";
    if (auto s = store.finishSource(source, sum); !s) return Error{s.error()};
    if (runId > 0)
        if (auto s = store.setRunProfileSource(runId, source); !s) return Error{s.error()};
    clear();
    return source;
}

}  // namespace ts::profiler
