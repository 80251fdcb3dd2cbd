#include "core/memory/snapshot_report.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace ts::memory {

namespace {

constexpr int64_t kLargeRequest = 1 << 20;  // above: served from large segments

/// Event indices that end a step: the ends of "Optimizer.step" annotations when the file has
/// at least 3, else 7 cuts that split the trace into 8 equal parts.
std::vector<int32_t> stepEnds(const Snapshot& s, int64_t device, size_t events, std::string& from) {
    std::vector<int32_t> ends;
    for (const Annotation& a : s.annotations)
        if (!a.start && a.device == device && a.timeUs >= 0 &&
            s.str(a.name).rfind("Optimizer.step", 0) == 0)
            ends.push_back(eventAtTime(s, device, a.timeUs));
    std::sort(ends.begin(), ends.end());
    ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
    if (ends.size() >= 3) {
        from = std::to_string(ends.size()) + " Optimizer.step annotations";
        if (ends.size() > 64) {  // every k-th step end: enough to see growth, bounded work
            std::vector<int32_t> some;
            for (size_t k = 1; k <= 64; ++k) some.push_back(ends[ends.size() * k / 64 - 1]);
            ends = std::move(some);
            from += ", 64 of them looked at";
        }
        return ends;
    }
    ends.clear();
    if (events < 8) return ends;
    for (size_t k = 1; k < 8; ++k) ends.push_back(static_cast<int32_t>(events * k / 8) - 1);
    from = "8 equal parts of the trace (no Optimizer.step annotations)";
    return ends;
}

}  // namespace

std::string siteName(const Snapshot& s, uint32_t stack) {
    const Frame* f = siteFrame(s, stack);
    return f ? frameText(s, *f)
             : std::string(
                   "<no frames: recorded without stacks, or before "
                   "_record_memory_history>");
}

namespace {

/// siteName per stack, computed once.
class SiteNames {
public:
    explicit SiteNames(const Snapshot& s) : m_s(s) {}
    const std::string& operator()(uint32_t stack) {
        auto it = m_names.find(stack);
        if (it == m_names.end()) it = m_names.emplace(stack, siteName(m_s, stack)).first;
        return it->second;
    }

private:
    const Snapshot& m_s;
    std::unordered_map<uint32_t, std::string> m_names;
};

}  // namespace

std::vector<SiteGroup> groupBySite(const Snapshot& s, const DeviceTimeline& t,
                                   const std::vector<size_t>& allocations, size_t top) {
    std::map<std::string, SiteGroup> groups;
    SiteNames names(s);
    for (size_t i : allocations) {
        const Allocation& a = t.allocations[i];
        SiteGroup& g = groups[names(a.stack)];
        g.bytes += a.size;
        ++g.count;
        g.allocations.push_back(i);
    }
    std::vector<SiteGroup> out;
    out.reserve(groups.size());
    for (auto& [name, g] : groups) {
        g.site = name;
        std::stable_sort(g.allocations.begin(), g.allocations.end(), [&](size_t a, size_t b) {
            return t.allocations[a].size > t.allocations[b].size;
        });
        g.stack = t.allocations[g.allocations.front()].stack;
        out.push_back(std::move(g));
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const SiteGroup& a, const SiteGroup& b) { return a.bytes > b.bytes; });
    if (top && out.size() > top) out.resize(top);
    return out;
}

