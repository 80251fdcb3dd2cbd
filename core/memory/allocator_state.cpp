#include "core/memory/allocator_state.h"

#include <algorithm>
#include <map>

namespace ts::memory {

namespace {

struct Seg {
    uint64_t addr;
    int64_t size;
    int64_t stream;
    bool isLarge;
    uint32_t stack;
};

/// Undoes a segment_free (merge=false) or segment_unmap (merge=true): the range is back.
void mapRange(std::vector<Seg>& segs, Seg seg, bool merge) {
    auto pos = std::upper_bound(segs.begin(), segs.end(), seg.addr,
                                [](uint64_t a, const Seg& s) { return a < s.addr; });
    pos = segs.insert(pos, seg);
    if (!merge) return;
    if (pos + 1 != segs.end() && pos->addr + static_cast<uint64_t>(pos->size) == (pos + 1)->addr &&
        pos->stream == (pos + 1)->stream) {
        pos->size += (pos + 1)->size;
        segs.erase(pos + 1);
    }
    if (pos != segs.begin() &&
        (pos - 1)->addr + static_cast<uint64_t>((pos - 1)->size) == pos->addr &&
        (pos - 1)->stream == pos->stream) {
        (pos - 1)->size += pos->size;
        segs.erase(pos);
    }
}

/// Undoes a segment_alloc (merge=false) or segment_map (merge=true): the range goes.
void unmapRange(std::vector<Seg>& segs, uint64_t addr, int64_t size, bool merge) {
    if (!merge) {
        auto it =
            std::find_if(segs.begin(), segs.end(), [&](const Seg& s) { return s.addr == addr; });
        if (it != segs.end()) segs.erase(it);
        return;
    }
    const uint64_t end = addr + static_cast<uint64_t>(size);
    auto it = std::find_if(segs.begin(), segs.end(), [&](const Seg& s) {
        return s.addr <= addr && end <= s.addr + static_cast<uint64_t>(s.size);
    });
    if (it == segs.end()) return;
    const uint64_t existingEnd = it->addr + static_cast<uint64_t>(it->size);
    if (it->addr == addr) {
        it->addr += static_cast<uint64_t>(size);
        it->size -= size;
        if (it->size == 0) segs.erase(it);
    } else if (existingEnd == end) {
        it->size -= size;
    } else {
        Seg tail = *it;
        it->size = static_cast<int64_t>(addr - it->addr);
        tail.addr = end;
        tail.size = static_cast<int64_t>(existingEnd - end);
        segs.insert(it + 1, tail);
    }
}

}  // namespace

AllocatorState allocatorStateAt(const Snapshot& s, int64_t device, int32_t event) {
    AllocatorState st;
    st.device = device;
    std::vector<Seg> segs;
    std::map<uint64_t, StateBlock> blocks;
    for (const Segment& g : s.segments) {
        if (g.device != device) continue;
        segs.push_back({g.address, g.totalSize, g.stream, g.isLarge, g.stack});
        for (uint32_t b = g.firstBlock; b < g.firstBlock + g.blockCount; ++b) {
            const Block& k = s.blocks[b];
            if (k.state != BlockState::ActiveAllocated && k.state != BlockState::ActivePendingFree)
                continue;
            blocks[k.address] = {k.address, k.size, k.requestedSize, k.stack,
                                 k.state == BlockState::ActivePendingFree};
        }
    }
    std::sort(segs.begin(), segs.end(), [](const Seg& a, const Seg& b) { return a.addr < b.addr; });
    static const std::vector<TraceEvent> kNone;
    const auto& evs = device >= 0 && static_cast<size_t>(device) < s.devices.size()
                          ? s.devices[static_cast<size_t>(device)]
                          : kNone;
    const int32_t last = static_cast<int32_t>(evs.size()) - 1;
    st.event = std::min(event, last);
    for (int32_t i = last; i > event && i >= 0; --i) {
        const TraceEvent& e = evs[static_cast<size_t>(i)];
        switch (e.action) {
            case Action::FreeRequested:
                if (auto it = blocks.find(e.addr); it != blocks.end())
                    it->second.pendingFree = false;
                break;
            case Action::FreeCompleted:
                blocks[e.addr] = {e.addr, e.size, e.size, e.stack, true};
                break;
            case Action::Alloc:
                blocks.erase(e.addr);
                break;
            case Action::SegmentFree:
            case Action::SegmentUnmap:
                mapRange(segs, {e.addr, e.size, e.stream, e.size > (2 << 20), e.stack},
                         e.action == Action::SegmentUnmap);
                break;
            case Action::SegmentAlloc:
            case Action::SegmentMap:
                unmapRange(segs, e.addr, e.size, e.action == Action::SegmentMap);
                break;
            default:
                break;
        }
    }
    st.segments.reserve(segs.size());
    for (const Seg& g : segs) {
        StateSegment x;
        x.addr = g.addr;
        x.size = g.size;
        x.stream = g.stream;
        x.isLarge = g.isLarge;
        x.stack = g.stack;
        st.segments.push_back(std::move(x));
    }
    // Blocks into their segments (both sorted by address).
    size_t si = 0;
    for (const auto& [addr, b] : blocks) {
        while (si < st.segments.size() &&
               st.segments[si].addr + static_cast<uint64_t>(st.segments[si].size) <= addr)
            ++si;
        if (si == st.segments.size() || addr < st.segments[si].addr) {
            ++st.orphanBlocks;
            continue;
        }
        st.segments[si].blocks.push_back(b);
    }
    for (StateSegment& g : st.segments) {
        uint64_t cursor = g.addr;
        const uint64_t end = g.addr + static_cast<uint64_t>(g.size);
        for (const StateBlock& b : g.blocks) {
            if (b.addr > cursor)
                g.largestFree = std::max(g.largestFree, static_cast<int64_t>(b.addr - cursor));
            g.used += b.size;
            g.allocated += b.requested;
            cursor = std::max(cursor, b.addr + static_cast<uint64_t>(b.size));
        }
        if (end > cursor)
            g.largestFree = std::max(g.largestFree, static_cast<int64_t>(end - cursor));
        g.freeBytes = g.size - g.used;
        st.reserved += g.size;
        st.used += g.used;
        st.allocated += g.allocated;
        st.freeBytes += g.freeBytes;
        st.largestFree = std::max(st.largestFree, g.largestFree);
    }
    return st;
}

}  // namespace ts::memory
