#include "core/memory/snapshot_timeline.h"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <set>
#include <unordered_map>

namespace ts::memory {

std::vector<int64_t> snapshotDevices(const Snapshot& s) {
    std::set<int64_t> d;
    for (size_t i = 0; i < s.devices.size(); ++i)
        if (!s.devices[i].empty()) d.insert(static_cast<int64_t>(i));
    for (const auto& g : s.segments) d.insert(g.device);
    return {d.begin(), d.end()};
}

DeviceTimeline buildTimeline(const Snapshot& s, int64_t device) {
    DeviceTimeline t;
    t.device = device;
    static const std::vector<TraceEvent> kNone;
    const auto& evs = device >= 0 && static_cast<size_t>(device) < s.devices.size()
                          ? s.devices[static_cast<size_t>(device)]
                          : kNone;
    std::unordered_map<uint64_t, size_t> open;  // address -> allocation not yet freed
    int64_t segmentNet = 0;
    for (size_t i = 0; i < evs.size(); ++i) {
        const TraceEvent& e = evs[i];
        const auto idx = static_cast<int32_t>(i);
        switch (e.action) {
            case Action::Alloc:
                open[e.addr] = t.allocations.size();
                t.allocations.push_back({e.addr, e.size, e.stream, e.stack, idx, -1});
                break;
            case Action::FreeCompleted:
                if (auto it = open.find(e.addr); it != open.end()) {
                    t.allocations[it->second].freeEvent = idx;
                    open.erase(it);
                } else {
                    t.allocations.push_back({e.addr, e.size, e.stream, e.stack, -1, idx});
                }
                break;
            case Action::SegmentAlloc:
            case Action::SegmentMap:
                segmentNet += e.size;
                break;
            case Action::SegmentFree:
            case Action::SegmentUnmap:
                segmentNet -= e.size;
                break;
            default:
                break;
        }
    }
    int64_t finalReserved = 0;
    for (const Segment& g : s.segments) {
        if (g.device != device) continue;
        finalReserved += g.totalSize;
        for (uint32_t b = g.firstBlock; b < g.firstBlock + g.blockCount; ++b) {
            const Block& k = s.blocks[b];
            if (k.state == BlockState::ActiveAllocated && !open.count(k.address))
                t.allocations.push_back({k.address, k.requestedSize, g.stream, k.stack, -1, -1});
        }
    }
    std::vector<int64_t> delta(evs.size() + 1, 0);
    for (const Allocation& a : t.allocations) {
        if (a.allocEvent < 0)
            t.startAllocated += a.size;
        else
            delta[static_cast<size_t>(a.allocEvent)] += a.size;
        if (a.freeEvent >= 0) delta[static_cast<size_t>(a.freeEvent)] -= a.size;
    }
    t.startReserved = finalReserved - segmentNet;
    t.allocated.resize(evs.size());
    t.reserved.resize(evs.size());
    int64_t total = t.startAllocated, reserved = t.startReserved;
    t.peakBytes = total;
    t.peakReserved = reserved;
    for (size_t i = 0; i < evs.size(); ++i) {
        total += delta[i];
        const TraceEvent& e = evs[i];
        if (e.action == Action::SegmentAlloc || e.action == Action::SegmentMap) reserved += e.size;
        if (e.action == Action::SegmentFree || e.action == Action::SegmentUnmap) reserved -= e.size;
        t.allocated[i] = total;
        t.reserved[i] = reserved;
        if (total > t.peakBytes) {
            t.peakBytes = total;
            t.peakEvent = static_cast<int32_t>(i);
            t.peakTimeUs = e.timeUs;
            t.peakReserved = reserved;
        }
    }
    return t;
}

std::vector<size_t> liveAfter(const DeviceTimeline& t, int32_t event) {
    std::vector<size_t> out;
    for (size_t i = 0; i < t.allocations.size(); ++i)
        if (t.allocations[i].aliveAfter(event)) out.push_back(i);
    return out;
}

int32_t eventAtTime(const Snapshot& s, int64_t device, int64_t timeUs) {
    if (device < 0 || static_cast<size_t>(device) >= s.devices.size()) return -1;
    const auto& evs = s.devices[static_cast<size_t>(device)];
    auto it = std::upper_bound(evs.begin(), evs.end(), timeUs,
                               [](int64_t t, const TraceEvent& e) { return t < e.timeUs; });
    return static_cast<int32_t>(it - evs.begin()) - 1;
}

StackedLayout stackedLayout(const DeviceTimeline& t, size_t maxBands) {
    StackedLayout L;
    L.xEnd = static_cast<int32_t>(t.allocated.size()) + 1;
    const size_t n = t.allocations.size();
    std::vector<uint32_t> bySize(n);
    std::iota(bySize.begin(), bySize.end(), 0u);
    const size_t keep = std::min(maxBands, n);
    std::partial_sort(
        bySize.begin(), bySize.begin() + static_cast<std::ptrdiff_t>(keep), bySize.end(),
        [&](uint32_t a, uint32_t b) { return t.allocations[a].size > t.allocations[b].size; });
    std::vector<int32_t> bandOf(n, -1);
    std::vector<char> selected(n, 0);
    for (size_t i = 0; i < keep; ++i) selected[bySize[i]] = 1;
    // What happens at each event: allocations that start or end there.
    std::vector<std::vector<uint32_t>> at(t.allocated.size());
    for (uint32_t i = 0; i < n; ++i) {
        const Allocation& a = t.allocations[i];
        if (a.allocEvent >= 0) at[static_cast<size_t>(a.allocEvent)].push_back(i);
        if (a.freeEvent >= 0) at[static_cast<size_t>(a.freeEvent)].push_back(i);
    }
    std::vector<uint32_t> current;  // bands in stack order
    int64_t drawnTotal = 0, summedTotal = 0;
    auto addBand = [&](uint32_t a, int32_t x) {
        Band b;
        b.allocation = a;
        b.size = t.allocations[a].size;
        b.x.push_back(x);
        b.offset.push_back(drawnTotal);
        b.end = L.xEnd;
        bandOf[a] = static_cast<int32_t>(L.bands.size());
        current.push_back(static_cast<uint32_t>(L.bands.size()));
        L.bands.push_back(std::move(b));
        drawnTotal += t.allocations[a].size;
        ++L.drawn;
    };
    Band summed;
    summed.allocation = UINT32_MAX;
    summed.end = L.xEnd;
    auto noteSummed = [&](int32_t x) {
        if (!summed.x.empty() && summed.x.back() == x) {
            summed.offset.back() = drawnTotal;
            summed.sizes.back() = summedTotal;
        } else {
            summed.x.push_back(x);
            summed.offset.push_back(drawnTotal);
            summed.sizes.push_back(summedTotal);
        }
        L.maxTop = std::max(L.maxTop, drawnTotal + summedTotal);
    };
    for (uint32_t i = 0; i < n; ++i)
        if (t.allocations[i].allocEvent < 0) {
            if (selected[i])
                addBand(i, 0);
            else {
                summedTotal += t.allocations[i].size;
                ++L.summed;
            }
        }
    noteSummed(0);
    for (size_t e = 0; e < at.size(); ++e) {
        const auto x = static_cast<int32_t>(e) + 1;
        for (uint32_t a : at[e]) {
            const Allocation& al = t.allocations[a];
            const bool starts = al.allocEvent == static_cast<int32_t>(e);
            if (!selected[a]) {  // summed
                if (starts) {
                    summedTotal += al.size;
                    ++L.summed;
                } else {
                    summedTotal -= al.size;
                }
                continue;
            }
            if (starts) {
                addBand(a, x);
                continue;
            }
            // Freed: close its band, drop the ones above it.
            if (bandOf[a] < 0) continue;
            const auto band = static_cast<uint32_t>(bandOf[a]);
            auto pos = std::find(current.begin(), current.end(), band);
            if (pos == current.end()) continue;
            L.bands[band].end = x;
            for (auto it = pos + 1; it != current.end(); ++it) {
                Band& b = L.bands[*it];
                b.x.push_back(x);
                b.offset.push_back(b.offset.back() - al.size);
            }
            current.erase(pos);
            drawnTotal -= al.size;
        }
        if (!at[e].empty()) noteSummed(x);
    }
    L.bands.push_back(std::move(summed));
    return L;
}

}  // namespace ts::memory
