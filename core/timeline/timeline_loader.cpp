// loadTimelineModel: reads a session into TimelineModel columns. Slices are read chunk by
// chunk in track ranges on several read-only connections at once, bucketed per (track,
// depth), then each bucket is sorted by start and laid out into non-overlapping levels.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <numeric>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "core/store/slice_chunk_reader.h"
#include "core/store/trace_store.h"
#include "core/timeline/timeline_model.h"

namespace ts::timeline {
namespace {

using store::SqliteDb;
using store::Statement;

struct Bucket {
    std::vector<int64_t> ts, dur, id;
    std::vector<uint32_t> name;
};
using TrackBuckets = std::vector<std::vector<Bucket>>;  // [track][depth]

TrackKind kindOf(std::string_view k) {
    if (k == "async") return TrackKind::Async;
    if (k == "counter") return TrackKind::Counter;
    if (k == "gpu_stream") return TrackKind::GpuStream;
    return TrackKind::Thread;
}

/// Numeric value of a pid/tid kept as text, for ordering ("10" after "9").
int64_t numericOr(const std::string& s, int64_t fallback) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size() ? v : fallback;
}

template <class T>
void permute(std::vector<T>& v, const std::vector<uint32_t>& order) {
    std::vector<T> out(v.size());
    for (size_t i = 0; i < order.size(); ++i) out[i] = v[order[i]];
    v.swap(out);
}

/// Sorts a bucket by start (longest first on ties) and splits it into levels that do not
/// overlap: a slice starting before the previous one ends goes to the first level it fits.
void appendLevels(int32_t depth, Bucket& b, std::vector<SliceLevel>& out) {
    const size_t n = b.ts.size();
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; ++i)
        sorted = b.ts[i - 1] < b.ts[i] || (b.ts[i - 1] == b.ts[i] && b.dur[i - 1] >= b.dur[i]);
    if (!sorted) {
        std::vector<uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
            return b.ts[x] != b.ts[y] ? b.ts[x] < b.ts[y] : b.dur[x] > b.dur[y];
        });
        permute(b.ts, order);
        permute(b.dur, order);
        permute(b.id, order);
        permute(b.name, order);
    }
    bool overlaps = false;
    for (size_t i = 1; i < n && !overlaps; ++i) overlaps = b.ts[i] < b.ts[i - 1] + b.dur[i - 1];
    if (!overlaps) {
        SliceLevel lv;
        lv.depth = depth;
        lv.ts = std::move(b.ts);
        lv.dur = std::move(b.dur);
        lv.name = std::move(b.name);
        lv.sliceId = std::move(b.id);
        out.push_back(std::move(lv));
        return;
    }
    std::vector<SliceLevel> levels;
    std::vector<int64_t> lastEnd;
    for (size_t i = 0; i < n; ++i) {
        size_t l = 0;
        while (l < levels.size() && lastEnd[l] > b.ts[i]) ++l;
        if (l == levels.size()) {
            levels.emplace_back().depth = depth;
            lastEnd.push_back(0);
        }
        SliceLevel& lv = levels[l];
        lv.ts.push_back(b.ts[i]);
        lv.dur.push_back(b.dur[i]);
        lv.name.push_back(b.name[i]);
        lv.sliceId.push_back(b.id[i]);
        lastEnd[l] = b.ts[i] + b.dur[i];
    }
    for (auto& lv : levels) out.push_back(std::move(lv));
    b = Bucket{};
}

struct TrackIndex {
    std::unordered_map<int64_t, int> byId;
    int lookup(int64_t id, int64_t& lastId, int& last) const {
        if (id == lastId) return last;
        auto it = byId.find(id);
        lastId = id;
        last = it == byId.end() ? -1 : it->second;
        return last;
    }
};

