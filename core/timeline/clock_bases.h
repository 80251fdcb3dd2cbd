#pragma once
// Clock bases of a session's sources and how each is aligned on the timeline's one axis
// (issue 26, item 11). Traces stamp time on unrelated clocks: Unix time (Kineto, nsys),
// time since boot (CLOCK_MONOTONIC: an H200's Kineto trace starts at 4,886,740 s), or time
// from the start of the recording (torch's exporter without Kineto, hand-made traces). Shown
// as recorded, two such traces sit years apart with each squeezed to a sliver.
// detectClockBases groups sources whose times can belong to one clock; an alignment moves a
// source on the timeline only (the store keeps the recorded times): to its first event (the
// first events of all sources line up), to a clock-sync event it shares with another source,
// to the time its file was written (a relative-clock trace of a command run), or by hand.
// Alignments are kept in the session's meta table ("timeline.align.<source id>").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/result.h"

namespace ts::store {
class TraceStore;
}  // namespace ts::store

namespace ts::timeline {

enum class AlignMode { AsRecorded, FirstEvent, ClockSync, FileTime, Manual };
std::string_view alignModeName(AlignMode m);  // "as_recorded", "first_event", ...
std::optional<AlignMode> parseAlignMode(std::string_view name);

struct SourceAlignment {
    int64_t sourceId = 0;
    AlignMode mode = AlignMode::AsRecorded;
    int64_t offsetNs = 0;  // added to every time of the source on the timeline
    /// How the timeline's track header says it: "aligned to its first event (−56.63 d)".
    std::string describe() const;
};

/// Every alignment kept in the session (sources not listed are shown as recorded).
Result<std::vector<SourceAlignment>> readAlignments(store::TraceStore& store);
/// Keeps `a` (AsRecorded removes the entry).
Status writeAlignment(store::TraceStore& store, const SourceAlignment& a);

/// A recorded time that is a clock started with the recording (below one hour of ns).
bool isRelativeClock(int64_t tsMinNs);

/// The recorded extent of one source's timeline data.
struct SourceExtent {
    int64_t sourceId = 0;
    int64_t startNs = 0, endNs = 0;
    std::string name;  // its label, else its file's name (for people; may be "")
};

/// Sources whose recorded times may share one clock.
struct ClockBase {
    std::vector<int64_t> sources;
    int64_t startNs = 0, endNs = 0;  // recorded extent of the group
    bool relative = false;           // a clock started with its recording
};
/// Groups the sources: a relative-clock source is a group of its own; others join a group
/// when their extent lies within max(1 min, 10 x the longer span) of it. Groups come in
/// order of start. One group: one clock, nothing to align.
std::vector<ClockBase> detectClockBases(std::vector<SourceExtent> sources);

/// The offset that aligns `sourceId` by `mode` against the session's other sources:
/// FirstEvent puts its first event on the earliest first event of the sources of the
/// largest absolute group (the reference); ClockSync uses a sync id it shares with another
/// source (error when it shares none); FileTime ends it at `fileTimeNs`; Manual returns
/// the FirstEvent offset plus `manualNs`; AsRecorded returns 0.
Result<int64_t> alignmentOffset(store::TraceStore& store, const std::vector<SourceExtent>& extents,
                                int64_t sourceId, AlignMode mode, int64_t manualNs = 0,
                                int64_t fileTimeNs = 0);

}  // namespace ts::timeline
