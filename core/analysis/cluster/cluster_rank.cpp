#include "core/analysis/cluster/cluster_rank.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "core/analysis/cluster/cluster_ops.h"
#include "core/analysis/cluster/cluster_spans.h"
#include "core/analysis/gpu/ascend_tables.h"
#include "core/analysis/gpu/gpu_trace.h"
#include "core/analysis/profile/profile_data.h"
#include "core/store/slice_chunk_reader.h"
#include "core/store/trace_store.h"

namespace ts::analysis {
namespace {

using store::Statement;

struct TrackRow {
    int64_t id = 0;
    int64_t sourceId = 0;
    TrackTraits traits;
    bool hasDeviceWork = false;
};

/// A slice as the analysis keeps it: name and category as indexes into RankSlices::infos.
struct RawSlice {
    int64_t id, ts, end;
    uint32_t name, cat;  // cat 0: none
};

/// What a string means as a slice name and as a category, computed once per string.
struct StringInfo {
    int64_t stringId = 0;
    std::string text;
    bool comm = false, nonWorkName = false;
    int marker = 0;  // stepMarkerKind
    int64_t step = 0;
    bool deviceWorkCat = false, hostOpCat = false, nonWorkCat = false;
};

struct RankSlices {
    std::vector<TrackRow> tracks;
    std::vector<std::vector<RawSlice>> byTrack;  // parallel to tracks
    std::vector<StringInfo> infos;               // [0]: no category
    int64_t count = 0;
    bool hasCategories = false;
    const StringInfo& of(uint32_t i) const { return infos[i]; }
};

/// Dense indexes for string ids, through a table indexed by id (ids are dense in a session).
class StringIndex {
public:
    uint32_t operator()(int64_t id, std::vector<StringInfo>& infos) {
        if (id <= 0) return 0;
        const auto at = static_cast<size_t>(id);
        if (at >= m_dense.size()) m_dense.resize(std::max(at + 1, m_dense.size() * 2), 0);
        if (!m_dense[at]) {
            m_dense[at] = static_cast<uint32_t>(infos.size());
            infos.push_back({});
            infos.back().stringId = id;
        }
        return m_dense[at];
    }

private:
    std::vector<uint32_t> m_dense;
};

Status readTracks(store::TraceStore& store, const std::vector<int64_t>& sources, RankSlices& r) {
    Statement q = store.db().prepare(
        "SELECT t.id, t.kind, COALESCE(tn.str, ''), COALESCE(th.name, ''), COALESCE(p.name, ''),"
        " COALESCE(p.labels, '') FROM tracks t LEFT JOIN strings tn ON tn.id = t.name_id"
        " LEFT JOIN threads th ON th.id = t.thread_id LEFT JOIN processes p ON p.id = t.process_id"
        " WHERE t.source_id = ? AND t.kind <> 'counter' ORDER BY t.id");
    if (!q.ok()) return Error{q.error()};
    for (int64_t src : sources) {
        q.reset();
        q.bind(1, src);
        while (q.step()) {
            TrackRow t;
            t.id = q.int64(0);
            t.sourceId = src;
            t.traits = trackTraits(q.textView(1), q.textView(2), q.textView(3), q.textView(4),
                                   q.textView(5));
            r.tracks.push_back(t);
        }
        if (!q.error().empty()) return Error{q.error()};
    }
    std::sort(r.tracks.begin(), r.tracks.end(),
              [](const TrackRow& a, const TrackRow& b) { return a.id < b.id; });
    r.byTrack.resize(r.tracks.size());
    return {};
}

Status readSlices(store::TraceStore& store, RankSlices& r, JobControl* job) {
    r.infos.assign(1, StringInfo{});
    if (r.tracks.empty()) return {};
    std::unordered_map<int64_t, size_t> index;
    for (size_t i = 0; i < r.tracks.size(); ++i) index[r.tracks[i].id] = i;
    constexpr uint32_t kColumns = (1u << store::kSliceId) | (1u << store::kSliceTs) |
                                  (1u << store::kSliceDur) | (1u << store::kSliceName) |
                                  (1u << store::kSliceCat);
    StringIndex dense;
    Status st = store::forEachSliceChunk(
        store.db().handle(), r.tracks.front().id, r.tracks.back().id, kColumns,
        [&](const store::ChunkInfo& c, const store::SliceColumns& cols) -> Status {
            auto it = index.find(c.trackId);
            if (it == index.end()) return {};
            auto& out = r.byTrack[it->second];
            for (size_t i = 0; i < cols.count; ++i)
                out.push_back({cols.id[i], cols.ts[i],
                               cols.ts[i] + std::max<int64_t>(0, cols.dur[i]),
                               dense(cols.nameId[i], r.infos), dense(cols.catId[i], r.infos)});
            r.count += static_cast<int64_t>(cols.count);
            if (job && job->cancelled()) return Error{"cancelled"};
            return {};
        });
    if (!st) return st;
    // What each string these slices use means, as a name and as a category.
    Statement q = store.db().prepare("SELECT str FROM strings WHERE id = ?");
    if (!q.ok()) return Error{q.error()};
    for (size_t i = 1; i < r.infos.size(); ++i) {
        StringInfo& n = r.infos[i];
        q.reset();
        q.bind(1, n.stringId);
        n.text = q.step() ? q.text(0) : std::string();
        n.comm = isCommName(n.text);
        n.nonWorkName = isDeviceNonWorkName(n.text);
        n.marker = stepMarkerKind(n.text);
        n.step = stepMarkerNumber(n.text).value_or(0);
        n.deviceWorkCat = isDeviceWorkCategory(n.text);
        n.hostOpCat = isHostOpCategory(n.text, true);
        n.nonWorkCat = isDeviceNonWorkCategory(n.text);
    }
    for (const auto& v : r.byTrack)
        for (const RawSlice& sl : v)
            if (sl.cat) {
                r.hasCategories = true;
                break;
            }
    r.infos[0].hostOpCat = !r.hasCategories;  // category-less traces: every slice is an op
    return {};
}

/// The step markers: ProfilerStep#N where there are any, else Iteration N; unique numbers
/// (the first of a repeated number is kept).
std::vector<RankStep> findSteps(const RankSlices& r, RankProfile& out) {
    std::vector<RankStep> kinds[3];
    for (size_t t = 0; t < r.tracks.size(); ++t)
        for (const RawSlice& s : r.byTrack[t]) {
            const StringInfo& n = r.of(s.name);
            if (!n.marker) continue;
            RankStep st;
            st.number = n.step;
            st.ts = s.ts;
            st.dur = s.end - s.ts;
            st.sliceId = s.id;
            st.sourceId = r.tracks[t].sourceId;
            kinds[n.marker].push_back(st);
        }
    const int kind = kinds[1].empty() ? 2 : 1;
    std::vector<RankStep> steps = std::move(kinds[kind]);
    out.stepMarker = kind == 1 ? "ProfilerStep#N" : "Iteration N";
    std::stable_sort(steps.begin(), steps.end(), [](const RankStep& a, const RankStep& b) {
        return a.number != b.number ? a.number < b.number : a.ts < b.ts;
    });
    const size_t before = steps.size();
    steps.erase(
        std::unique(steps.begin(), steps.end(),
                    [](const RankStep& a, const RankStep& b) { return a.number == b.number; }),
        steps.end());
    if (steps.size() < before)
        out.warnings.push_back(std::to_string(before - steps.size()) +
                               " step markers repeat a step number; the first of each is used");
    return steps;
}

bool deviceNonWork(const RankSlices& r, const RawSlice& s) {
    return r.of(s.name).nonWorkName || r.of(s.cat).nonWorkCat;
}

struct BusySets {
    SpanSet compute, comm;
};

BusySets busySets(const RankSlices& r, bool device) {
    SpanSet compute, comm;
    std::vector<Span> trackCompute, trackComm;
    for (size_t t = 0; t < r.tracks.size(); ++t) {
        const TrackRow& track = r.tracks[t];
        if (track.traits.derived || (device && !track.traits.device && !track.hasDeviceWork))
            continue;
        trackCompute.clear();
        trackComm.clear();
        int64_t work = 0, commCount = 0;
        for (const RawSlice& s : r.byTrack[t]) {
            const StringInfo& n = r.of(s.name);
            if (n.marker) continue;
            if (device) {
                if (deviceNonWork(r, s)) continue;
                ++work;
                (n.comm ? trackComm : trackCompute).push_back({s.ts, s.end});
                commCount += n.comm;
            } else if (n.comm) {
                trackComm.push_back({s.ts, s.end});
            } else if (r.of(s.cat).hostOpCat) {
                trackCompute.push_back({s.ts, s.end});
            }
        }
        if (device && work > 0 &&
            static_cast<double>(commCount) >= kCommStreamShare * static_cast<double>(work)) {
            trackComm.insert(trackComm.end(), trackCompute.begin(), trackCompute.end());
            trackCompute.clear();
        }
        SpanSet c = SpanSet::unionOf(std::move(trackCompute));
        SpanSet m = SpanSet::unionOf(std::move(trackComm));
        // A host op waiting inside a collective on its own thread is communication.
        if (!device) c = SpanSet::subtract(c, m);
        if (!c.empty()) compute = SpanSet::unite(compute, c);
        if (!m.empty()) comm = SpanSet::unite(comm, m);
    }
    return {std::move(compute), std::move(comm)};
}

/// The rank's rows of msprof-analyze's cluster_step_trace_time.csv, when its one source is
/// that table; nullopt otherwise.
std::optional<RankProfile> ascendClusterRank(store::TraceStore& store, const RankInput& input) {
    if (input.sourceIds.size() != 1) return std::nullopt;
    auto tables = gpu::loadAscendTables(store);
    if (!tables) return std::nullopt;
    const gpu::AscendTable* t = tables.value().table("cluster_step_trace_time");
    if (!t || t->sourceId != input.sourceIds.front()) return std::nullopt;
    RankProfile out;
    out.input = input;
    out.device = true;
    out.stepMarker = "cluster_step_trace_time.csv";
    int64_t fallback = 0;
    for (const gpu::AscendStep& a : gpu::ascendSteps(tables.value(), true)) {
        if (a.rank != input.rank) continue;
        RankStep s;
        std::string digits;
        for (char c : a.step)
            if (c >= '0' && c <= '9') digits += c;
        s.number = digits.empty() ? fallback : std::stoll(digits);
        ++fallback;
        s.sourceId = t->sourceId;
        auto ns = [](double us) { return static_cast<int64_t>(us * 1000.0 + 0.5); };
        s.dur = ns(a.total());
        s.computeNs = ns(a.computing);
        s.commNs = ns(a.communication);
        s.overlapNs = std::min(ns(a.overlapped), std::min(s.computeNs, s.commNs));
        s.idleNs = ns(a.free);
        out.steps.push_back(s);
    }
    std::sort(out.steps.begin(), out.steps.end(),
              [](const RankStep& a, const RankStep& b) { return a.number < b.number; });
    out.steps.erase(
        std::unique(out.steps.begin(), out.steps.end(),
                    [](const RankStep& a, const RankStep& b) { return a.number == b.number; }),
        out.steps.end());
    return out;
}

/// HTA's and the studio's device figures of the rank's first source with GPU work.
std::optional<RankDeviceFigures> deviceFiguresOf(store::TraceStore& store,
                                                 const std::vector<int64_t>& sources,
                                                 JobControl* job) {
    for (int64_t id : sources) {
        auto g = gpu::loadGpuTrace(store, id, job);
        if (!g || !g.value().hasGpuWork()) continue;
        const gpu::HtaResult h = gpu::computeHta(g.value());
        const gpu::GpuOverview o = gpu::computeGpuOverview(g.value());
        RankDeviceFigures f;
        f.hta = h.temporal;
        f.htaOverlapPct = h.commCompOverlapPct;
        f.htaFiltered = h.filtered;
        f.htaRowsKept = h.gpuRowsKept;
        f.htaRowsDropped = h.gpuRowsDropped;
        f.studio = o.deviceTotal;
        f.studioSteps = static_cast<int64_t>(o.steps.size());
        for (const auto& s : o.steps) f.studioStepsNs += s.duration();
        const gpu::GpuTrace& t = g.value();
        for (const gpu::DeviceActivity& a : t.activities) {
            if (a.kind != gpu::ActivityKind::Kernel || !a.communication || a.collective < 0)
                continue;
            const gpu::CollectiveArgs& c = t.collectives[static_cast<size_t>(a.collective)];
            f.collectives.push_back({c.name + "@" + c.processGroup, a.ts, a.end()});
        }
        return f;
    }
    return std::nullopt;
}

}  // namespace

void matchCollectives(std::vector<RankProfile>& ranks) {
    // key -> per rank (index) its calls in start order.
    std::map<std::string,
             std::vector<std::pair<size_t, std::vector<const RankDeviceFigures::CollectiveCall*>>>>
        by;
    for (size_t r = 0; r < ranks.size(); ++r) {
        if (!ranks[r].deviceFigures) continue;
        std::map<std::string, std::vector<const RankDeviceFigures::CollectiveCall*>> mine;
        for (const auto& c : ranks[r].deviceFigures->collectives) mine[c.key].push_back(&c);
        for (auto& [key, calls] : mine) {
            std::stable_sort(calls.begin(), calls.end(),
                             [](const auto* a, const auto* b) { return a->start < b->start; });
            by[key].emplace_back(r, std::move(calls));
        }
    }
    for (auto& [key, perRank] : by) {
        if (perRank.size() < 2) continue;  // one rank: nothing to wait for
        size_t n = SIZE_MAX;
        for (const auto& [r, calls] : perRank) n = std::min(n, calls.size());
        for (size_t i = 0; i < n; ++i) {
            int64_t latest = INT64_MIN;
            for (const auto& [r, calls] : perRank) latest = std::max(latest, calls[i]->start);
            for (const auto& [r, calls] : perRank) {
                RankDeviceFigures& f = *ranks[r].deviceFigures;
                ++f.collectivesMatched;
                f.collectiveWaitNs += latest - calls[i]->start;
                f.collectiveTransferNs += std::max<int64_t>(0, calls[i]->end - latest);
            }
        }
    }
}

Result<RankProfile> analyzeRank(store::TraceStore& store, const RankInput& input, JobControl* job) {
    if (auto ascend = ascendClusterRank(store, input)) return std::move(*ascend);
    RankProfile out;
    out.input = input;
    std::vector<int64_t> sources = input.sourceIds;
    if (sources.empty()) {
        auto src = resolveProfileSource(store, std::nullopt, std::nullopt);
        if (!src) return Error{src.error()};
        sources.push_back(src.value());
        out.input.sourceIds = sources;
    }
    RankSlices r;
    if (Status st = readTracks(store, sources, r); !st) return Error{st.error()};
    if (Status st = readSlices(store, r, job); !st) return Error{st.error()};
    out.slices = r.count;

    for (size_t t = 0; t < r.tracks.size(); ++t)
        for (const RawSlice& s : r.byTrack[t])
            if (r.of(s.cat).deviceWorkCat) {
                r.tracks[t].hasDeviceWork = true;
                break;
            }
    for (size_t t = 0; t < r.tracks.size() && !out.device; ++t) {
        const TrackRow& track = r.tracks[t];
        if (track.traits.derived || !(track.traits.device || track.hasDeviceWork)) continue;
        for (const RawSlice& s : r.byTrack[t]) {
            if (!r.of(s.name).marker && !deviceNonWork(r, s)) {
                out.device = true;
                break;
            }
        }
    }

    std::vector<RankStep> steps = findSteps(r, out);
    const BusySets busy = busySets(r, out.device);
    if (steps.empty()) {
        int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
        for (const auto& v : r.byTrack)
            for (const RawSlice& s : v) {
                lo = std::min(lo, s.ts);
                hi = std::max(hi, s.end);
            }
        if (lo < hi) {
            RankStep whole;
            whole.ts = lo;
            whole.dur = hi - lo;
            whole.sourceId = sources.front();
            steps.push_back(whole);
        }
        out.stepMarker = "whole trace";
        out.warnings.push_back(
            "no ProfilerStep#N or Iteration N markers: the whole trace is one step");
    }
    const SpanSet overlap = SpanSet::intersect(busy.compute, busy.comm);
    const SpanSet either = SpanSet::unite(busy.compute, busy.comm);
    for (RankStep& s : steps) {
        const int64_t end = s.ts + s.dur;
        s.computeNs = busy.compute.within(s.ts, end);
        s.commNs = busy.comm.within(s.ts, end);
        s.overlapNs = overlap.within(s.ts, end);
        s.idleNs = s.dur - either.within(s.ts, end);
    }
    if (out.device && busy.comm.empty()) {
        int64_t hostCalls = 0;
        for (size_t t = 0; t < r.tracks.size(); ++t)
            for (const RawSlice& sl : r.byTrack[t]) hostCalls += r.of(sl.name).comm;
        if (hostCalls > 0)
            out.warnings.push_back(std::to_string(hostCalls) +
                                   " host-side collective calls but no communication on the device "
                                   "(a one-rank process group?): communication counts as 0");
    }
    out.steps = std::move(steps);
    if (out.device) out.deviceFigures = deviceFiguresOf(store, sources, job);
    return out;
}

}  // namespace ts::analysis