/// Reads the slices of tracks with id in [lo, hi] into per-track buckets on its own
/// connection, a chunk at a time (columns, not rows: no SQL per slice); chunks come by
/// track and time, so a track's buckets are usually sorted already.
Status readSliceRange(const std::string& path, int64_t lo, int64_t hi, const TrackIndex& idx,
                      TrackBuckets& buckets, JobControl* job, std::atomic<int64_t>& orphans) {
    auto db = SqliteDb::open(path, SqliteDb::Mode::ReadOnly);
    if (!db) return Error{db.error()};
    constexpr uint32_t kColumns = (1u << store::kSliceId) | (1u << store::kSliceTs) |
                                  (1u << store::kSliceDur) | (1u << store::kSliceDepth) |
                                  (1u << store::kSliceName);
    int64_t lastId = -1;
    int last = -1;
    return store::forEachSliceChunk(
        db->handle(), lo, hi, kColumns,
        [&](const store::ChunkInfo& c, const store::SliceColumns& cols) -> Status {
            const int t = idx.lookup(c.trackId, lastId, last);
            if (t < 0) {
                orphans.fetch_add(static_cast<int64_t>(cols.count), std::memory_order_relaxed);
                return {};
            }
            auto& byDepth = buckets[t];
            for (size_t i = 0; i < cols.count; ++i) {
                const auto depth = static_cast<size_t>(std::clamp<int32_t>(cols.depth[i], 0, 4096));
                if (byDepth.size() <= depth) byDepth.resize(depth + 1);
                Bucket& b = byDepth[depth];
                b.ts.push_back(cols.ts[i]);
                b.dur.push_back(std::max<int64_t>(0, cols.dur[i]));
                b.name.push_back(static_cast<uint32_t>(cols.nameId[i]));
                b.id.push_back(cols.id[i]);
            }
            if (job) {
                job->addDone(static_cast<uint64_t>(cols.count));
                if (job->cancelled()) return Error{"cancelled"};
            }
            return {};
        });
}