namespace {

std::vector<Leak> findLeaks(const Snapshot& s, const DeviceTimeline& t,
                            const std::vector<int32_t>& ends) {
    std::vector<Leak> leaks;
    if (ends.size() < 3) return leaks;
    // Sites with allocations made during the trace and alive at its end.
    std::map<std::string, std::vector<size_t>> bySite;  // every allocation of those sites
    std::map<std::string, int64_t> aliveMade;
    SiteNames names(s);
    for (size_t i = 0; i < t.allocations.size(); ++i) {
        const Allocation& a = t.allocations[i];
        if (a.allocEvent >= 0 && a.freeEvent < 0) ++aliveMade[names(a.stack)];
    }
    for (size_t i = 0; i < t.allocations.size(); ++i) {
        const std::string& site = names(t.allocations[i].stack);
        if (aliveMade.count(site) && aliveMade[site] >= 3) bySite[site].push_back(i);
    }
    std::vector<int32_t> cuts = ends;
    cuts.push_back(static_cast<int32_t>(t.allocated.size()) - 1);  // the end of the trace
    for (const auto& [site, list] : bySite) {
        std::vector<int64_t> live(cuts.size(), 0);
        for (size_t k = 0; k < cuts.size(); ++k)
            for (size_t i : list)
                if (t.allocations[i].aliveAfter(cuts[k])) live[k] += t.allocations[i].size;
        int32_t grew = 0, shrank = 0;
        int64_t growth = 0;
        size_t first = cuts.size();
        for (size_t k = 0; k < cuts.size(); ++k) {
            const int64_t prev = k ? live[k - 1] : 0;
            if (live[k] > prev) {
                ++grew;
                growth += live[k] - prev;
                if (first == cuts.size()) first = k;
            } else if (live[k] < prev) {
                ++shrank;
            }
        }
        const auto span = static_cast<int32_t>(cuts.size() - std::min(first, cuts.size()));
        const size_t late = cuts.size() * 2 / 3;
        if (grew < 3 || shrank > 0 || grew * 2 < span || live.back() <= live[late - 1]) continue;
        Leak L;
        L.site = site;
        L.steps = static_cast<int32_t>(cuts.size());
        L.stepsGrown = grew;
        L.bytesPerStep = growth / grew;
        for (size_t i : list) {
            const Allocation& a = t.allocations[i];
            if (a.freeEvent >= 0 || a.allocEvent < 0) continue;
            ++L.count;
            L.bytes += a.size;
            if (L.firstEvent < 0 || a.allocEvent < L.firstEvent) L.firstEvent = a.allocEvent;
            if (a.allocEvent >= L.lastEvent) {
                L.lastEvent = a.allocEvent;
                L.stack = a.stack;
            }
        }
        const auto& evs = s.devices[static_cast<size_t>(t.device)];
        L.firstTimeUs = evs[static_cast<size_t>(L.firstEvent)].timeUs;
        L.lastTimeUs = evs[static_cast<size_t>(L.lastEvent)].timeUs;
        leaks.push_back(std::move(L));
    }
    std::stable_sort(leaks.begin(), leaks.end(),
                     [](const Leak& a, const Leak& b) { return a.bytes > b.bytes; });
    return leaks;
}

OomAnswer answerOom(const Snapshot& s, const DeviceTimeline& t, int32_t i, size_t top) {
    const TraceEvent& e = s.devices[static_cast<size_t>(t.device)][static_cast<size_t>(i)];
    OomAnswer o;
    o.event = i;
    o.timeUs = e.timeUs;
    o.requested = e.size;
    o.deviceFree = static_cast<int64_t>(e.addr);
    o.stream = e.stream;
    o.stack = e.stack;
    const AllocatorState st = allocatorStateAt(s, t.device, i);
    o.reserved = st.reserved;
    o.allocated = st.allocated;
    // The allocator serves a request from segments of its size class only.
    const bool large = e.size > kLargeRequest;
    for (const StateSegment& g : st.segments) {
        if (g.isLarge != large) continue;
        o.freeInSegments += g.freeBytes;
        o.largestFree = std::max(o.largestFree, g.largestFree);
    }
    o.fragmentation = o.requested <= o.freeInSegments && o.requested > o.largestFree;
    const std::string ask = sizeText(o.requested);
    if (o.fragmentation)
        o.verdict = "fragmentation: " + sizeText(o.freeInSegments) +
                    " was free in the allocator's " + (large ? "large" : "small") +
                    " segments, more than the " + ask + " asked for, but in pieces of at most " +
                    sizeText(o.largestFree) +
                    " (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True lets a segment grow "
                    "instead)";
    else if (o.deviceFree < o.requested)
        o.verdict = "the GPU was full: CUDA reported " + sizeText(o.deviceFree) + " free, " + ask +
                    " was asked for; the allocator held " + sizeText(o.reserved) + ", " +
                    sizeText(o.allocated) + " of it allocated";
    else
        o.verdict = "a limit refused it: CUDA reported " + sizeText(o.deviceFree) +
                    " free, more than the " + ask +
                    " asked for, so a cap on this process (set_per_process_memory_fraction, a "
                    "CUDA graph's pool) stopped the allocator at " +
                    sizeText(o.reserved) + " reserved, " + sizeText(o.allocated) + " allocated";
    o.liveBySite = groupBySite(s, t, liveAfter(t, i), top);
    return o;
}

}  // namespace

SnapshotReport analyzeSnapshot(const Snapshot& s, size_t top, JobControl* job) {
    SnapshotReport r;
    r.layout = s.layout;
    r.pickleProtocol = s.pickleProtocol;
    r.frames = s.frames.size();
    r.stacks = s.stackCount();
    r.segments = s.segments.size();
    r.blocks = s.blocks.size();
    r.allocatorSettings = s.allocatorSettings;
    r.notes = s.notes;
    for (int64_t dev : snapshotDevices(s)) {
        if (job && job->cancelled()) break;
        DeviceReport d;
        d.device = dev;
        d.timeline = buildTimeline(s, dev);
        d.events = d.timeline.allocated.size();
        const auto live = liveAfter(d.timeline, d.timeline.peakEvent);
        d.liveAtPeak = static_cast<int64_t>(live.size());
        d.peakBySite = groupBySite(s, d.timeline, live, top);
        d.atPeak = allocatorStateAt(s, dev, d.timeline.peakEvent);
        d.atEnd = allocatorStateAt(s, dev, INT32_MAX);
        if (d.events) {
            const auto ends = stepEnds(s, dev, d.events, d.stepsFrom);
            d.leaks = findLeaks(s, d.timeline, ends);
            const auto& evs = s.devices[static_cast<size_t>(dev)];
            for (size_t i = 0; i < evs.size(); ++i)
                if (evs[i].action == Action::Oom && d.oomEvents++ < kMaxOomAnswers)
                    d.ooms.push_back(answerOom(s, d.timeline, static_cast<int32_t>(i), top));
        }
        r.devices.push_back(std::move(d));
    }
    return r;
}

}  // namespace ts::memory
