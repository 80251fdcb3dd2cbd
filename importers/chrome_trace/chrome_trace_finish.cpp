// ChromeTraceBuilder, second half: async and flow events, and the end of the import
// (clock alignment, closing unmatched begins, sorting tracks, depth, slice rows, flow
// binding, stack samples).
#include <algorithm>
#include <atomic>
#include <numeric>
#include <queue>
#include <thread>
#include <unordered_map>

#include "core/common/json.h"
#include "importers/chrome_trace/chrome_trace_builder.h"

namespace ts::importers::chrome {

void ChromeTraceBuilder::async(const ChromeEvent& e, int64_t ts) {
    const char ph = e.ph[0];
    Process& p = process(pidOf(e));
    m_key.assign(std::to_string(p.id)).append("|").append(e.cat).append("|").append(idOf(e));
    auto it = m_asyncTracks.find(m_key);
    if (it == m_asyncTracks.end()) {
        if (ph == 'e' || ph == 'F')
            return skip("json_unmatched_async_end", e, "async end without a begin");
        TrackBuf t;
        t.trackId = m_w.addTrack("async", p.id, 0, e.name);
        m_tracks.push_back(std::move(t));
        it = m_asyncTracks.emplace(m_key, static_cast<uint32_t>(m_tracks.size() - 1)).first;
    }
    TrackBuf& t = m_tracks[it->second];
    t.maxTs = std::max(t.maxTs, ts);
    m_report.seeTime(ts, ts);
    if (ph == 'b' || ph == 'S') {
        t.open.push_back({ts, 0, m_w.intern(e.name), m_w.intern(e.cat), args(e),
                          store::kSliceUnfinished, t.nextSeq++});
        t.lastStep = ts;
        ++m_report.asyncSlices;
    } else if (ph == 'n' || ph == 'T') {
        hold(t, {ts, 0, m_w.intern(e.name), m_w.intern(e.cat), args(e), 0, t.nextSeq++});
        t.lastStep = ts;
        ++m_report.asyncSlices;
    } else if (ph == 'p') {  // step past: the step that ends here, from the previous point
        const int64_t from = t.lastStep != INT64_MIN && t.lastStep <= ts ? t.lastStep : ts;
        hold(t, {from, ts - from, m_w.intern(e.name), m_w.intern(e.cat), args(e), 0, t.nextSeq++});
        t.lastStep = ts;
        ++m_report.asyncSlices;
    } else {  // 'e' / 'F': close the innermost open slice of this id
        if (t.open.empty()) return skip("json_unmatched_async_end", e, "async end without a begin");
        Slice s = t.open.back();
        t.open.pop_back();
        s.dur = std::max<int64_t>(0, ts - s.ts);
        s.flags = 0;
        hold(t, s);
    }
}

void ChromeTraceBuilder::flow(const ChromeEvent& e, int64_t ts, char phase) {
    if (!e.hasId) return skip("json_flow_without_id", e, "flow event without \"id\"");
    m_key.assign(e.cat).append("|").append(e.id);
    auto [it, _] = m_flowKeys.emplace(m_key, static_cast<uint32_t>(m_flowKeys.size()));
    const bool enclosing = phase != 'f' || e.bp == "e";
    m_flows.push_back({it->second, thread(e), static_cast<uint32_t>(m_flows.size()), ts, phase,
                       enclosing, -1, m_w.intern(e.name), m_w.intern(e.cat)});
}

void ChromeTraceBuilder::closeOpen(TrackBuf& t) {
    // B/b without an end and X without a dur: run to the end of the track's data
    for (std::vector<Slice>* list : {&t.open, &t.unfinished}) {
        for (Slice s : *list) {
            s.dur = std::max<int64_t>(0, t.maxTs - s.ts);
            m_report.seeTime(s.ts, s.ts + s.dur);
            hold(t, s);
        }
        std::vector<Slice>().swap(*list);
    }
}

namespace {

// The row of a held slice: its id (in sorted order) and depth (enclosing slices).
store::StoredSlice storedSlice(const HeldSlice& s, int64_t trackId, int64_t id, size_t depth) {
    store::StoredSlice r;
    r.id = id;
    r.row.trackId = trackId;
    r.row.ts = s.ts;
    r.row.dur = s.dur;
    r.row.depth = static_cast<int32_t>(depth);
    r.row.nameId = s.nameId;
    r.row.catId = s.catId;
    r.row.argSetId = s.argId;
    r.row.flags = s.flags;
    return r;
}

}  // namespace

// Sorts a track, computes depth and parents, and encodes its chunks. Touches only `t` (and
// no store), so tracks are prepared on two threads at once.
store::TrackChunks ChromeTraceBuilder::prepareTrack(TrackBuf& t) {
    // Most writers emit a thread's events in order already.
    if (!std::is_sorted(t.slices.begin(), t.slices.end(), heldBefore))
        std::sort(t.slices.begin(), t.slices.end(), heldBefore);
    const size_t n = t.slices.size();
    t.pos.assign(n, 0);
    t.parent.assign(n, -1);
    std::vector<int32_t> stack;
    store::TrackChunkEncoder chunks(t.trackId);
    for (size_t i = 0; i < n; ++i) {
        const Slice& s = t.slices[i];
        t.pos[s.seq] = static_cast<uint32_t>(i);
        while (!stack.empty()) {
            const Slice& top = t.slices[static_cast<size_t>(stack.back())];
            if (s.ts < top.ts + top.dur) break;
            stack.pop_back();
        }
        t.parent[i] = stack.empty() ? -1 : stack.back();
        // rows come sorted by (ts, id): ids follow the sorted order
        chunks.add(storedSlice(s, t.trackId, t.firstId + static_cast<int64_t>(i), stack.size()));
        stack.push_back(static_cast<int32_t>(i));
    }
    return chunks.finish();
}

// The offset that puts this source's clock on an earlier source's: for the first of its
// clock syncs whose id another source has, the other's sync time minus this one's (a sync's
// time is the middle of [issue_ts, ts] on the side that issued it, else its ts). Writes the
// syncs (moved) and keeps what it did for clockAlignmentJson(). 0 when nothing matches.
int64_t ChromeTraceBuilder::alignClock() {
    if (m_clockSyncs.empty()) return 0;
    auto point = [](int64_t ts, std::optional<int64_t> issue) {
        return issue ? *issue + (ts - *issue) / 2 : ts;
    };
    int64_t offset = 0;
    const std::vector<store::StoreWriter::ClockSync> others = m_w.otherClockSyncs();
    for (const ClockSync& mine : m_clockSyncs) {
        auto it = std::find_if(others.begin(), others.end(),
                               [&](const auto& o) { return o.syncId == mine.id; });
        if (it == others.end()) continue;
        offset = point(it->ts, it->issueTs) - point(mine.ts, mine.issueTs);
        m_alignment = "{\"source\":" + std::to_string(it->sourceId) +
                      ",\"offset_ns\":" + std::to_string(offset) +
                      ",\"sync_id\":" + ts::json::quote(mine.id) + "}";
        break;
    }
    for (const ClockSync& c : m_clockSyncs)
        m_w.addClockSync(c.id, c.ts + offset,
                         c.issueTs ? std::optional<int64_t>(*c.issueTs + offset) : std::nullopt);
    if (offset != 0) {
        (void)m_w.shiftWrittenTimes(offset);
        if (m_report.tsMinNs) *m_report.tsMinNs += offset;
        if (m_report.tsMaxNs) *m_report.tsMaxNs += offset;
        for (TrackBuf& t : m_tracks) {
            for (std::vector<Slice>* list : {&t.slices, &t.open, &t.unfinished})
                for (Slice& s : *list) s.ts += offset;
            for (SpilledRun& r : t.runs) r.shift += offset;
            if (t.maxTs != INT64_MIN) t.maxTs += offset;
        }
        for (FlowPoint& f : m_flows) f.ts += offset;
    }
    return offset;
}

void ChromeTraceBuilder::writeTracks() {
    for (TrackBuf& t : m_tracks) closeOpen(t);  // (may spill)
    int64_t total = 0;
    for (TrackBuf& t : m_tracks) {
        // Each track's slices get consecutive ids in (ts, longest first) order.
        int64_t n = static_cast<int64_t>(t.slices.size());
        for (const SpilledRun& r : t.runs) n += static_cast<int64_t>(r.run.count);
        t.firstId = n ? m_w.reserveSliceIds(n) : 0;
        total += n;
    }
    // Tracks with slices on disk: merged and written one at a time, as they are read.
    for (uint32_t i = 0; i < m_tracks.size(); ++i)
        if (!m_tracks[i].runs.empty()) writeSpilledTrack(m_tracks[i], i);
    // The others (all held): the biggest first, taken in turns by this thread and a helper;
    // the writes stay on this thread (the store's connection is not shared).
    std::vector<size_t> order;
    for (size_t i = 0; i < m_tracks.size(); ++i)
        if (m_tracks[i].runs.empty()) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return m_tracks[a].slices.size() > m_tracks[b].slices.size();
    });
    std::vector<store::TrackChunks> encoded(m_tracks.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t k; (k = next.fetch_add(1)) < order.size();)
            encoded[order[k]] = prepareTrack(m_tracks[order[k]]);
    };
    if (total >= 50000 && m_tracks.size() > 1) {
        std::thread helper(work);
        work();
        helper.join();
    } else {
        work();
    }
    for (const store::TrackChunks& e : encoded)
        if (e.slices) m_w.addTrackChunks(e);
}

