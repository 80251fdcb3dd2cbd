#include "importers/torch_memory/torch_memory_importer.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "core/common/json_read.h"
#include "core/memory/snapshot_reader.h"
#include "core/memory/snapshot_report.h"
#include "core/store/sqlite_db.h"
#include "core/store/store_writer.h"

namespace ts::importers {
namespace torch_memory {

using namespace ts::memory;

namespace {

constexpr const char* kInUse = "Memory In Use (bytes)";
constexpr const char* kPool = "Memory Pool (bytes)";

using JsonW = rapidjson::Writer<rapidjson::StringBuffer>;

void jstr(JsonW& w, const char* k, const std::string& v) {
    w.Key(k);
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
}

/// The Python frames of a stack (at most `limit`), else its site frame.
void pythonFrames(JsonW& w, const Snapshot& s, uint32_t stack, size_t limit) {
    w.Key("frames");
    w.StartArray();
    size_t n = 0;
    for (const Frame* f : shownFrames(s, stack)) {
        const std::string& file = s.str(f->filename);
        if (file.size() < 3 || file.compare(file.size() - 3, 3, ".py") != 0) continue;
        if (n++ == limit) break;
        const std::string t = frameText(s, *f, true);
        w.String(t.c_str(), static_cast<rapidjson::SizeType>(t.size()));
    }
    if (n == 0)
        if (const Frame* f = siteFrame(s, stack)) {
            const std::string t = frameText(s, *f);
            w.String(t.c_str(), static_cast<rapidjson::SizeType>(t.size()));
        }
    w.EndArray();
}

std::string hexAddr(uint64_t a) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(a));
    return buf;
}

}  // namespace

int sniff(const std::string& path, std::string_view head) {
    (void)path;
    return looksLikeSnapshotPickle(head) ? 95 : 0;
}

Alignment alignToSession(store::TraceStore& st, int64_t ownSource, int64_t firstNs,
                         int64_t lastNs) {
    Alignment best;
    best.how =
        "not aligned: no trace of the session shares the snapshot's clock (microseconds "
        "since the epoch); times kept as they are";
    int64_t bestOverlap = 0;
    auto q = st.db().prepare(
        "SELECT id, ts_min, ts_max, COALESCE(stats, '{}') FROM sources WHERE id <> ? AND "
        "ts_min IS NOT NULL AND ts_max IS NOT NULL AND kind <> 'torch_memory_snapshot'");
    q.bind(1, ownSource);
    rapidjson::Document d;
    while (q.step()) {
        const int64_t id = q.int64(0), lo = q.int64(1), hi = q.int64(2);
        std::vector<std::pair<int64_t, std::string>> offsets{{0, "the same epoch clock as"}};
        if (ts::json::parse(d, q.text(3)) && d.IsObject() && d.HasMember("extra") &&
            d["extra"].IsObject() && d["extra"].HasMember("base_time_ns") &&
            d["extra"]["base_time_ns"].IsInt64())
            offsets.emplace_back(-d["extra"]["base_time_ns"].GetInt64(),
                                 "Kineto's baseTimeNanoseconds of");
        for (const auto& [off, how] : offsets) {
            const int64_t a = std::max(lo, firstNs + off), b = std::min(hi, lastNs + off);
            const int64_t overlap = b - a + 1;
            if (overlap > bestOverlap) {
                bestOverlap = overlap;
                best.offsetNs = off;
                best.sourceId = id;
                best.how = "aligned by " + how + " source " + std::to_string(id);
            }
        }
    }
    return best;
}