Status readStructure(store::TraceStore& s, TimelineModel& m, TrackIndex& idx) {
    SqliteDb& db = s.db();
    {
        auto maxId = db.queryInt("SELECT coalesce(max(id), 0) FROM strings");
        if (!maxId) return Error{maxId.error()};
        if (maxId.value() > (int64_t{1} << 31)) return Error{"string table too large"};
        m.strings.resize(static_cast<size_t>(maxId.value()) + 1);
        Statement st = db.prepare("SELECT id, str FROM strings");
        while (st.step()) {
            // (a damaged or hand-made file may hold ids below 0 or past max(id): found by
            // fuzz_session_open)
            const int64_t id = st.int64(0);
            if (id >= 0 && static_cast<size_t>(id) < m.strings.size())
                m.strings[static_cast<size_t>(id)] = st.text(1);
        }
        if (!st.error().empty()) return Error{st.error()};
    }
    struct Proc {
        int64_t id, source, sortIndex, pidNum;
        std::string title;
    };
    std::vector<Proc> procs;
    Statement ps = db.prepare(
        "SELECT id, source_id, pid, coalesce(name, ''), coalesce(sort_index, 0), "
        "coalesce(labels, '') FROM processes");
    while (ps.step()) {
        const std::string pid = ps.text(2);
        procs.push_back({ps.int64(0), ps.int64(1), ps.int64(4), numericOr(pid, INT64_MAX),
                         processTitle(ps.text(3), pid, ps.text(5))});
    }
    std::sort(procs.begin(), procs.end(), [](const Proc& a, const Proc& b) {
        return std::tie(a.sortIndex, a.source, a.pidNum, a.id) <
               std::tie(b.sortIndex, b.source, b.pidNum, b.id);
    });
    std::unordered_map<int64_t, size_t> groupOf;
    for (const Proc& p : procs) {
        groupOf[p.id] = m.groups.size();
        m.groups.push_back({p.id, p.source, p.title, {}, {}});
    }
    struct TrackRow {
        TimelineTrack track;
        int64_t threadSort = INT64_MIN, tidNum = INT64_MIN;
    };
    std::vector<TrackRow> rows;
    Statement ts = db.prepare(
        "SELECT t.id, t.kind, t.source_id, coalesce(t.process_id, 0), coalesce(t.thread_id, 0), "
        "coalesce(t.name_id, 0), coalesce(t.sort_index, 0), th.tid, coalesce(th.name, ''), "
        "coalesce(th.sort_index, 0) FROM tracks t LEFT JOIN threads th ON th.id = t.thread_id");
    while (ts.step()) {
        TrackRow r;
        TimelineTrack& t = r.track;
        t.id = ts.int64(0);
        t.kind = kindOf(ts.textView(1));
        t.sourceId = ts.int64(2);
        t.processId = ts.int64(3);
        t.threadId = ts.int64(4);
        const int64_t nameId = ts.int64(5);
        t.sortIndex = ts.int64(6);
        const std::string tid = ts.text(7), threadName = ts.text(8);
        t.name = nameId > 0 && static_cast<size_t>(nameId) < m.strings.size() ? m.strings[nameId]
                                                                              : std::string();
        if (t.name.empty() && t.threadId) t.name = threadTitle(threadName, tid);
        if (t.name.empty()) t.name = "Track " + std::to_string(t.id);
        if (t.threadId) {
            r.threadSort = ts.int64(9);
            r.tidNum = numericOr(tid, INT64_MAX);
        } else {
            // Process-level tracks (counters, async) come before the threads of equal sort
            // index, as in chrome://tracing; a writer that gives its threads a lower index
            // (our profiler: training thread -2, allocations -1) puts them first.
            r.threadSort = t.sortIndex;
        }
        rows.push_back(std::move(r));
    }
    if (!ts.error().empty()) return Error{ts.error()};
    std::sort(rows.begin(), rows.end(), [](const TrackRow& a, const TrackRow& b) {
        return std::tie(a.threadSort, a.tidNum, a.track.threadId, a.track.sortIndex, a.track.id) <
               std::tie(b.threadSort, b.tidNum, b.track.threadId, b.track.sortIndex, b.track.id);
    });
    size_t globalGroup = SIZE_MAX;
    for (TrackRow& r : rows) {
        const int index = static_cast<int>(m.tracks.size());
        idx.byId[r.track.id] = index;
        size_t gi = 0;
        if (auto g = groupOf.find(r.track.processId); g != groupOf.end()) {
            gi = g->second;
        } else {
            if (globalGroup == SIZE_MAX) {
                globalGroup = m.groups.size();
                m.groups.push_back({0, r.track.sourceId, "Global", {}, {}});
            }
            gi = globalGroup;
        }
        m.groups[gi].tracks.push_back(index);
        m.tracks.push_back(std::move(r.track));
    }
    std::erase_if(m.groups, [](const TrackGroup& g) { return g.tracks.empty(); });
    return {};
}

/// Splits the slice tracks into `parts` ranges of track ids holding about as many slices
/// each (counts from slice_name_stats, kept by the writer).
std::vector<std::pair<int64_t, int64_t>> splitTracks(store::TraceStore& s, int parts,
                                                     int64_t& total) {
    std::vector<std::pair<int64_t, int64_t>> counts;  // track id, slices
    Statement st = s.db().prepare(
        "SELECT track_id, sum(count) FROM slice_name_stats GROUP BY track_id ORDER BY track_id");
    total = 0;
    while (st.step()) {
        counts.emplace_back(st.int64(0), st.int64(1));
        total += st.int64(1);
    }
    if (counts.empty() || total == 0) return {{INT64_MIN, INT64_MAX}};  // no stats: one reader
    std::vector<std::pair<int64_t, int64_t>> ranges;
    int64_t acc = 0, from = INT64_MIN;
    for (size_t i = 0; i < counts.size(); ++i) {
        acc += counts[i].second;
        const bool last = i + 1 == counts.size();
        if (last || acc * parts >= total * static_cast<int64_t>(ranges.size() + 1)) {
            ranges.emplace_back(from, last ? INT64_MAX : counts[i].first);
            from = counts[i].first + 1;
        }
    }
    return ranges;
}

