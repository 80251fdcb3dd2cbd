#include "core/analysis/profile/profile_data.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/analysis/gpu/gpu_trace.h"
#include "core/store/trace_store.h"

namespace ts::analysis {

using store::Statement;

namespace {

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

bool istarts(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

}  // namespace

bool isOpCategory(std::string_view c) {
    return iequals(c, "cpu_op") || iequals(c, "operator") || iequals(c, "gpu_memcpy") ||
           iequals(c, "memcpy");
}

bool isKernelCategory(std::string_view c) {
    return iequals(c, "kernel");
}

bool isCopyOp(std::string_view name, std::string_view category) {
    if (iequals(category, "gpu_memcpy") || iequals(category, "memcpy")) return true;
    static constexpr std::string_view kNames[] = {"Copy",
                                                  "Contiguous",
                                                  "Cast",
                                                  "TransData",
                                                  "aten::copy_",
                                                  "aten::contiguous",
                                                  "D2DCopywithStreamSynchronize",
                                                  "PTCopy",
                                                  "format_contiguous"};
    for (std::string_view n : kNames)
        if (iequals(name, n)) return true;
    return istarts(name, "Memcpy");
}

const std::string& ProfileData::str(int64_t id) const {
    static const std::string kEmpty;
    auto it = strings.find(id);
    return it == strings.end() ? kEmpty : it->second;
}

const ProfileTrack* ProfileData::track(int64_t id) const {
    for (const auto& t : tracks)
        if (t.id == id) return &t;
    return nullptr;
}

std::pair<size_t, size_t> ProfileData::trackRange(int64_t trackId) const {
    auto lo = std::lower_bound(slices.begin(), slices.end(), trackId,
                               [](const ProfileSlice& s, int64_t t) { return s.trackId < t; });
    auto hi = std::upper_bound(lo, slices.end(), trackId,
                               [](int64_t t, const ProfileSlice& s) { return t < s.trackId; });
    return {static_cast<size_t>(lo - slices.begin()), static_cast<size_t>(hi - slices.begin())};
}

// Step counts come from slice_name_stats (kept by the writer), not a scan of the slices: one
// per distinct ProfilerStep#N name, since Kineto repeats each step on the GPU streams it used.
Result<std::vector<ProfileSourceInfo>> listProfileSources(store::TraceStore& store) {
    Statement q = store.db().prepare(
        "SELECT so.id, so.kind, COALESCE(so.label, ''), so.path, "
        "  (SELECT COUNT(DISTINCT ns.name_id) FROM slice_name_stats ns "
        "   JOIN tracks t ON t.id = ns.track_id JOIN strings n ON n.id = ns.name_id "
        "   WHERE t.source_id = so.id AND n.str LIKE 'ProfilerStep#%'), "
        // Memory data makes a profile too: a memory snapshot, Kineto's [memory] events.
        "  so.kind = 'torch_memory_snapshot' OR EXISTS (SELECT 1 FROM tracks t JOIN instants i "
        "   ON i.track_id = t.id WHERE t.source_id = so.id AND t.kind = 'thread' AND i.name_id = "
        "   (SELECT id FROM strings WHERE str = '[memory]')) "
        "FROM sources so ORDER BY so.id DESC");
    if (!q.ok()) return Error{q.error()};
    // Device work makes a profile too (an Nsight export, a CUPTI file, Ascend's kernels).
    auto device = gpu::listDeviceSources(store);
    if (!device) return Error{device.error()};
    const std::vector<int64_t>& deviceIds = device.value();
    std::vector<ProfileSourceInfo> out;
    while (q.step()) {
        ProfileSourceInfo i;
        i.id = q.int64(0);
        i.kind = q.text(1);
        i.label = q.text(2);
        if (i.label.empty()) i.label = std::filesystem::path(q.text(3)).filename().string();
        i.steps = q.int64(4);
        const bool hasDevice =
            std::find(deviceIds.begin(), deviceIds.end(), i.id) != deviceIds.end();
        const bool profile = i.kind == "profiler" || i.steps > 0 || q.int64(5) != 0;
        i.deviceOnly = !profile && hasDevice;
        if (profile || hasDevice) out.push_back(std::move(i));
    }
    if (!q.error().empty()) return Error{q.error()};
    return out;
}

Result<int64_t> resolveProfileSource(store::TraceStore& store, std::optional<int64_t> sourceId,
                                     std::optional<int64_t> runId) {
    if (sourceId) {
        auto srcs = store.sources();
        if (!srcs) return Error{srcs.error()};
        for (const auto& s : srcs.value())
            if (s.id == *sourceId) return *sourceId;
        return Error{"no source " + std::to_string(*sourceId) + " in this session"};
    }
    if (runId) {
        auto runs = store.runs();
        if (!runs) return Error{runs.error()};
        for (const auto& r : runs.value()) {
            if (r.id != *runId) continue;
            if (!r.profileSourceId)
                return Error{"run " + std::to_string(*runId) + " has no profile"};
            return *r.profileSourceId;
        }
        return Error{"no run " + std::to_string(*runId) + " in this session"};
    }
    auto list = listProfileSources(store);
    if (!list) return Error{list.error()};
    if (list.value().empty())
        return Error{
            "no profile in this session (no source of kind "
            "'profiler' and no ProfilerStep#N slices)"};
    // A profile proper (steps, a recorded run, memory data) before one only by its device work.
    for (const ProfileSourceInfo& p : list.value())
        if (!p.deviceOnly) return p.id;
    return list.value().front().id;
}

Result<ProfileData> loadProfile(store::TraceStore& store, int64_t sourceId, JobControl* job) {
    ProfileData d;
    d.sourceId = sourceId;
    {
        Statement q = store.db().prepare("SELECT kind FROM sources WHERE id = ?");
        q.bind(1, sourceId);
        if (!q.step()) return Error{"no source " + std::to_string(sourceId) + " in this session"};
        d.kind = q.text(0);
    }
    Statement tq = store.db().prepare(
        "SELECT t.id, t.kind, COALESCE(n.str, '') FROM tracks t "
        "LEFT JOIN strings n ON n.id = t.name_id WHERE t.source_id = ? ORDER BY t.id");
    tq.bind(1, sourceId);
    while (tq.step()) d.tracks.push_back({tq.int64(0), tq.text(1), tq.text(2)});
    if (!tq.error().empty()) return Error{tq.error()};

    Statement sq = store.db().prepare(
        "SELECT id, ts, dur, depth, name_id, COALESCE(cat_id, 0) FROM slices "
        "WHERE track_id = ? ORDER BY ts, depth, id");
    if (!sq.ok()) return Error{sq.error()};
    for (const auto& t : d.tracks) {
        if (job && job->cancelled()) return Error{"cancelled"};
        if (t.kind == "counter") continue;
        sq.reset();
        sq.bind(1, t.id);
        while (sq.step()) {
            ProfileSlice s;
            s.id = sq.int64(0);
            s.trackId = t.id;
            s.ts = sq.int64(1);
            s.dur = std::max<int64_t>(0, sq.int64(2));
            s.depth = static_cast<int32_t>(sq.int64(3));
            s.nameId = sq.int64(4);
            s.catId = sq.int64(5);
            d.slices.push_back(s);
        }
        if (!sq.error().empty()) return Error{sq.error()};
    }
    Statement nq = store.db().prepare(
        "SELECT DISTINCT st.id, st.str FROM strings st WHERE st.id IN ("
        " SELECT s.name_id FROM slices s JOIN tracks t ON t.id = s.track_id WHERE t.source_id = ?1"
        " UNION SELECT s.cat_id FROM slices s JOIN tracks t ON t.id = s.track_id"
        " WHERE t.source_id = ?1)");
    nq.bind(1, sourceId);
    while (nq.step()) d.strings.emplace(nq.int64(0), nq.text(1));
    if (!nq.error().empty()) return Error{nq.error()};
    return d;
}

}  // namespace ts::analysis
