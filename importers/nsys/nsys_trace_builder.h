#pragma once
// NsysTraceBuilder: the trackers behind the Nsight Systems importer. Creates processes,
// threads and tracks as rows first need them (a report lists ~1,700 system processes; only
// those with events appear), keeps slices per track until finish(), then sorts each track,
// nests CPU tracks by containment (depth), keeps GPU streams and async tracks flat (the
// timeline lays overlapping slices of one track into extra rows of that track, so a kernel
// never leaves its stream), writes the slices and binds the flows recorded between them.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/store/store_writer.h"
#include "importers/import_report.h"

namespace ts::importers::nsys {

struct NsysSlice {
    int64_t ts = 0, dur = 0;  // ns; dur < 0 = unfinished (runs to the end of its track)
    int64_t nameId = 0, catId = 0, argId = 0;
};

/// A slice added to the builder, valid until finish() (for flows).
struct SliceHandle {
    uint32_t track = UINT32_MAX, seq = 0;
    bool valid() const { return track != UINT32_MAX; }
};

class NsysTraceBuilder {
public:
    NsysTraceBuilder(store::StoreWriter& writer, ImportReport& report);

    /// Facts from the report's own tables, used when processes/threads/tracks are created.
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

    SliceHandle add(uint32_t track, const NsysSlice& s);
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
        std::vector<NsysSlice> slices;
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
    ImportReport& m_report;
    std::unordered_map<int64_t, std::string> m_processNames, m_threadNames, m_deviceNames;
    std::unordered_map<int64_t, int64_t> m_processes, m_gpuProcesses, m_threads;
    std::unordered_map<std::string, uint32_t> m_trackByKey;
    std::unordered_map<int64_t, int64_t> m_defaultStream;  // device*2^32+context -> stream
    std::unordered_map<int64_t, bool> m_multiContext;
    std::vector<TrackBuf> m_tracks;
    std::vector<Flow> m_flows;
};

}  // namespace ts::importers::nsys