Status readSlices(const std::string& path, store::TraceStore& s, TimelineModel& m,
                  const TrackIndex& idx, JobControl* job, int threads) {
    int64_t total = 0;
    auto ranges = splitTracks(s, std::clamp(threads, 1, 8), total);
    if (total < 200000) ranges = {{INT64_MIN, INT64_MAX}};
    if (job) job->setTotal(static_cast<uint64_t>(std::max<int64_t>(total, 1)));
    threads = static_cast<int>(ranges.size());
    std::vector<TrackBuckets> parts(threads, TrackBuckets(m.tracks.size()));
    std::vector<Status> status(threads);
    std::atomic<int64_t> orphans{0};
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) {
        const int64_t a = ranges[i].first, b = ranges[i].second;
        auto work = [&, i, a, b] {
            status[i] = readSliceRange(path, a, b, idx, parts[i], job, orphans);
        };
        if (i + 1 == threads)
            work();
        else
            pool.emplace_back(work);
    }
    for (auto& t : pool) t.join();
    for (const Status& st : status)
        if (!st) return st;
    for (size_t t = 0; t < m.tracks.size(); ++t) {
        size_t depths = 0;
        for (const auto& p : parts) depths = std::max(depths, p[t].size());
        for (size_t d = 0; d < depths; ++d) {
            Bucket merged;
            for (auto& p : parts) {
                if (p[t].size() <= d) continue;
                Bucket& b = p[t][d];
                if (merged.ts.empty()) {
                    merged = std::move(b);
                    continue;
                }
                merged.ts.insert(merged.ts.end(), b.ts.begin(), b.ts.end());
                merged.dur.insert(merged.dur.end(), b.dur.begin(), b.dur.end());
                merged.name.insert(merged.name.end(), b.name.begin(), b.name.end());
                merged.id.insert(merged.id.end(), b.id.begin(), b.id.end());
                b = Bucket{};
            }
            if (merged.ts.empty()) continue;
            m.tracks[t].sliceCount += static_cast<int64_t>(merged.ts.size());
            appendLevels(static_cast<int32_t>(d), merged, m.tracks[t].levels);
        }
        m.sliceCount += m.tracks[t].sliceCount;
        if (job && job->cancelled()) return Error{"cancelled"};
    }
    return {};
}

Status readPoints(store::TraceStore& s, TimelineModel& m, const TrackIndex& idx) {
    int64_t lastId = -1;
    int last = -1;
    Statement is =
        s.db().prepare("SELECT track_id, ts, name_id FROM instants ORDER BY track_id, ts");
    while (is.step()) {
        const int t = idx.lookup(is.int64(0), lastId, last);
        if (t < 0) continue;
        m.tracks[t].instants.ts.push_back(is.int64(1));
        m.tracks[t].instants.name.push_back(static_cast<uint32_t>(is.int64(2)));
    }
    if (!is.error().empty()) return Error{is.error()};
    lastId = -1;
    Statement cs = s.db().prepare("SELECT track_id, ts, value FROM counters ORDER BY track_id, ts");
    while (cs.step()) {
        const int t = idx.lookup(cs.int64(0), lastId, last);
        if (t < 0) continue;
        CounterSeries& c = m.tracks[t].counter;
        const double v = cs.real(2);
        if (c.ts.empty()) c.min = c.max = v;
        c.min = std::min(c.min, v);
        c.max = std::max(c.max, v);
        c.ts.push_back(cs.int64(1));
        c.value.push_back(v);
    }
    if (!cs.error().empty()) return Error{cs.error()};
    return {};
}

