#pragma once
// TimelineModel: the in-memory read model behind the timeline (no Qt). Per track, slices
// live in rows ("levels") of columns sorted by start; slices in one level never overlap,
// so both starts and ends are sorted and a time range is two binary searches away.
// A level holds the slices of one store depth; slices that overlap at the same depth
// (async tracks, GPU streams with concurrent kernels, malformed nesting) are laid out into
// extra levels of that depth (first fit), so nothing is hidden.
// Built once off the UI thread by loadTimelineModel(); read-only afterwards, so any number
// of threads may query it at once.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/common/job_control.h"
#include "core/common/result.h"
#include "core/timeline/clock_bases.h"

namespace ts::store {
class TraceStore;
}

namespace ts::timeline {

/// One row of non-overlapping slices, sorted by start. Columns, not structs.
struct SliceLevel {
    int32_t depth = 0;             // store depth of every slice in this level
    std::vector<int64_t> ts;       // start, ns
    std::vector<int64_t> dur;      // duration, ns (>= 0)
    std::vector<uint32_t> name;    // string id (store `strings`)
    std::vector<int64_t> sliceId;  // store slice id

    /// Level-of-detail summary: the largest "key" (max of a slice's duration and its gap to
    /// the previous slice) per block of kSmallBlock and of kBigBlock slices. Lets a frame skip
    /// long runs of sub-pixel slices without visiting them. Built by buildSummary().
    static constexpr size_t kSmallBlock = 64, kBigBlock = 4096;
    std::vector<int64_t> smallMax, bigMax;

    size_t size() const { return ts.size(); }
    /// Computes smallMax/bigMax from the columns (call after filling or changing them).
    void buildSummary();
    int64_t end(size_t i) const { return ts[i] + dur[i]; }
    /// Index of the first slice ending at or after t (size() when none).
    size_t firstEndingAtOrAfter(int64_t t) const;
    /// Index of the first slice starting at or after t (size() when none).
    size_t firstStartingAtOrAfter(int64_t t) const;
};

enum class TrackKind { Thread, Async, Counter, GpuStream };

/// A counter series: step function, value holds from ts[i] to ts[i+1].
struct CounterSeries {
    std::vector<int64_t> ts;
    std::vector<double> value;
    double min = 0, max = 0;
};

/// Zero-duration markers, sorted by ts.
struct InstantSeries {
    std::vector<int64_t> ts;
    std::vector<uint32_t> name;
};

struct TimelineTrack {
    int64_t id = 0;  // store track id
    TrackKind kind = TrackKind::Thread;
    std::string name;
    int64_t sourceId = 0;
    int64_t processId = 0;  // 0 = global track
    int64_t threadId = 0;   // 0 = process-level track
    int64_t sortIndex = 0;
    std::vector<SliceLevel> levels;  // ordered by depth, then overflow levels of that depth
    CounterSeries counter;
    InstantSeries instants;
    int64_t sliceCount = 0;
    /// Its source's alignment (clock_bases.h): model time = store time + offsetNs - originNs.
    int64_t offsetNs = 0;
};

/// A collapsible group: one process and its tracks, in display order.
struct TrackGroup {
    int64_t processId = 0;  // 0 = global tracks
    int64_t sourceId = 0;
    std::string title;        // "name (pid)"
    std::vector<int> tracks;  // indexes into TimelineModel::tracks
    std::string alignment;    // how its source is aligned ("" when as recorded)
};

/// Where a slice is: track index, level index, index in the level.
struct SliceRef {
    int track = -1;
    int level = -1;
    int64_t index = -1;
    bool valid() const { return track >= 0; }
    bool operator==(const SliceRef&) const = default;
};

/// A flow arrow between two slices (both ends located in the model).
struct FlowArrow {
    SliceRef from, to;
};

class TimelineModel {
public:
    std::vector<TimelineTrack> tracks;
    std::vector<TrackGroup> groups;    // display order: processes by sort index, pid
    std::vector<FlowArrow> flows;      // flows whose ends are both in the model, by flowLo
    std::vector<int64_t> flowLo;       // per flow: the earlier of its two drawn ends
    int64_t maxFlowSpan = 0;           // longest time between the two ends of a flow
    int64_t flowsMissing = 0;          // flows naming a slice that is not in the store
    std::vector<std::string> strings;  // string id -> text ("" when unknown)
    /// Every time in the model (levels, instants, counters, startNs/endNs) is the store's
    /// time minus originNs. Traces stamped in Unix time (~1.7e18 ns: Kineto, nsys) would
    /// otherwise lose precision in the double math of drawing (a double near 1.7e18 steps by
    /// 256 ns); times that small stay as they are (originNs = 0).
    int64_t originNs = 0;
    int64_t startNs = 0, endNs = 0;  // extent of every slice, instant and counter (model time)
    int64_t sliceCount = 0;
    /// Per source: its recorded extent (store time, before alignment) and its alignment;
    /// the sources grouped by clock base (more than one: the clocks are unrelated).
    std::vector<SourceExtent> sourceExtents;
    std::vector<SourceAlignment> alignments;
    std::vector<ClockBase> clockBases;

