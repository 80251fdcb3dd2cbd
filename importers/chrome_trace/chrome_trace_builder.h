#pragma once
// ChromeTraceBuilder: the trackers behind the Chrome JSON importer. Takes events in file
// order, keeps slices as compact rows per track (not JSON), writes args, instants and
// counters to the store as they come, and at finish() aligns the source's clock to an
// earlier source sharing a clock sync id, closes unmatched B/b events (and X without dur),
// sorts each track, computes depth, writes slices, binds flows to slices and writes the
// stack samples (stack_sample_tracker.h).
// Memory: it holds at most a window of finished slices (kDefaultWindow, or the
// TRAINSCOPE_IMPORT_WINDOW variable); past it, every track's slices go to disk as a sorted run
// (slice_spill.h), and a track with runs is merged from them at finish() and written as it
// is merged. What stays in memory for the whole import is per open B/b event, per flow point
// and per stack sample (small, and rarely millions).
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/store/store_writer.h"
#include "importers/chrome_trace/chrome_event.h"
#include "importers/chrome_trace/slice_spill.h"
#include "importers/chrome_trace/stack_sample_tracker.h"
#include "importers/import_report.h"

namespace ts::importers::chrome {

class ChromeTraceBuilder {
public:
    /// Finished slices held in memory before they go to disk (about 100 MB).
    static constexpr size_t kDefaultWindow = size_t{1} << 21;

    ChromeTraceBuilder(store::StoreWriter& writer, ImportReport& report);
    /// One event in file order.
    void add(const ChromeEvent& e);
    /// Writes the slices and flows held back; call once after the last event.
    void finish();
    /// The clock alignment finish() applied, as a JSON object ("" when none): the source
    /// and sync id it aligned to and the offset added to every time of this source.
    const std::string& clockAlignmentJson() const { return m_alignment; }
    /// {"window","held_peak","spilled_slices","spilled_runs"}: how the slices were held.
    std::string windowJson() const;
    /// Why spilled slices could not be read back ("" when fine): the import failed then.
    const std::string& spillError() const { return m_spillError; }

private:
    using Slice = HeldSlice;
    struct SpilledRun {
        SliceSpill::Run run;
        int64_t shift = 0;  // clock alignment to add to its times (it was written before)
    };
    struct TrackBuf {
        int64_t trackId = 0;
        int64_t threadRowId = 0;       // threads.id for thread tracks
        int64_t processRowId = 0;      // processes.id
        int64_t samplesTrack = 0;      // the thread's samples track, once it has samples
        int64_t lastStep = INT64_MIN;  // async: ts of the last S/T/p/b/n (p steps from it)
        int64_t maxTs = INT64_MIN;
        int64_t firstId = 0;
        uint32_t nextSeq = 0;
        std::vector<Slice> slices;      // finished, held (not spilled)
        std::vector<Slice> open;        // B/b without an end yet, innermost last
        std::vector<Slice> unfinished;  // X without a dur: closed like open ones
        std::vector<SpilledRun> runs;   // finished, on disk
        std::vector<uint32_t> pos;      // (no runs) seq -> index after sorting
        std::vector<int32_t> parent;    // (no runs) enclosing slice index, -1 at depth 0
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
        int64_t bound = -1;  // the slice id it binds to, once known (0: none)
    };

    struct ClockSync {
        std::string id;
        int64_t ts;
        std::optional<int64_t> issueTs;
    };

    // An event without pid belongs to pid ""; without tid, to its process's main thread
    // (tid = pid), as Perfetto reads it. (The event's strings are reused: only the flags
    // say whether a field was there.)
    static const std::string& pidOf(const ChromeEvent& e) { return e.hasPid ? e.pid : kNoText; }
    static const std::string& tidOf(const ChromeEvent& e) { return e.hasTid ? e.tid : pidOf(e); }
    static const std::string& idOf(const ChromeEvent& e) { return e.hasId ? e.id : kNoText; }
    static const std::string kNoText;

    Process& process(const std::string& pid);
    uint32_t thread(const ChromeEvent& e);
    uint32_t threadLookup(const std::string& pid, const std::string& tid);
    void auxiliary(const ChromeEvent& e);
    void clockSync(const ChromeEvent& e, int64_t ts);
    int64_t alignClock();
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
    /// Keeps a finished slice; past the window, spills every track's.
    void hold(TrackBuf& t, const Slice& s);
    void spill();
    store::TrackChunks prepareTrack(TrackBuf& t);
    /// Merges a track's runs and held slices, writes them as they come and binds its flows.
    void writeSpilledTrack(TrackBuf& t, uint32_t trackIndex);
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
    StackSampleTracker m_samples;
    std::vector<ClockSync> m_clockSyncs;
    std::string m_alignment;
    std::unordered_map<std::string, uint32_t> m_firstThreadOfTid;  // for global samples
    int64_t m_globalTrack = 0;
    std::string m_key;
    std::vector<const std::pair<std::string, std::string>*> m_counterValues;
    std::string m_lastPid, m_lastTid;  // the thread of the previous event
    uint32_t m_lastThread = UINT32_MAX;
    size_t m_window = kDefaultWindow;
    size_t m_held = 0, m_heldPeak = 0;  // finished slices in memory
    std::optional<SliceSpill> m_spill;
    int64_t m_spilledRuns = 0;
    std::string m_spillError;
};

}  // namespace ts::importers::chrome