Status readFlows(store::TraceStore& s, TimelineModel& m) {
    std::vector<std::pair<int64_t, int64_t>> raw;
    Statement fs = s.db().prepare("SELECT slice_out, slice_in FROM flows");
    while (fs.step()) raw.emplace_back(fs.int64(0), fs.int64(1));
    if (!fs.error().empty()) return Error{fs.error()};
    if (raw.empty()) return {};
    std::unordered_map<int64_t, SliceRef> where;
    for (auto& [a, b] : raw) where.emplace(a, SliceRef{}), where.emplace(b, SliceRef{});
    for (size_t t = 0; t < m.tracks.size(); ++t)
        for (size_t l = 0; l < m.tracks[t].levels.size(); ++l) {
            const auto& ids = m.tracks[t].levels[l].sliceId;
            for (size_t i = 0; i < ids.size(); ++i)
                if (auto it = where.find(ids[i]); it != where.end())
                    it->second = {static_cast<int>(t), static_cast<int>(l),
                                  static_cast<int64_t>(i)};
        }
    for (auto& [a, b] : raw) {
        const SliceRef from = where[a], to = where[b];
        if (from.valid() && to.valid())
            m.flows.push_back({from, to});
        else
            ++m.flowsMissing;
    }
    return {};
}

/// Every source's recorded extent, then its alignment (clock_bases.h) applied to its tracks.
Status alignSources(store::TraceStore& s, TimelineModel& m) {
    std::unordered_map<int64_t, SourceExtent> extent;
    for (const auto& t : m.tracks) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (const auto& l : t.levels)
            if (l.size()) lo = std::min(lo, l.ts.front()), hi = std::max(hi, l.end(l.size() - 1));
        if (!t.counter.ts.empty())
            lo = std::min(lo, t.counter.ts.front()), hi = std::max(hi, t.counter.ts.back());
        if (!t.instants.ts.empty())
            lo = std::min(lo, t.instants.ts.front()), hi = std::max(hi, t.instants.ts.back());
        if (lo > hi) continue;
        auto [it, fresh] = extent.try_emplace(t.sourceId, SourceExtent{t.sourceId, lo, hi, {}});
        if (!fresh) {
            it->second.startNs = std::min(it->second.startNs, lo);
            it->second.endNs = std::max(it->second.endNs, hi);
        }
    }
    {
        Statement q = s.db().prepare("SELECT id, coalesce(nullif(label, ''), path) FROM sources");
        while (q.step())
            if (auto it = extent.find(q.int64(0)); it != extent.end()) {
                std::string name = q.text(1);
                if (const size_t slash = name.find_last_of('/'); slash != std::string::npos)
                    name = name.substr(slash + 1);
                it->second.name = std::move(name);
            }
    }
    for (const auto& [id, e] : extent) m.sourceExtents.push_back(e);
    std::sort(m.sourceExtents.begin(), m.sourceExtents.end(),
              [](const SourceExtent& a, const SourceExtent& b) { return a.sourceId < b.sourceId; });
    m.clockBases = detectClockBases(m.sourceExtents);
    auto kept = readAlignments(s);
    if (!kept) return Error{kept.error()};
    for (const SourceAlignment& a : kept.value())
        if (extent.count(a.sourceId) && a.mode != AlignMode::AsRecorded) m.alignments.push_back(a);
    for (const SourceAlignment& a : m.alignments) {
        for (auto& t : m.tracks) {
            if (t.sourceId != a.sourceId) continue;
            t.offsetNs = a.offsetNs;
            for (auto& lv : t.levels)
                for (int64_t& ts : lv.ts) ts += a.offsetNs;
            for (int64_t& ts : t.instants.ts) ts += a.offsetNs;
            for (int64_t& ts : t.counter.ts) ts += a.offsetNs;
        }
        for (auto& g : m.groups)
            if (g.sourceId == a.sourceId) g.alignment = a.describe();
    }
    return {};
}

