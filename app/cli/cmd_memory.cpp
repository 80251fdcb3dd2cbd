// trainscope-cli memory SNAPSHOT.pickle: what a PyTorch CUDA memory snapshot
// (torch.cuda.memory._dump_snapshot) says — the peak and who allocated what was alive then,
// the allocator's state (reserved, allocated, free, the largest free piece), leaks that grow
// step after step, and each out-of-memory with its cause. Reads the pickle safely (no code
// runs) and streams it, so a snapshot of gigabytes needs memory for its events only.
// trainscope-cli memory SESSION.tscope [--source N | --run N]: the memory of a profile of a
// session — its peak with the allocations live at it named by op, and memory by op (and by
// op and input shape): allocated, freed, net.
#include <cstdio>
#include <string>

#include <filesystem>
#include <optional>

#include "app/cli/command.h"
#include "app/cli/session_open.h"
#include "core/analysis/profile/memory_analysis.h"
#include "core/analysis/profile/profile_data.h"
#include "core/memory/op_memory.h"
#include "core/memory/snapshot_json.h"
#include "core/memory/snapshot_reader.h"

namespace ts::cli {
namespace {

using namespace ts::memory;

/// The Python frames of a stack (user code and torch's), innermost first; the C++ site frame
/// when there are none.
void printStack(const Snapshot& s, uint32_t stack, size_t limit, const char* indent) {
    size_t n = 0;
    for (const Frame* f : shownFrames(s, stack)) {
        const std::string& file = s.str(f->filename);
        if (file.size() < 3 || file.compare(file.size() - 3, 3, ".py") != 0) continue;
        if (n++ == limit) {
            std::printf("%s...\n", indent);
            return;
        }
        std::printf("%s%s\n", indent, frameText(s, *f, true).c_str());
    }
    if (n == 0)
        if (const Frame* f = siteFrame(s, stack))
            std::printf("%s%s (C++ only: no Python frame)\n", indent, frameText(s, *f).c_str());
}

void printSites(const Snapshot& s, const std::vector<SiteGroup>& groups) {
    for (const SiteGroup& g : groups)
        std::printf("      %10s %5lld  %s\n", sizeText(g.bytes).c_str(),
                    static_cast<long long>(g.count), g.site.c_str());
    (void)s;
}

void printState(const char* what, const AllocatorState& st) {
    std::printf(
        "  Allocator %s: %zu segments, %s reserved, %s allocated, %s free, largest free "
        "piece %s\n",
        what, st.segments.size(), sizeText(st.reserved).c_str(), sizeText(st.allocated).c_str(),
        sizeText(st.freeBytes).c_str(), sizeText(st.largestFree).c_str());
}

std::string when(int64_t us, int64_t firstUs) {
    if (us < 0 || firstUs < 0) return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, " (%.3f s after the first event)",
                  static_cast<double>(us - firstUs) / 1e6);
    return buf;
}

void printText(const std::string& path, const Snapshot& s, const SnapshotReport& r) {
    std::printf(
        "Snapshot %s: PyTorch layout %s, pickle protocol %d; %zu segments, %zu blocks, "
        "%zu distinct frames\n",
        path.c_str(), r.layout.c_str(), r.pickleProtocol, r.segments, r.blocks, r.frames);
    for (const auto& n : r.notes) std::printf("  note: %s\n", n.c_str());
    for (const DeviceReport& d : r.devices) {
        const DeviceTimeline& t = d.timeline;
        const bool traced = static_cast<size_t>(d.device) < s.devices.size() &&
                            !s.devices[static_cast<size_t>(d.device)].empty();
        const int64_t firstUs =
            traced ? s.devices[static_cast<size_t>(d.device)].front().timeUs : -1;
        std::printf("\nDevice %lld: %zu events, %zu allocations\n",
                    static_cast<long long>(d.device), d.events, t.allocations.size());
        std::printf("  Peak: %s allocated, %s reserved, at event %d%s; %lld allocations alive\n",
                    sizeText(t.peakBytes).c_str(), sizeText(t.peakReserved).c_str(), t.peakEvent,
                    when(t.peakTimeUs, firstUs).c_str(), static_cast<long long>(d.liveAtPeak));
        std::printf("    Who allocated it (by site):\n");
        printSites(s, d.peakBySite);
        printState("at the peak", d.atPeak);
        printState("at the snapshot", d.atEnd);
        if (d.events == 0)
            std::printf(
                "  No trace (recorded without _record_memory_history): no timeline, leaks "
                "or OOMs.\n");
        else if (d.leaks.empty())
            std::printf(
                "  Leaks: none (no site's live memory grows step after step; steps from "
                "%s)\n",
                d.stepsFrom.c_str());
        for (const Leak& L : d.leaks) {
            std::printf(
                "  LEAK: %s — %lld allocations never freed, %s alive at the end, +%s a "
                "step in %d of %d steps (steps from %s)\n",
                L.site.c_str(), static_cast<long long>(L.count), sizeText(L.bytes).c_str(),
                sizeText(L.bytesPerStep).c_str(), L.stepsGrown, L.steps, d.stepsFrom.c_str());
            printStack(s, L.stack, 8, "      ");
        }
        for (const OomAnswer& o : d.ooms) {
            std::printf("  OUT OF MEMORY at event %d%s: %s asked for — %s\n", o.event,
                        when(o.timeUs, firstUs).c_str(), sizeText(o.requested).c_str(),
                        o.verdict.c_str());
            printStack(s, o.stack, 8, "      ");
            std::printf("    Alive then (by site):\n");
            printSites(s, o.liveBySite);
        }
        if (d.oomEvents > d.ooms.size())
            std::printf("  ... and %zu more out-of-memory events (the first %zu are answered)\n",
                        d.oomEvents - d.ooms.size(), d.ooms.size());
    }
}

void writeOpRows(JsonWriter& w, const char* key, const std::vector<OpMemoryRow>& rows, size_t top) {
    w.Key(key);
    w.StartArray();
    for (size_t i = 0; i < rows.size() && i < top; ++i) {
        w.StartObject();
        kv(w, "op", rows[i].op);
        if (!rows[i].shapes.empty()) kv(w, "input_shapes", rows[i].shapes);
        kv(w, "allocations", rows[i].allocations);
        kv(w, "allocated", rows[i].allocated);
        kv(w, "freed", rows[i].freed);
        kv(w, "net", rows[i].net());
        w.EndObject();
    }
    w.EndArray();
}

/// The memory of a profile of a session: its peak, named by op, and memory by op.
int runSessionMemory(const Args& args, const std::string& path, size_t top) {
    std::optional<int64_t> source, run;
    if (args.has("source")) source = intOption(args, "source");
    if (args.has("run")) run = intOption(args, "run");
    auto store = openSession(path, store::TraceStore::Mode::ReadOnly);
    auto id = analysis::resolveProfileSource(*store, source, run);
    if (!id) throw CliError{id.error()};
    auto m = analysis::analyzeMemory(*store, id.value(), top);
    if (!m) throw CliError{m.error()};
    auto ops = analyzeOpMemory(*store, id.value());
    if (!ops) throw CliError{ops.error()};
    if (args.json) {
        rapidjson::StringBuffer buf;
        JsonWriter w(buf);
        w.StartObject();
        kv(w, "source_id", id.value());
        kv(w, "origin", m->origin.empty() ? ops->origin : m->origin);
        if (m->hasPeak) {
            kv(w, "peak_ts", m->peakTs);
            kv(w, "peak_bytes", m->peakBytes);
            kv(w, "live_at_peak", m->liveAtPeakCount);
        }
        w.Key("top_at_peak");
        w.StartArray();
        for (const auto& l : m->topAtPeak) {
            w.StartObject();
            kv(w, "bytes", l.bytes);
            kv(w, "op", l.op);
            kv(w, "shape", l.shape);
            kv(w, "ts", l.ts);
            w.EndObject();
        }
        w.EndArray();
        kv(w, "allocations_named", ops->named);
        kv(w, "allocations_unnamed", ops->unnamed);
        writeOpRows(w, "by_op", ops->byOp, top);
        writeOpRows(w, "by_op_and_shape", ops->byOpAndShape, top);
        w.Key("devices");
        w.StartArray();
        for (const auto& d : ops->devices) {
            w.StartObject();
            kv(w, "device", d.device);
            kv(w, "peak_bytes", d.peakBytes);
            kv(w, "peak_ts", d.peakTs);
            kv(w, "samples", static_cast<int64_t>(d.ts.size()));
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
        printJson(buf);
        return 0;
    }
    std::printf("Profile: source %lld (%s)\n", static_cast<long long>(id.value()),
                (m->origin.empty() ? ops->origin : m->origin).c_str());
    if (m->hasPeak) {
        std::printf("Peak: %s at %lld ns; %lld allocations live, the largest:\n",
                    sizeText(static_cast<int64_t>(m->peakBytes)).c_str(),
                    static_cast<long long>(m->peakTs), static_cast<long long>(m->liveAtPeakCount));
        for (const auto& l : m->topAtPeak)
            std::printf("  %10s  %s %s\n", sizeText(l.bytes).c_str(),
                        l.op.empty() ? "(no op)" : l.op.c_str(), l.shape.c_str());
    }
    for (const auto& d : ops->devices)
        std::printf("Device %s: peak %s\n", d.device.c_str(),
                    sizeText(static_cast<int64_t>(d.peakBytes)).c_str());
    std::printf("\nMemory by op (%lld allocations named, %lld without an op):\n",
                static_cast<long long>(ops->named), static_cast<long long>(ops->unnamed));
    std::printf("%-48s %8s %12s %12s %12s\n", "op", "allocs", "allocated", "freed", "net");
    for (size_t i = 0; i < ops->byOp.size() && i < top; ++i) {
        const auto& r = ops->byOp[i];
        std::printf("%-48s %8lld %12s %12s %12s\n", r.op.c_str(),
                    static_cast<long long>(r.allocations), sizeText(r.allocated).c_str(),
                    sizeText(r.freed).c_str(), sizeText(r.net()).c_str());
    }
    return 0;
}

int runMemory(const Args& args) {
    const std::string path = args.positional[0];
    const int64_t top = args.has("top") ? intOption(args, "top") : 10;
    if (top <= 0) throw CliError{"--top must be positive"};
    if (std::filesystem::path(path).extension() == ".tscope")
        return runSessionMemory(args, path, static_cast<size_t>(top));
    if (args.has("source") || args.has("run"))
        throw CliError{"--source and --run are for a session (*.tscope), not a snapshot"};
    auto s = readSnapshot(path);
    if (!s) throw CliError{s.error()};
    SnapshotReport r = analyzeSnapshot(s.value(), static_cast<size_t>(top));
    if (args.has("device")) {
        const int64_t dev = intOption(args, "device");
        std::erase_if(r.devices, [&](const DeviceReport& d) { return d.device != dev; });
        if (r.devices.empty()) throw CliError{"the snapshot has no device " + std::to_string(dev)};
    }
    if (!args.json) {
        printText(path, s.value(), r);
        return 0;
    }
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    writeSnapshotReport(w, s.value(), r, 64);
    printJson(buf);
    return 0;
}

TS_CLI_COMMAND("memory",
               "a PyTorch CUDA memory snapshot (*.pickle): peak and who allocated it, allocator "
               "state, leaks, out-of-memory causes; or a session profile's memory by op",
               "SNAPSHOT.pickle [--top N] [--device N] [--json] | SESSION.tscope [--source N | "
               "--run N] [--top N] [--json]",
               {{"top", true, "sites (ops for a session) listed at the peak (default 10)"},
                {"device", true, "a snapshot's device: only this one"},
                {"source", true, "a session's profile: this source"},
                {"run", true, "a session's profile: this run's"}},
               &runMemory, 1, 1);

}  // namespace
}  // namespace ts::cli