ImportReport importSnapshot(const std::string& path, store::TraceStore& store,
                            JobControl& control) {
    ImportReport report;
    report.path = path;
    report.kind = "torch_memory_snapshot";
    auto snap = readSnapshot(path, &control);
    if (!snap) {
        report.status =
            control.cancelled() ? store::SourceStatus::Cancelled : store::SourceStatus::Failed;
        report.error = snap.error();
        return report;
    }
    const Snapshot& s = snap.value();
    const SnapshotReport r = analyzeSnapshot(s, 10, &control);
    if (control.cancelled()) {
        report.status = store::SourceStatus::Cancelled;
        report.error = "cancelled";
        return report;
    }
    auto src = store.beginSource(path, "torch_memory_snapshot");
    if (!src) {
        report.error = src.error();
        return report;
    }
    report.sourceId = src.value();

    // The snapshot's times (epoch µs), or 1 µs per event when the file has none.
    const bool timed = s.hasTimes();
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (const auto& dev : s.devices)
        for (const TraceEvent& e : dev)
            if (e.timeUs >= 0) {
                first = std::min(first, e.timeUs * 1000);
                last = std::max(last, e.timeUs * 1000);
            }
    Alignment align;
    if (timed)
        align = alignToSession(store, report.sourceId, first, last);
    else
        align.how = "no times in the file (PyTorch 2.0 or 1.13): events placed 1 us apart";

    store::StoreWriter w(store, report.sourceId);
    const int64_t nameAlloc = w.intern("alloc"), nameOom = w.intern("oom"),
                  cat = w.intern("memory");
    size_t written = 0;
    for (const DeviceReport& d : r.devices) {
        const DeviceTimeline& t = d.timeline;
        const auto* evs = static_cast<size_t>(d.device) < s.devices.size()
                              ? &s.devices[static_cast<size_t>(d.device)]
                              : nullptr;
        auto tsOf = [&](int32_t i) -> int64_t {
            if (i < 0 || !evs || evs->empty()) i = 0;
            if (!evs || evs->empty()) return align.offsetNs;
            const TraceEvent& e = (*evs)[static_cast<size_t>(
                std::min<size_t>(static_cast<size_t>(i), evs->size() - 1))];
            return timed ? e.timeUs * 1000 + align.offsetNs : static_cast<int64_t>(i) * 1000;
        };
        const std::string dev = std::to_string(d.device);
        const int64_t proc = w.addProcess("cuda:" + dev, "CUDA " + dev + " memory (snapshot)",
                                          static_cast<int64_t>(d.device));
        const int64_t inUse = w.addTrack("counter", proc, 0, kInUse);
        const int64_t pool = w.addTrack("counter", proc, 0, kPool);
        const int64_t thread = w.addThread(proc, "allocations", "Allocations");
        const int64_t allocTrack = w.addTrack("thread", proc, thread, "Allocations");
        // Counters where they change, from the state before the first event.
        int64_t lastUse = t.startAllocated, lastPool = t.startReserved;
        w.addCounter(inUse, tsOf(0), static_cast<double>(lastUse));
        w.addCounter(pool, tsOf(0), static_cast<double>(lastPool));
        report.counterSamples += 2;
        for (size_t i = 0; i < t.allocated.size(); ++i) {
            if ((i & 0xffff) == 0 && control.cancelled()) break;
            const int64_t ts = tsOf(static_cast<int32_t>(i));
            if (t.allocated[i] != lastUse) {
                w.addCounter(inUse, ts, static_cast<double>(lastUse = t.allocated[i]));
                ++report.counterSamples;
            }
            if (t.reserved[i] != lastPool) {
                w.addCounter(pool, ts, static_cast<double>(lastPool = t.reserved[i]));
                ++report.counterSamples;
            }
        }
        // One instant per allocation, in time order (alive-before-the-trace ones first).
        std::vector<size_t> order(t.allocations.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return t.allocations[a].allocEvent < t.allocations[b].allocEvent;
        });
        for (size_t k = 0; k < order.size(); ++k) {
            if ((k & 0xffff) == 0 && control.cancelled()) break;
            const Allocation& a = t.allocations[order[k]];
            rapidjson::StringBuffer buf;
            JsonW j(buf);
            j.StartObject();
            j.Key("bytes");
            j.Int64(a.size);
            jstr(j, "op", siteName(s, a.stack));
            jstr(j, "addr", hexAddr(a.addr));
            j.Key("stream");
            j.Int64(a.stream);
            if (a.freeEvent >= 0) {
                j.Key("free_ts");
                j.Int64(tsOf(a.freeEvent));
            }
            if (a.allocEvent < 0) {
                j.Key("before_trace");
                j.Bool(true);
            }
            pythonFrames(j, s, a.stack, 8);
            j.EndObject();
            w.addInstant(allocTrack, tsOf(a.allocEvent), nameAlloc, cat, 't',
                         w.addArgs(buf.GetString()));
            ++report.instants;
        }
        for (const OomAnswer& o : d.ooms) {
            rapidjson::StringBuffer buf;
            JsonW j(buf);
            j.StartObject();
            j.Key("requested");
            j.Int64(o.requested);
            j.Key("device_free");
            j.Int64(o.deviceFree);
            j.Key("free_in_segments");
            j.Int64(o.freeInSegments);
            j.Key("largest_free");
            j.Int64(o.largestFree);
            j.Key("fragmentation");
            j.Bool(o.fragmentation);
            jstr(j, "verdict", o.verdict);
            pythonFrames(j, s, o.stack, 8);
            j.EndObject();
            w.addInstant(allocTrack, tsOf(o.event), nameOom, cat, 't', w.addArgs(buf.GetString()));
            ++report.instants;
        }
        // record_function ranges the allocator saw (Optimizer.step, zero_grad, ...).
        if (timed) {
            std::map<uint32_t, std::vector<int64_t>> open;
            std::vector<store::SliceRow> rows;
            for (const Annotation& a : s.annotations) {
                if (a.device != d.device || a.timeUs < 0) continue;
                const int64_t ts = a.timeUs * 1000 + align.offsetNs;
                if (a.start) {
                    open[a.name].push_back(ts);
                } else if (!open[a.name].empty()) {
                    store::SliceRow row;
                    row.ts = open[a.name].back();
                    open[a.name].pop_back();
                    row.dur = std::max<int64_t>(0, ts - row.ts);
                    row.nameId = w.intern(s.str(a.name));
                    row.catId = w.intern("user_annotation");
                    rows.push_back(row);
                }
            }
            if (!rows.empty()) {
                const int64_t at = w.addThread(proc, "annotations", "Annotations");
                const int64_t track = w.addTrack("thread", proc, at, "Annotations");
                std::sort(
                    rows.begin(), rows.end(),
                    [](const store::SliceRow& a, const store::SliceRow& b) { return a.ts < b.ts; });
                int64_t end = INT64_MIN;
                for (auto& row : rows) {
                    row.trackId = track;
                    row.depth = row.ts < end ? 1 : 0;
                    end = std::max(end, row.ts + row.dur);
                    w.addSlice(row);
                    ++report.slices;
                }
            }
        }
        if (evs && !evs->empty())
            report.seeTime(tsOf(0), tsOf(static_cast<int32_t>(evs->size()) - 1));
        written += t.allocated.size();
        ++report.processes;
        ++report.threads;
    }
    report.events = static_cast<int64_t>(written);
    if (auto st = w.flush(); !st && w.error().empty()) report.error = st.error();
    if (control.cancelled()) {
        (void)store.deleteSource(report.sourceId);
        report.sourceId = 0;
        report.status = store::SourceStatus::Cancelled;
        report.error = "cancelled";
        return report;
    }
    rapidjson::StringBuffer buf;
    JsonW j(buf);
    j.StartObject();
    jstr(j, "layout", s.layout);
    j.Key("pickle_protocol");
    j.Int(s.pickleProtocol);
    j.Key("alignment");
    j.StartObject();
    jstr(j, "how", align.how);
    j.Key("offset_ns");
    j.Int64(align.offsetNs);
    j.Key("source_id");
    j.Int64(align.sourceId);
    j.EndObject();
    j.Key("devices");
    j.StartArray();
    for (const DeviceReport& d : r.devices) {
        j.StartObject();
        j.Key("device");
        j.Int64(d.device);
        j.Key("events");
        j.Int64(static_cast<int64_t>(d.events));
        j.Key("peak_bytes");
        j.Int64(d.timeline.peakBytes);
        j.Key("leaks");
        j.Int64(static_cast<int64_t>(d.leaks.size()));
        j.Key("ooms");
        j.Int64(static_cast<int64_t>(d.ooms.size()));
        j.EndObject();
    }
    j.EndArray();
    j.Key("notes");
    j.StartArray();
    for (const auto& n : s.notes) j.String(n.c_str());
    j.EndArray();
    j.EndObject();
    report.extraJson = buf.GetString();
    if (!w.error().empty()) {
        report.status = store::SourceStatus::Failed;
        report.error = "store write failed: " + w.error();
    } else {
        report.status =
            s.notes.empty() ? store::SourceStatus::Complete : store::SourceStatus::Partial;
        for (const auto& n : s.notes) {  // "N x what"
            const int64_t count = std::max<int64_t>(1, std::atoll(n.c_str()));
            report.skipped += count;
            report.skippedReasons["snapshot_not_understood"] += count;
        }
    }
    recordSource(store, report);
    return report;
}

}  // namespace torch_memory

Importer torchMemoryImporter() {
    Importer imp;
    imp.name = "torch_memory_snapshot";
    imp.description = "PyTorch CUDA memory snapshots (*.pickle)";
    imp.sniff = [](const std::string& path, std::string_view head) {
        return torch_memory::sniff(path, head);
    };
    imp.run = [](const std::string& path, store::TraceStore& store, JobControl& control,
                 const ImportOptions&) {
        return torch_memory::importSnapshot(path, store, control);
    };
    return imp;
}

}  // namespace ts::importers
