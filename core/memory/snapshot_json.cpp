#include "core/memory/snapshot_json.h"

namespace ts::memory {

namespace {

using W = rapidjson::Writer<rapidjson::StringBuffer>;

void key(W& w, const char* k) {
    w.Key(k);
}
void str(W& w, const char* k, const std::string& v) {
    w.Key(k);
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
}
void num(W& w, const char* k, int64_t v) {
    w.Key(k);
    w.Int64(v);
}
void timeOrNull(W& w, const char* k, int64_t us) {
    w.Key(k);
    if (us >= 0)
        w.Int64(us);
    else
        w.Null();
}

void frames(W& w, const Snapshot& s, uint32_t stack, size_t limit) {
    key(w, "frames");
    w.StartArray();
    size_t n = 0;
    for (const Frame* f : shownFrames(s, stack)) {
        if (n++ == limit) break;
        const std::string t = frameText(s, *f, true);
        w.String(t.c_str(), static_cast<rapidjson::SizeType>(t.size()));
    }
    w.EndArray();
}

void sites(W& w, const char* k, const Snapshot& s, const std::vector<SiteGroup>& groups,
           size_t framesPerStack) {
    key(w, k);
    w.StartArray();
    for (const SiteGroup& g : groups) {
        w.StartObject();
        str(w, "site", g.site);
        num(w, "bytes", g.bytes);
        num(w, "count", g.count);
        frames(w, s, g.stack, framesPerStack);
        w.EndObject();
    }
    w.EndArray();
}

void state(W& w, const char* k, const AllocatorState& st) {
    key(w, k);
    w.StartObject();
    num(w, "event", st.event);
    num(w, "segments", static_cast<int64_t>(st.segments.size()));
    num(w, "reserved", st.reserved);
    num(w, "allocated", st.allocated);
    num(w, "free", st.freeBytes);
    num(w, "largest_free", st.largestFree);
    w.EndObject();
}

}  // namespace

void writeSnapshotReport(W& w, const Snapshot& s, const SnapshotReport& r, size_t framesPerStack) {
    w.StartObject();
    str(w, "layout", r.layout);
    num(w, "pickle_protocol", r.pickleProtocol);
    num(w, "segments", static_cast<int64_t>(r.segments));
    num(w, "blocks", static_cast<int64_t>(r.blocks));
    num(w, "frames", static_cast<int64_t>(r.frames));
    num(w, "stacks", static_cast<int64_t>(r.stacks));
    key(w, "allocator_settings");
    w.StartObject();
    for (const auto& [k, v] : r.allocatorSettings) str(w, k.c_str(), v);
    w.EndObject();
    key(w, "notes");
    w.StartArray();
    for (const auto& n : r.notes) w.String(n.c_str());
    w.EndArray();
    key(w, "devices");
    w.StartArray();
    for (const DeviceReport& d : r.devices) {
        const DeviceTimeline& t = d.timeline;
        w.StartObject();
        num(w, "device", d.device);
        num(w, "events", static_cast<int64_t>(d.events));
        num(w, "allocations", static_cast<int64_t>(t.allocations.size()));
        key(w, "peak");
        w.StartObject();
        num(w, "bytes", t.peakBytes);
        num(w, "event", t.peakEvent);
        timeOrNull(w, "time_us", t.peakTimeUs);
        num(w, "reserved", t.peakReserved);
        num(w, "live_allocations", d.liveAtPeak);
        sites(w, "by_site", s, d.peakBySite, framesPerStack);
        w.EndObject();
        state(w, "state_at_peak", d.atPeak);
        state(w, "state_at_end", d.atEnd);
        str(w, "steps_from", d.stepsFrom);
        key(w, "leaks");
        w.StartArray();
        for (const Leak& L : d.leaks) {
            w.StartObject();
            str(w, "site", L.site);
            num(w, "count", L.count);
            num(w, "bytes", L.bytes);
            num(w, "bytes_per_step", L.bytesPerStep);
            num(w, "steps_grown", L.stepsGrown);
            num(w, "steps", L.steps);
            num(w, "first_event", L.firstEvent);
            num(w, "last_event", L.lastEvent);
            timeOrNull(w, "first_time_us", L.firstTimeUs);
            timeOrNull(w, "last_time_us", L.lastTimeUs);
            frames(w, s, L.stack, framesPerStack);
            w.EndObject();
        }
        w.EndArray();
        num(w, "oom_events", static_cast<int64_t>(d.oomEvents));
        key(w, "ooms");  // the first kMaxOomAnswers, answered
        w.StartArray();
        for (const OomAnswer& o : d.ooms) {
            w.StartObject();
            num(w, "event", o.event);
            timeOrNull(w, "time_us", o.timeUs);
            num(w, "requested", o.requested);
            num(w, "device_free", o.deviceFree);
            num(w, "reserved", o.reserved);
            num(w, "allocated", o.allocated);
            num(w, "free_in_segments", o.freeInSegments);
            num(w, "largest_free", o.largestFree);
            key(w, "fragmentation");
            w.Bool(o.fragmentation);
            str(w, "verdict", o.verdict);
            frames(w, s, o.stack, framesPerStack);
            sites(w, "live_by_site", s, o.liveBySite, framesPerStack);
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
}

}  // namespace ts::memory