void ChromeTraceBuilder::writeSpilledTrack(TrackBuf& t, uint32_t trackIndex) {
    std::sort(t.slices.begin(), t.slices.end(), heldBefore);  // the last run, held
    // Its flow points: bound by arrival (bind_id), to the enclosing slice or to the next one
    // as the merge passes their time (what bind() finds in a sorted track).
    std::unordered_multimap<uint32_t, size_t> direct;
    std::vector<size_t> enclosing, next;
    for (size_t i = 0; i < m_flows.size(); ++i) {
        FlowPoint& p = m_flows[i];
        if (p.track != trackIndex) continue;
        p.bound = 0;
        if (p.slice >= 0)
            direct.emplace(static_cast<uint32_t>(p.slice), i);
        else
            (p.enclosing ? enclosing : next).push_back(i);
    }
    auto byTs = [&](size_t a, size_t b) { return m_flows[a].ts < m_flows[b].ts; };
    std::stable_sort(enclosing.begin(), enclosing.end(), byTs);
    std::stable_sort(next.begin(), next.end(), byTs);

    std::vector<SliceSpill::Reader> readers;
    for (const SpilledRun& r : t.runs) readers.emplace_back(*m_spill, r.run);
    size_t heldAt = 0;
    auto pull = [&](size_t src, Slice& out) {
        if (src == readers.size()) {
            if (heldAt == t.slices.size()) return false;
            out = t.slices[heldAt++];
            return true;
        }
        if (!readers[src].next(out)) return false;
        out.ts += t.runs[src].shift;
        return true;
    };
    struct Head {
        Slice s;
        size_t src;
    };
    auto later = [](const Head& a, const Head& b) { return heldBefore(b.s, a.s); };
    std::priority_queue<Head, std::vector<Head>, decltype(later)> heads(later);
    for (size_t src = 0; src <= readers.size(); ++src)
        if (Slice s{}; pull(src, s)) heads.push({s, src});

    struct Open {
        int64_t ts, end, id;
    };
    std::vector<Open> stack;  // the current slice and the ones enclosing it
    auto enclosingAt = [&](int64_t ts) -> int64_t {
        for (auto it = stack.rbegin(); it != stack.rend(); ++it)
            if (ts < it->end || ts == it->ts) return it->id;
        return 0;
    };
    store::TrackChunkEncoder chunks(t.trackId);
    size_t e = 0, n = 0;
    int64_t id = t.firstId;
    while (!heads.empty()) {
        const Head h = heads.top();
        heads.pop();
        const Slice& s = h.s;
        for (; e < enclosing.size() && m_flows[enclosing[e]].ts < s.ts; ++e)
            m_flows[enclosing[e]].bound = enclosingAt(m_flows[enclosing[e]].ts);
        for (; n < next.size() && m_flows[next[n]].ts <= s.ts; ++n) m_flows[next[n]].bound = id;
        while (!stack.empty() && s.ts >= stack.back().end) stack.pop_back();
        chunks.add(storedSlice(s, t.trackId, id, stack.size()));
        auto [lo, hi] = direct.equal_range(s.seq);
        for (auto it = lo; it != hi; ++it) m_flows[it->second].bound = id;
        stack.push_back({s.ts, s.ts + s.dur, id});
        ++id;
        if (Slice more{}; pull(h.src, more)) heads.push({more, h.src});
        if (chunks.pendingChunks() >= 64) m_w.addTrackChunks(chunks.takeChunks());
    }
    for (; e < enclosing.size(); ++e)
        m_flows[enclosing[e]].bound = enclosingAt(m_flows[enclosing[e]].ts);
    m_w.addTrackChunks(chunks.finish());
    for (const SliceSpill::Reader& r : readers)
        if (!r.error().empty() && m_spillError.empty()) m_spillError = r.error();
    std::vector<Slice>().swap(t.slices);
}