    const std::string& nameOf(uint32_t id) const;
    const SliceLevel& level(const SliceRef& r) const { return tracks[r.track].levels[r.level]; }
    int64_t ts(const SliceRef& r) const { return level(r).ts[r.index]; }
    int64_t dur(const SliceRef& r) const { return level(r).dur[r.index]; }
    int64_t sliceId(const SliceRef& r) const { return level(r).sliceId[r.index]; }
    const std::string& name(const SliceRef& r) const { return nameOf(level(r).name[r.index]); }
    /// Finds a slice by store id (linear over the model: call from a job for big models).
    SliceRef find(int64_t sliceId) const;
    /// Duration minus the durations of its direct children (slices of the next depth on the
    /// same track that start inside it).
    int64_t selfTime(const SliceRef& r) const;
    /// Indexes [first, last) of the flows whose drawn line (from the end of the source slice
    /// to the start of the target) may cross [t0, t1]: a binary search, not a walk over all.
    std::pair<size_t, size_t> flowsIn(double t0, double t1) const;
    /// Store time of model time `t` on track `track` (undoes the origin and the alignment).
    int64_t storeTime(int track, int64_t t) const {
        return t + originNs - (track >= 0 ? tracks[static_cast<size_t>(track)].offsetNs : 0);
    }
    /// Model time of store time `storeNs`: aligned as the source whose recorded extent holds
    /// it (the first source's alignment when none does).
    int64_t modelTime(int64_t storeNs) const;
    /// The alignment of `sourceId` (AsRecorded when none is kept).
    SourceAlignment alignmentOf(int64_t sourceId) const;
    /// Bytes held by the columns (for reports).
    size_t memoryBytes() const;
};

/// How a thread is named in the timeline: "name (tid)", "Thread tid" without a name, and the
/// name alone when it holds the tid already (Kineto: "thread 493459 (python3.10)").
std::string threadTitle(const std::string& name, const std::string& tid);

/// How a process is named in the timeline: "name (pid)", "Process pid" without a name, and
/// its labels (Kineto's process_labels: "CPU", "GPU 0") after a middle dot, so that the
/// processes of one program ("python3 (0) · GPU 0", "python3 (823) · CPU") tell apart.
std::string processTitle(const std::string& name, const std::string& pid,
                         const std::string& labels);

/// Builds the model from a session file (opened read-only here): slices are read a chunk
/// at a time in track ranges on `threads` connections at once. Cancel -> error.
Result<std::shared_ptr<const TimelineModel>> loadTimelineModel(const std::string& path,
                                                               JobControl* job = nullptr,
                                                               int threads = 2);

}  // namespace ts::timeline
