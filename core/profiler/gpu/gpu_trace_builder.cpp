#include "core/profiler/gpu/gpu_trace_builder.h"

#include <algorithm>
#include <numeric>

namespace ts::profiler::gpu {
namespace {
int64_t deviceContextKey(int64_t device, int64_t context) {
    return (device << 32) ^ context;
}
}  // namespace

GpuTraceBuilder::GpuTraceBuilder(store::StoreWriter& writer) : m_w(writer) {}

void GpuTraceBuilder::setProcessName(int64_t key, std::string name) {
    m_processNames[key] = std::move(name);
}
void GpuTraceBuilder::setThreadName(int64_t globalTid, std::string name) {
    m_threadNames[globalTid] = std::move(name);
}
void GpuTraceBuilder::setDeviceName(int64_t deviceId, std::string name) {
    m_deviceNames[deviceId] = std::move(name);
}
void GpuTraceBuilder::setDefaultStream(int64_t device, int64_t context, int64_t stream) {
    m_defaultStream[deviceContextKey(device, context)] = stream;
}
void GpuTraceBuilder::setMultiContext(int64_t deviceId) {
    m_multiContext[deviceId] = true;
}

int64_t GpuTraceBuilder::process(int64_t key) {
    if (auto it = m_processes.find(key); it != m_processes.end()) return it->second;
    auto name = m_processNames.find(key);
    const int64_t id = m_w.addProcess(std::to_string(pidOf(key)),
                                      name == m_processNames.end() ? "" : name->second);
    ++m_counts.processes;
    m_processes.emplace(key, id);
    return id;
}

int64_t GpuTraceBuilder::gpuProcess(int64_t deviceId) {
    if (auto it = m_gpuProcesses.find(deviceId); it != m_gpuProcesses.end()) return it->second;
    auto name = m_deviceNames.find(deviceId);
    std::string title = "GPU " + std::to_string(deviceId);
    const int64_t id = m_w.addProcess(title, name == m_deviceNames.end() ? title : name->second);
    ++m_counts.processes;
    m_gpuProcesses.emplace(deviceId, id);
    return id;
}

int64_t GpuTraceBuilder::thread(int64_t globalTid) {
    if (auto it = m_threads.find(globalTid); it != m_threads.end()) return it->second;
    auto name = m_threadNames.find(globalTid);
    const int64_t id =
        m_w.addThread(process(processKey(globalTid)), std::to_string(tidOf(globalTid)),
                      name == m_threadNames.end() ? "" : name->second);
    ++m_counts.threads;
    m_threads.emplace(globalTid, id);
    return id;
}

uint32_t GpuTraceBuilder::newTrack(int64_t trackId, bool nested) {
    TrackBuf t;
    t.trackId = trackId;
    t.nested = nested;
    m_tracks.push_back(std::move(t));
    return static_cast<uint32_t>(m_tracks.size() - 1);
}

uint32_t GpuTraceBuilder::threadTrack(int64_t globalTid, const std::string& label, int order) {
    std::string key = "t" + std::to_string(globalTid) + "|" + label;
    if (auto it = m_trackByKey.find(key); it != m_trackByKey.end()) return it->second;
    const int64_t threadId = thread(globalTid);
    auto tn = m_threadNames.find(globalTid);
    std::string name = tn == m_threadNames.end() || tn->second.empty()
                           ? "Thread " + std::to_string(tidOf(globalTid))
                           : tn->second + " (" + std::to_string(tidOf(globalTid)) + ")";
    name += " \u00B7 ";
    name += label;
    const int64_t trackId =
        m_w.addTrack("thread", process(processKey(globalTid)), threadId, name, order);
    return m_trackByKey.emplace(std::move(key), newTrack(trackId, true)).first->second;
}

uint32_t GpuTraceBuilder::asyncTrack(int64_t key, const std::string& label) {
    std::string mapKey = "a" + std::to_string(key) + "|" + label;
    if (auto it = m_trackByKey.find(mapKey); it != m_trackByKey.end()) return it->second;
    const int64_t trackId = m_w.addTrack("async", process(key), 0, label);
    return m_trackByKey.emplace(std::move(mapKey), newTrack(trackId, false)).first->second;
}

uint32_t GpuTraceBuilder::streamTrack(int64_t device, int64_t context, int64_t stream) {
    std::string key =
        "g" + std::to_string(device) + "|" + std::to_string(context) + "|" + std::to_string(stream);
    if (auto it = m_trackByKey.find(key); it != m_trackByKey.end()) return it->second;
    std::string name;
    if (m_multiContext.contains(device)) name = "Context " + std::to_string(context) + " \u00B7 ";
    name += "Stream " + std::to_string(stream);
    auto def = m_defaultStream.find(deviceContextKey(device, context));
    if (def != m_defaultStream.end() && def->second == stream) name += " (default)";
    const int64_t trackId =
        m_w.addTrack("gpu_stream", gpuProcess(device), 0, name, context * 1000000 + stream);
    return m_trackByKey.emplace(std::move(key), newTrack(trackId, false)).first->second;
}

uint32_t GpuTraceBuilder::contextTrack(int64_t device, int64_t context) {
    std::string key = "c" + std::to_string(device) + "|" + std::to_string(context);
    if (auto it = m_trackByKey.find(key); it != m_trackByKey.end()) return it->second;
    const int64_t trackId =
        m_w.addTrack("gpu_stream", gpuProcess(device), 0,
                     "Context " + std::to_string(context) + " \u00B7 sync", context * 1000000 - 1);
    return m_trackByKey.emplace(std::move(key), newTrack(trackId, false)).first->second;
}

void GpuTraceBuilder::adoptProcess(int64_t key, int64_t processRowId) {
    m_processes[key] = processRowId;
}

void GpuTraceBuilder::adoptThread(int64_t globalTid, int64_t threadRowId) {
    m_threads[globalTid] = threadRowId;
}

SliceHandle GpuTraceBuilder::add(uint32_t track, const GpuSlice& s) {
    TrackBuf& t = m_tracks[track];
    t.maxEnd = std::max(t.maxEnd, s.ts + std::max<int64_t>(s.dur, 0));
    t.slices.push_back(s);
    if (s.dur >= 0) m_counts.seeTime(s.ts, s.ts + s.dur);
    return {track, static_cast<uint32_t>(t.slices.size() - 1)};
}

void GpuTraceBuilder::instant(uint32_t track, int64_t ts, int64_t nameId, int64_t catId,
                              int64_t argId) {
    TrackBuf& t = m_tracks[track];
    t.maxEnd = std::max(t.maxEnd, ts);
    m_w.addInstant(t.trackId, ts, nameId, catId, 't', argId);
    ++m_counts.instants;
    m_counts.seeTime(ts, ts);
}

void GpuTraceBuilder::flow(SliceHandle from, SliceHandle to, int64_t nameId, int64_t catId) {
    if (from.valid() && to.valid()) m_flows.push_back({from, to, nameId, catId});
}

void GpuTraceBuilder::writeTrack(TrackBuf& t) {
    const size_t n = t.slices.size();
    for (GpuSlice& s : t.slices)
        if (s.dur < 0) m_counts.seeTime(s.ts, std::max(s.ts, t.maxEnd));
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    auto durOf = [&](const GpuSlice& s) {
        return s.dur < 0 ? std::max<int64_t>(0, t.maxEnd - s.ts) : s.dur;
    };
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const GpuSlice &x = t.slices[a], &y = t.slices[b];
        if (x.ts != y.ts) return x.ts < y.ts;
        return durOf(x) > durOf(y);
    });
    t.pos.assign(n, 0);
    std::vector<int64_t> stackEnds;
    for (size_t i = 0; i < n; ++i) {
        const GpuSlice& s = t.slices[order[i]];
        t.pos[order[i]] = static_cast<uint32_t>(i);
        store::SliceRow row;
        row.trackId = t.trackId;
        row.ts = s.ts;
        row.dur = durOf(s);
        row.nameId = s.nameId;
        row.catId = s.catId;
        row.argSetId = s.argId;
        row.flags = s.dur < 0 ? store::kSliceUnfinished : 0;
        if (t.nested) {
            while (!stackEnds.empty() && s.ts >= stackEnds.back()) stackEnds.pop_back();
            row.depth = static_cast<int32_t>(stackEnds.size());
            stackEnds.push_back(s.ts + row.dur);
        }
        const int64_t id = m_w.reserveSliceId();
        if (i == 0) t.firstId = id;
        m_w.addSliceWithId(id, row);
    }
}

void GpuTraceBuilder::finish() {
    for (TrackBuf& t : m_tracks) writeTrack(t);
    for (const Flow& f : m_flows) {
        const TrackBuf& a = m_tracks[f.from.track];
        const TrackBuf& b = m_tracks[f.to.track];
        m_w.addFlow(a.firstId + a.pos[f.from.seq], b.firstId + b.pos[f.to.seq], f.nameId, f.catId);
        ++m_counts.flows;
    }
    m_flows.clear();
    for (TrackBuf& t : m_tracks) {
        std::vector<GpuSlice>().swap(t.slices);
        std::vector<uint32_t>().swap(t.pos);
    }
}

}  // namespace ts::profiler::gpu
