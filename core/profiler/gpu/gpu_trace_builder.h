#pragma once
// GpuTraceBuilder: the trackers behind the GPU trace importers (Nsight Systems exports and
// the CUPTI collector's activity files). Creates processes, threads and tracks as rows first
// need them (an nsys report lists ~1,700 system processes; only those with events appear),
// keeps slices per track until finish(), then sorts each track, nests CPU tracks by
// containment (depth), keeps GPU streams and async tracks flat (the timeline lays
// overlapping slices of one track into extra rows of that track, so a kernel never leaves
// its stream), writes the slices and binds the flows recorded between them.
//
// Processes and threads are named by nsys's serialized global ids (bits 24..47 the pid,
// 0..23 the tid, above them the host); globalTid() makes one from a pid and a tid.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/store/store_writer.h"

namespace ts::profiler::gpu {

inline int64_t pidOf(int64_t globalId) {
    return (globalId >> 24) & 0xFFFFFF;
}
inline int64_t tidOf(int64_t globalId) {
    return globalId & 0xFFFFFF;
}
/// The process part of a global id (the tid bits cleared).
inline int64_t processKey(int64_t globalId) {
    return globalId & ~int64_t{0xFFFFFF};
}
/// The global id of thread `tid` of process `pid` (both below 2^24, as Linux's pid_max).
inline int64_t globalTid(int64_t pid, int64_t tid) {
    return ((pid & 0xFFFFFF) << 24) | (tid & 0xFFFFFF);
}

/// What a builder (and the readers feeding it) wrote, for an import's report.
struct TraceCounts {
    int64_t processes = 0, threads = 0, slices = 0, asyncSlices = 0, instants = 0, flows = 0;
    std::optional<int64_t> tsMin, tsMax;
    void seeTime(int64_t lo, int64_t hi) {
        if (!tsMin || lo < *tsMin) tsMin = lo;
        if (!tsMax || hi > *tsMax) tsMax = hi;
    }
};

struct GpuSlice {
    int64_t ts = 0, dur = 0;  // ns; dur < 0 = unfinished (runs to the end of its track)
    int64_t nameId = 0, catId = 0, argId = 0;
};

/// A slice added to the builder, valid until finish() (for flows).
struct SliceHandle {
    uint32_t track = UINT32_MAX, seq = 0;
    bool valid() const { return track != UINT32_MAX; }
};

class GpuTraceBuilder {
public:
    explicit GpuTraceBuilder(store::StoreWriter& writer);

    store::StoreWriter& writer() { return m_w; }
    TraceCounts& counts() { return m_counts; }

    /// Facts known before rows arrive, used when processes/threads/tracks are created.
    void setProcessName(int64_t processKey, std::string name);
    void setThreadName(int64_t globalTid, std::string name);
    void setDeviceName(int64_t deviceId, std::string name);
    void setDefaultStream(int64_t deviceId, int64_t contextId, int64_t streamId);
    /// Devices with more than one CUDA context get "Context N" in their stream track names.
    void setMultiContext(int64_t deviceId);

    /// CPU track `label` ("CUDA API", "NVTX", ...) of thread `globalTid`; tracks of one
    /// thread are shown in `order`.
    uint32_t threadTrack(int64_t globalTid, const std::string& label, int order);
    /// A process-level track of overlapping ranges (NVTX start/end ranges).
    uint32_t asyncTrack(int64_t processKey, const std::string& label);
    /// The track of one CUDA stream, under a "GPU <device>" process.
    uint32_t streamTrack(int64_t deviceId, int64_t contextId, int64_t streamId);
    /// The track of a context's work that has no stream ("Context N · sync").
    uint32_t contextTrack(int64_t deviceId, int64_t contextId);
    /// Uses rows that exist already for a process / thread (the engine profile writes its
    /// own process and training thread) instead of creating them.
    void adoptProcess(int64_t processKey, int64_t processRowId);
    void adoptThread(int64_t globalTid, int64_t threadRowId);

    SliceHandle add(uint32_t track, const GpuSlice& s);
    void instant(uint32_t track, int64_t ts, int64_t nameId, int64_t catId, int64_t argId);
    void flow(SliceHandle from, SliceHandle to, int64_t nameId, int64_t catId);
    /// Writes slices and flows; call once after the last row.
    void finish();

private:
    struct TrackBuf {
        int64_t trackId = 0;
        bool nested = false;  // CPU call stacks: depth by containment
        int64_t maxEnd = INT64_MIN;
        int64_t firstId = 0;
        std::vector<GpuSlice> slices;
        std::vector<uint32_t> pos;  // seq -> index after sorting
    };
    struct Flow {
        SliceHandle from, to;
        int64_t nameId, catId;
    };
    int64_t process(int64_t processKey);
    int64_t gpuProcess(int64_t deviceId);
    int64_t thread(int64_t globalTid);
    uint32_t newTrack(int64_t trackId, bool nested);
    void writeTrack(TrackBuf& t);

    store::StoreWriter& m_w;
    TraceCounts m_counts;
    std::unordered_map<int64_t, std::string> m_processNames, m_threadNames, m_deviceNames;
    std::unordered_map<int64_t, int64_t> m_processes, m_gpuProcesses, m_threads;
    std::unordered_map<std::string, uint32_t> m_trackByKey;
    std::unordered_map<int64_t, int64_t> m_defaultStream;  // device*2^32+context -> stream
    std::unordered_map<int64_t, bool> m_multiContext;
    std::vector<TrackBuf> m_tracks;
    std::vector<Flow> m_flows;
};

}  // namespace ts::profiler::gpu
