#include "core/timeline/clock_bases.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/common/json.h"
#include "core/common/json_read.h"
#include "core/common/units.h"
#include "core/store/trace_store.h"

namespace ts::timeline {
namespace {

constexpr int64_t kOneHourNs = 3'600'000'000'000;
constexpr int64_t kMinuteNs = 60'000'000'000;
constexpr std::string_view kKeyPrefix = "timeline.align.";

struct ModeName {
    AlignMode mode;
    std::string_view name;
};
constexpr ModeName kModes[] = {{AlignMode::AsRecorded, "as_recorded"},
                               {AlignMode::FirstEvent, "first_event"},
                               {AlignMode::ClockSync, "clock_sync"},
                               {AlignMode::FileTime, "file_time"},
                               {AlignMode::Manual, "manual"}};

}  // namespace

std::string_view alignModeName(AlignMode m) {
    for (const ModeName& n : kModes)
        if (n.mode == m) return n.name;
    return "as_recorded";
}

std::optional<AlignMode> parseAlignMode(std::string_view name) {
    for (const ModeName& n : kModes)
        if (n.name == name) return n.mode;
    return std::nullopt;
}

std::string SourceAlignment::describe() const {
    std::string shift =
        (offsetNs >= 0 ? "+" : "\u2212") + formatDuration(std::fabs(static_cast<double>(offsetNs)));
    switch (mode) {
        case AlignMode::AsRecorded:
            return "as recorded";
        case AlignMode::FirstEvent:
            return "aligned to its first event (" + shift + ")";
        case AlignMode::ClockSync:
            return "aligned by a clock-sync event (" + shift + ")";
        case AlignMode::FileTime:
            return "placed when its file was written (" + shift + ")";
        case AlignMode::Manual:
            return "aligned by hand (" + shift + ")";
    }
    return {};
}

Result<std::vector<SourceAlignment>> readAlignments(store::TraceStore& store) {
    store::Statement q = store.db().prepare(
        "SELECT substr(key, ?1 + 1), value FROM meta WHERE substr(key, 1, ?1) = ?2");
    q.bind(1, static_cast<int64_t>(kKeyPrefix.size())).bind(2, kKeyPrefix);
    std::vector<SourceAlignment> out;
    while (q.step()) {
        SourceAlignment a;
        const std::string_view id = q.textView(0);
        if (auto [p, ec] = std::from_chars(id.data(), id.data() + id.size(), a.sourceId);
            ec != std::errc() || p != id.data() + id.size())
            continue;
        rapidjson::Document d;
        if (!json::parse(d, q.textView(1)) || !d.IsObject()) continue;
        auto mode = d.HasMember("mode") && d["mode"].IsString()
                        ? parseAlignMode(d["mode"].GetString())
                        : std::nullopt;
        if (!mode || !d.HasMember("offset_ns") || !d["offset_ns"].IsInt64()) continue;
        a.mode = *mode;
        a.offsetNs = d["offset_ns"].GetInt64();
        out.push_back(a);
    }
    if (!q.error().empty()) return Error{q.error()};
    return out;
}

Status writeAlignment(store::TraceStore& store, const SourceAlignment& a) {
    const std::string key = std::string(kKeyPrefix) + std::to_string(a.sourceId);
    if (a.mode == AlignMode::AsRecorded) {
        store::Statement q = store.db().prepare("DELETE FROM meta WHERE key = ?");
        q.bind(1, key);
        return q.run();
    }
    rapidjson::StringBuffer buf;
    json::Writer w(buf);
    w.StartObject();
    json::kv(w, "mode", alignModeName(a.mode));
    json::kv(w, "offset_ns", a.offsetNs);
    w.EndObject();
    store::Statement q = store.db().prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
    q.bind(1, key).bind(2, std::string_view(buf.GetString(), buf.GetSize()));
    return q.run();
}

bool isRelativeClock(int64_t tsMinNs) {
    return tsMinNs >= 0 && tsMinNs < kOneHourNs;
}

std::vector<ClockBase> detectClockBases(std::vector<SourceExtent> sources) {
    std::sort(sources.begin(), sources.end(), [](const SourceExtent& a, const SourceExtent& b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.sourceId < b.sourceId;
    });
    std::vector<ClockBase> out;
    ClockBase* open = nullptr;  // the absolute group sources may still join
    for (const SourceExtent& s : sources) {
        if (isRelativeClock(s.startNs)) {
            out.push_back({{s.sourceId}, s.startNs, s.endNs, true});
            continue;
        }
        if (open) {
            const int64_t span = std::max(open->endNs - open->startNs, s.endNs - s.startNs);
            const int64_t reach = std::max(kMinuteNs, 10 * span);
            if (s.startNs <= open->endNs + reach) {
                open->sources.push_back(s.sourceId);
                open->endNs = std::max(open->endNs, s.endNs);
                continue;
            }
        }
        out.push_back({{s.sourceId}, s.startNs, s.endNs, false});
        open = &out.back();
    }
    return out;
}

Result<int64_t> alignmentOffset(store::TraceStore& store, const std::vector<SourceExtent>& extents,
                                int64_t sourceId, AlignMode mode, int64_t manualNs,
                                int64_t fileTimeNs) {
    const auto self = std::find_if(extents.begin(), extents.end(),
                                   [&](const SourceExtent& e) { return e.sourceId == sourceId; });
    if (self == extents.end())
        return Error{"source " + std::to_string(sourceId) + " has nothing on the timeline"};
    switch (mode) {
        case AlignMode::AsRecorded:
            return int64_t{0};
        case AlignMode::FileTime:
            return fileTimeNs - self->endNs;
        case AlignMode::FirstEvent:
        case AlignMode::Manual: {
            // The reference: the earliest start of the largest absolute group (else of all).
            const std::vector<ClockBase> bases = detectClockBases(extents);
            const ClockBase* ref = nullptr;
            for (const ClockBase& b : bases)
                if (!b.relative && (!ref || b.sources.size() > ref->sources.size())) ref = &b;
            if (!ref && !bases.empty()) ref = &bases.front();
            const int64_t refStart = ref ? ref->startNs : self->startNs;
            return refStart - self->startNs + (mode == AlignMode::Manual ? manualNs : 0);
        }
        case AlignMode::ClockSync: {
            store::Statement q = store.db().prepare(
                "SELECT o.ts - m.ts FROM clock_syncs m JOIN clock_syncs o ON o.sync_id = m.sync_id "
                "AND o.source_id != m.source_id WHERE m.source_id = ? ORDER BY o.source_id LIMIT "
                "1");
            q.bind(1, sourceId);
            if (q.step()) return q.int64(0);
            if (!q.error().empty()) return Error{q.error()};
            return Error{"source " + std::to_string(sourceId) +
                         " shares no clock-sync event with another source"};
        }
    }
    return int64_t{0};
}

}  // namespace ts::timeline