void computeExtent(TimelineModel& m) {
    bool any = false;
    int64_t lo = 0, hi = 0;
    auto take = [&](int64_t a, int64_t b) {
        lo = any ? std::min(lo, a) : a;
        hi = any ? std::max(hi, b) : b;
        any = true;
    };
    for (const auto& t : m.tracks) {
        for (const auto& l : t.levels)
            if (l.size()) take(l.ts.front(), l.end(l.size() - 1));
        if (!t.counter.ts.empty()) take(t.counter.ts.front(), t.counter.ts.back());
        if (!t.instants.ts.empty()) take(t.instants.ts.front(), t.instants.ts.back());
    }
    m.startNs = lo;
    m.endNs = hi;
}

/// Orders flows by the earlier of their drawn ends (source end, target start), so a frame
/// finds the visible ones by binary search.
void sortFlows(TimelineModel& m) {
    const size_t n = m.flows.size();
    std::vector<int64_t> lo(n), hi(n);
    for (size_t i = 0; i < n; ++i) {
        const FlowArrow& f = m.flows[i];
        const int64_t a = m.level(f.from).end(f.from.index), b = m.ts(f.to);
        lo[i] = std::min(a, b);
        hi[i] = std::max(a, b);
    }
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t x, uint32_t y) { return lo[x] < lo[y]; });
    std::vector<FlowArrow> flows(n);
    m.flowLo.resize(n);
    m.maxFlowSpan = 0;
    for (size_t i = 0; i < n; ++i) {
        flows[i] = m.flows[order[i]];
        m.flowLo[i] = lo[order[i]];
        m.maxFlowSpan = std::max(m.maxFlowSpan, hi[order[i]] - lo[order[i]]);
    }
    m.flows.swap(flows);
}

/// Shifts every time of the model by -origin when the times are too large for exact
/// double math (see TimelineModel::originNs); the origin is a whole second.
void shiftToOrigin(TimelineModel& m) {
    constexpr int64_t kExactInDouble = int64_t{1} << 50;  // ~13 days of ns: ulp <= 1/8 ns
    if (m.startNs < kExactInDouble && m.endNs > -kExactInDouble) return;
    const int64_t origin = m.startNs - m.startNs % 1'000'000'000;
    for (auto& t : m.tracks) {
        for (auto& lv : t.levels)
            for (int64_t& ts : lv.ts) ts -= origin;
        for (int64_t& ts : t.instants.ts) ts -= origin;
        for (int64_t& ts : t.counter.ts) ts -= origin;
    }
    m.originNs = origin;
    m.startNs -= origin;
    m.endNs -= origin;
}

}  // namespace

Result<std::shared_ptr<const TimelineModel>> loadTimelineModel(const std::string& path,
                                                               JobControl* job, int threads) {
    auto opened = store::TraceStore::open(path, store::TraceStore::Mode::ReadOnly);
    if (!opened) return Error{opened.error()};
    store::TraceStore& s = *opened.value();
    auto m = std::make_shared<TimelineModel>();
    TrackIndex idx;
    if (Status st = readStructure(s, *m, idx); !st) return Error{st.error()};
    if (Status st = readSlices(path, s, *m, idx, job, threads); !st) return Error{st.error()};
    if (Status st = readPoints(s, *m, idx); !st) return Error{st.error()};
    if (Status st = readFlows(s, *m); !st) return Error{st.error()};
    for (auto& t : m->tracks)
        for (auto& lv : t.levels) {
            // Columns grew by doubling while chunks were read: give back the slack (a
            // third of the model's memory on average) before it lives on.
            lv.ts.shrink_to_fit();
            lv.dur.shrink_to_fit();
            lv.name.shrink_to_fit();
            lv.sliceId.shrink_to_fit();
            lv.buildSummary();
        }
    if (Status st = alignSources(s, *m); !st) return Error{st.error()};
    computeExtent(*m);
    shiftToOrigin(*m);
    sortFlows(*m);
    return std::shared_ptr<const TimelineModel>(std::move(m));
}

}  // namespace ts::timeline
