#pragma once
// The active-memory timeline of one device of a snapshot, as PyTorch's memory_viz computes
// it (torch/utils/viz/MemoryViz.js, process_alloc_data): an allocation counts from its
// `alloc` to its `free_completed`; a free whose alloc is not in the trace (the history was
// switched on later, or its oldest entries were dropped) counts from the start; a block
// active in the snapshot with no alloc in the trace counts throughout. Also the reserved
// bytes (segments) after each event and the peak. And StackedLayout: memory_viz's picture
// of it — each allocation a band stacked on the ones before it, dropping when one below
// is freed — for the largest allocations, the others summed in one band. No Qt.
#include <cstdint>
#include <vector>

#include "core/memory/snapshot.h"

namespace ts::memory {

struct Allocation {
    uint64_t addr = 0;
    int64_t size = 0;  // bytes asked for
    int64_t stream = 0;
    uint32_t stack = kNoStack;
    int32_t allocEvent = -1;  // -1: before the trace
    int32_t freeEvent = -1;   // -1: alive at the end
    bool aliveAfter(int32_t event) const {
        return allocEvent <= event && (freeEvent < 0 || freeEvent > event);
    }
};

struct DeviceTimeline {
    int64_t device = 0;
    std::vector<Allocation> allocations;  // in the order they appear
    std::vector<int64_t> allocated;       // bytes allocated after each event
    std::vector<int64_t> reserved;        // bytes in segments after each event
    int64_t startAllocated = 0;           // before the first event
    int64_t startReserved = 0;
    int64_t peakBytes = 0;
    int32_t peakEvent = -1;  // -1: before the first event (or no events)
    int64_t peakTimeUs = -1;
    int64_t peakReserved = 0;
};

/// Device indices that have a trace or segments, ascending.
std::vector<int64_t> snapshotDevices(const Snapshot& s);
DeviceTimeline buildTimeline(const Snapshot& s, int64_t device);
/// Allocations alive after `event` (-1: before the first), indices into t.allocations.
std::vector<size_t> liveAfter(const DeviceTimeline& t, int32_t event);
/// The event at or before `timeUs` (-1 when before all); events without times count as -1.
int32_t eventAtTime(const Snapshot& s, int64_t device, int64_t timeUs);

struct Band {
    uint32_t allocation = 0;  // index into DeviceTimeline::allocations; UINT32_MAX: summed
    int64_t size = 0;         // constant, except the summed band (sizes[i] per point)
    std::vector<int32_t> x;   // event index + 1 where the band changes (0 = the start)
    std::vector<int64_t> offset;
    int32_t end = 0;             // x where it ends (freed), or StackedLayout::xEnd
    std::vector<int64_t> sizes;  // summed band only
};

struct StackedLayout {
    std::vector<Band> bands;  // the summed band last
    int32_t xEnd = 0;         // events + 1
    int64_t maxTop = 0;
    size_t drawn = 0;   // allocations with a band of their own
    size_t summed = 0;  // allocations in the summed band
};

/// memory_viz's stacked picture: the `maxBands` largest allocations get a band, the rest are
/// summed. x is the event index + 1 (0 = before the first event).
StackedLayout stackedLayout(const DeviceTimeline& t, size_t maxBands = 2000);

}  // namespace ts::memory