int64_t ChromeTraceBuilder::bind(const FlowPoint& p) {
    const TrackBuf& t = m_tracks[p.track];
    if (t.slices.empty()) return 0;
    if (p.slice >= 0) return t.firstId + t.pos[static_cast<size_t>(p.slice)];
    auto it = std::upper_bound(t.slices.begin(), t.slices.end(), p.ts,
                               [](int64_t ts, const Slice& s) { return ts < s.ts; });
    if (!p.enclosing) {  // next slice: the first one starting at or after ts
        auto next = std::lower_bound(t.slices.begin(), t.slices.end(), p.ts,
                                     [](const Slice& s, int64_t ts) { return s.ts < ts; });
        return next == t.slices.end() ? 0 : t.firstId + (next - t.slices.begin());
    }
    int64_t i = (it - t.slices.begin()) - 1;
    while (i >= 0) {
        const Slice& s = t.slices[static_cast<size_t>(i)];
        if (p.ts < s.ts + s.dur || p.ts == s.ts) return t.firstId + i;
        i = t.parent[static_cast<size_t>(i)];
    }
    return 0;
}

void ChromeTraceBuilder::finish() {
    const int64_t offset = alignClock();
    writeTracks();
    std::stable_sort(m_flows.begin(), m_flows.end(), [](const FlowPoint& a, const FlowPoint& b) {
        // within one id: in time order, a start before a step before a finish at equal ts
        auto rank = [](char ph) { return ph == 's' ? 0 : ph == 't' ? 1 : 2; };
        if (a.key != b.key) return a.key < b.key;
        if (a.ts != b.ts) return a.ts < b.ts;
        return rank(a.phase) < rank(b.phase);
    });
    int64_t prev = 0, prevName = 0, prevCat = 0;
    bool open = false;    // an 's' of this id came before (a chain is running)
    bool linked = false;  // ... and a step or end followed it
    uint32_t prevKey = UINT32_MAX;
    // A start that no step or end of its id followed draws no arrow: counted, not dropped
    // (Kineto's ac2g starts whose GPU side was not recorded). An unbound one was counted.
    auto endChain = [&] {
        if (open && !linked && prev != 0) {
            m_report.skip("json_flow_start_without_end");
            m_w.logProblem("json_flow_start_without_end", -1, "s",
                           "flow start whose id has no step or end after it");
        }
        open = linked = false;
    };
    for (const FlowPoint& p : m_flows) {
        if (p.key != prevKey) {
            endChain();
            prev = 0;
        }
        prevKey = p.key;
        const int64_t slice = p.bound >= 0 ? p.bound : bind(p);
        if (!slice) {
            m_report.skip("json_flow_unbound");
            m_w.logProblem("json_flow_unbound", -1, std::string(1, p.phase),
                           "flow endpoint with no slice to bind to on its thread");
        }
        if (p.phase == 's') {
            endChain();
            open = true;
            prev = slice;
            prevName = p.nameId;
            prevCat = p.catId;
            continue;
        }
        if (!open) {
            m_report.skip("json_flow_without_start");
            m_w.logProblem("json_flow_without_start", -1, std::string(1, p.phase),
                           "flow step or end whose id has no start before it");
            continue;
        }
        if (prev && slice) {
            m_w.addFlow(prev, slice, prevName ? prevName : p.nameId, prevCat ? prevCat : p.catId);
            ++m_report.flows;
        }
        linked = true;
        if (p.phase == 't') {
            if (slice) prev = slice;  // an unbound step keeps the chain on its last slice
        } else {
            open = false;
            prev = 0;
        }
    }
    endChain();
    m_flows.clear();
    // Samples after the slices: a global sample's tid may name a thread only seen there.
    m_samples.finish(
        offset,
        [&](uint32_t thread) {
            TrackBuf& t = m_tracks[thread];
            if (!t.samplesTrack)
                t.samplesTrack =
                    m_w.addTrack("samples", t.processRowId, t.threadRowId, "Samples", 1);
            return t.samplesTrack;
        },
        [&](const std::string& tid) {
            auto it = m_firstThreadOfTid.find(tid);
            return it != m_firstThreadOfTid.end() ? it->second : threadLookup(kNoText, tid);
        });
    for (TrackBuf& t : m_tracks) {
        std::vector<Slice>().swap(t.slices);
        std::vector<uint32_t>().swap(t.pos);
        std::vector<int32_t>().swap(t.parent);
    }
}

}  // namespace ts::importers::chrome
