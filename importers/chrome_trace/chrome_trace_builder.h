#pragma once
// ChromeTraceBuilder: the trackers behind the Chrome JSON importer. Takes events in file
// order, keeps slices as compact rows per track (not JSON), writes args, instants and
// counters to the store as they come, and at finish() closes unmatched B/b events, sorts
// each track, computes depth, writes slices and binds flows to slices.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/store/store_writer.h"
#include "importers/chrome_trace/chrome_event.h"
#include "importers/import_report.h"

namespace ts::importers::chrome {

class ChromeTraceBuilder {
public:
    ChromeTraceBuilder(store::StoreWriter& writer, ImportReport& report);
    /// One event in file order.
    void add(const ChromeEvent& e);
    /// Writes the slices and flows held back; call once after the last event.
    void finish();

private:
    struct Slice {
        int64_t ts, dur, nameId, catId, argId;
        int32_t flags;
        uint32_t seq;  // order of arrival within the track
    };
    struct TrackBuf {
        int64_t trackId = 0;
        int64_t threadRowId = 0;  // threads.id for thread tracks
        int64_t maxTs = INT64_MIN;
        int64_t firstId = 0;
        std::vector<Slice> slices;
        std::vector<uint32_t> open;   // indexes of B/b slices without an end yet
        std::vector<uint32_t> pos;    // seq -> index after sorting
        std::vector<int32_t> parent;  // after sorting: enclosing slice index, -1 at depth 0
    };
    struct Process {
        int64_t id = 0;
        std::unordered_map<std::string, uint32_t> threads;  // tid -> TrackBuf index
        int64_t instantTrack = 0;
    };
    struct FlowPoint {
        uint32_t key, track, seq;
        int64_t ts;
        char phase;      // 's', 't', 'f'
        bool enclosing;  // bind to the enclosing slice (else the next one)
        int64_t slice;   // slice seq in `track` when bound directly (bind_id), else -1
        int64_t nameId, catId;
    };

    Process& process(const std::string& pid);
    uint32_t thread(const ChromeEvent& e);
    uint32_t threadLookup(const ChromeEvent& e);
    int64_t args(const ChromeEvent& e);
    void skip(const char* key, const ChromeEvent& e, const std::string& msg);
    void complete(const ChromeEvent& e, int64_t ts);
    void beginEnd(const ChromeEvent& e, int64_t ts);
    void instant(const ChromeEvent& e, int64_t ts, char scope);
    void counter(const ChromeEvent& e, int64_t ts);
    void metadata(const ChromeEvent& e);
    void async(const ChromeEvent& e, int64_t ts);
    void flow(const ChromeEvent& e, int64_t ts, char phase);
    void closeOpen(TrackBuf& t);
    store::TrackChunks prepareTrack(TrackBuf& t);
    void writeTracks();
    int64_t bind(const FlowPoint& p);

    store::StoreWriter& m_w;
    ImportReport& m_report;
    std::unordered_map<std::string, Process> m_processes;
    std::vector<TrackBuf> m_tracks;
    std::unordered_map<std::string, uint32_t> m_asyncTracks;  // pid|cat|id -> TrackBuf
    std::unordered_map<std::string, int64_t> m_counterTracks;
    std::unordered_map<std::string, uint32_t> m_flowKeys;
    std::vector<FlowPoint> m_flows;
    int64_t m_globalTrack = 0;
    std::string m_key;
    std::string m_lastPid, m_lastTid;  // the thread of the previous event
    uint32_t m_lastThread = UINT32_MAX;
};

}  // namespace ts::importers::chrome
