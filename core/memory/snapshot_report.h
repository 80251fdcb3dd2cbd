#pragma once
// The answers a snapshot gives, per device: the peak and who allocated what was alive then
// (grouped by the frame that names each allocation's site), allocations that grow step
// after step and are never freed (leaks, named with their frames), each `oom` event with
// the allocator's state at that moment — and whether fragmentation made it fail although
// enough memory was free in total — and the fragmentation at the peak. What `trainscope-cli
// memory` prints and the studio's Memory snapshot view shows. No Qt.
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/job_control.h"
#include "core/memory/allocator_state.h"
#include "core/memory/snapshot.h"
#include "core/memory/snapshot_timeline.h"

namespace ts::memory {

/// Allocations grouped by the frame that names their site (siteFrame).
struct SiteGroup {
    std::string site;  // "train.py:42:forward" ("<no frames>" when recorded without stacks)
    int64_t bytes = 0;
    int64_t count = 0;
    uint32_t stack = kNoStack;        // of the largest allocation of the group
    std::vector<size_t> allocations;  // into DeviceTimeline::allocations, largest first
};

struct Leak {
    std::string site;
    uint32_t stack = kNoStack;  // of the latest leaked allocation
    int64_t count = 0;          // allocations of the site alive at the end
    int64_t bytes = 0;
    int64_t bytesPerStep = 0;  // growth per step (window) where it grew
    int32_t stepsGrown = 0;    // steps in which the site's live bytes grew
    int32_t steps = 0;         // steps (windows) looked at
    int32_t firstEvent = -1, lastEvent = -1;
    int64_t firstTimeUs = -1, lastTimeUs = -1;
};

struct OomAnswer {
    int32_t event = -1;
    int64_t timeUs = -1;
    int64_t requested = 0;
    int64_t deviceFree = 0;  // what CUDA reported free
    int64_t stream = 0;
    uint32_t stack = kNoStack;
    int64_t reserved = 0, allocated = 0, freeInSegments = 0, largestFree = 0;
    bool fragmentation = false;  // requested <= free in segments, > the largest free piece
    std::string verdict;
    std::vector<SiteGroup> liveBySite;  // what was alive, largest site first
};

struct DeviceReport {
    int64_t device = 0;
    size_t events = 0;
    DeviceTimeline timeline;
    std::vector<SiteGroup> peakBySite;  // alive at the peak, largest site first
    int64_t liveAtPeak = 0;
    AllocatorState atPeak;  // allocator state at the peak
    AllocatorState atEnd;   // at the snapshot
    std::string stepsFrom;  // "Optimizer.step annotations" | "8 equal parts of the trace"
    std::vector<Leak> leaks;
    std::vector<OomAnswer> ooms;  // the first kMaxOomAnswers
    size_t oomEvents = 0;         // all of them
};

/// Each answered OOM replays the trace back to it: a trace of thousands of OOMs (a loop that
/// catches them) gets its first ones answered.
inline constexpr size_t kMaxOomAnswers = 16;

struct SnapshotReport {
    std::string layout;
    int pickleProtocol = 0;
    size_t frames = 0, stacks = 0, segments = 0, blocks = 0;
    std::vector<std::pair<std::string, std::string>> allocatorSettings;
    std::vector<std::string> notes;
    std::vector<DeviceReport> devices;
};

/// Analyses every device of `s`; `top` bounds the site lists. Cancellable (returns what it
/// has; the caller checks job->cancelled()).
SnapshotReport analyzeSnapshot(const Snapshot& s, size_t top = 20, JobControl* job = nullptr);

/// Groups `allocations` (indices into t.allocations) by site, largest site first; `top` 0
/// keeps every group.
std::vector<SiteGroup> groupBySite(const Snapshot& s, const DeviceTimeline& t,
                                   const std::vector<size_t>& allocations, size_t top);
/// The name of an allocation's site.
std::string siteName(const Snapshot& s, uint32_t stack);

}  // namespace ts::memory
