// The collector's activity records -> session rows (through the shared GPU row rules).
#include "core/profiler/gpu/activity_import.h"
#include "core/common/json.h"

#include <cxxabi.h>

#include <cstdlib>
#include <map>

namespace ts::profiler::gpu {

std::string demangle(const std::string& name) {
    if (!name.starts_with("_Z")) return name;
    int status = 0;
    char* out = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    std::string result = status == 0 && out ? std::string(out) : name;
    std::free(out);
    return result;
}

namespace {

/// What a GPU record needs from its API call: the thread and time it was launched at.
struct LaunchSite {
    int64_t tid = 0;
    int64_t ts = 0;
};

class RowWriter {
public:
    RowWriter(const ActivityTrace& t, GpuRows& rows, const ActivityImportOptions& o,
              const ActivityProblem& problem)
        : m_t(t),
          m_rows(rows),
          m_b(rows.builder()),
          m_w(m_b.writer()),
          m_o(o),
          m_problem(problem),
          m_clock(alignClock(t.clocks, o.clock)) {
        m_pid = t.process ? t.process->pid : (t.apis.empty() ? 0 : t.apis.front().pid);
        m_pkey = processKey(globalTid(m_pid, 0));
    }

    ActivityImportStats run() {
        readProblems();
        names();
        if (m_o.prepare) m_o.prepare(m_b);
        for (const ApiRecord& a : m_t.apis) api(a);
        for (const KernelRecord& k : m_t.kernels) kernel(k);
        for (const MemcpyRecord& m : m_t.memcpys) memcpy(m);
        for (const MemsetRecord& m : m_t.memsets) memset(m);
        for (const SyncRecord& s : m_t.syncs) sync(s);
        markers();
        for (const OverheadRecord& o : m_t.overheads) overhead(o);
        return m_stats;
    }

private:
    int64_t at(uint64_t cuptiNs) const {
        const int64_t h = m_clock.toHost(cuptiNs);
        return m_o.toSession ? m_o.toSession(h) : h;
    }
    int64_t str(uint32_t id, const char* fallback) {
        auto it = m_ids.find(id);
        if (it != m_ids.end()) return it->second;
        const std::string& text = m_t.text(id);
        return m_ids.emplace(id, m_w.intern(text.empty() ? fallback : text)).first->second;
    }
    bool ordered(uint64_t start, uint64_t end, const char* what) {
        if (end >= start) return true;
        m_problem("cupti_negative_duration", std::string(what) + " ending before it starts", 1);
        return false;
    }

    void readProblems() {
        m_stats.clockNote = m_clock.note;
        if (!m_clock.note.empty()) m_problem("cupti_clock", m_clock.note, 1);
        m_stats.dropped = static_cast<int64_t>(m_t.droppedCount());
        if (m_stats.dropped > 0)
            m_problem("cupti_dropped_records",
                      "CUPTI dropped " + std::to_string(m_stats.dropped) +
                          " activity records (its buffers were full): kernels, copies or API "
                          "calls are missing from this trace",
                      m_stats.dropped);
        if (m_t.truncated)
            m_problem("cupti_truncated",
                      "the file ends mid-record: the process ended before the collector "
                      "flushed (killed?); the records before it are imported",
                      1);
        if (m_t.unknownRecords)
            m_problem("cupti_unknown_record",
                      std::to_string(m_t.unknownRecords) +
                          " records of a kind this build does not know (a newer collector) "
                          "were skipped",
                      static_cast<int64_t>(m_t.unknownRecords));
        if (m_t.malformedRecords)
            m_problem("cupti_malformed_record",
                      std::to_string(m_t.malformedRecords) + " records had the wrong size",
                      static_cast<int64_t>(m_t.malformedRecords));
        for (const std::string& n : m_t.notes) m_problem("cupti_collector_note", n, 1);
    }

    void names() {
        if (m_t.process && m_t.process->nameId)
            m_b.setProcessName(m_pkey, m_t.text(m_t.process->nameId));
        for (const ThreadNameRecord& r : m_t.threadNames)
            m_b.setThreadName(globalTid(r.pid, r.tid), m_t.text(r.nameId));
        for (const DeviceRecord& d : m_t.devices)
            if (d.nameId) m_b.setDeviceName(d.id, m_t.text(d.nameId));
        std::map<uint32_t, int> contextsPerDevice;
        for (const ContextRecord& c : m_t.contexts) {
            m_deviceOf[c.context] = c.device;
            m_b.setDefaultStream(c.device, c.context, c.nullStream);
            if (++contextsPerDevice[c.device] == 2) m_b.setMultiContext(c.device);
        }
    }

    void api(const ApiRecord& a) {
        ++m_stats.apis;
        if (!ordered(a.start, a.end, "an API call")) return;
        ApiCall call;
        call.start = at(a.start);
        call.end = at(a.end);
        if (m_o.keep && !m_o.keep(call.start, call.end)) return;
        call.globalTid = globalTid(a.pid ? a.pid : m_pid, a.tid);
        call.nameId =
            str(a.nameId, a.domain == kApiDriver ? "[CUDA driver call]" : "[CUDA runtime call]");
        const std::string_view name = m_t.text(a.nameId);
        call.name = !name.empty() ? name : a.domain == kApiDriver ? "cu" : "cuda";
        call.kind = ApiKind::Cuda;
        call.correlation = a.correlation;
        call.returnValue = a.returnValue;
        m_rows.apiCall(call, "CUDA API", 1);
        // The innermost call of a correlation id (the driver's inside the runtime's).
        auto [it, fresh] = m_launch.try_emplace(a.correlation, LaunchSite{a.tid, call.start});
        if (!fresh && call.start > it->second.ts) it->second = {a.tid, call.start};
    }

    /// Fills what every GPU record has; false when options.keep leaves it out.
    bool place(GpuPlacement& p, uint64_t start, uint64_t end, uint32_t device, uint32_t context,
               uint32_t stream, uint32_t correlation, std::string& op) {
        p.start = at(start);
        p.end = at(end);
        if (m_o.keep && !m_o.keep(p.start, p.end)) return false;
        p.device = device;
        p.context = context;
        p.stream = stream;
        if (correlation) p.correlation = correlation;
        p.globalPid = m_pkey;
        if (m_o.opAt && correlation) {
            auto it = m_launch.find(correlation);
            if (it != m_launch.end()) op = m_o.opAt(it->second.tid, it->second.ts);
        }
        p.op = op;  // `op` keeps the attributed op's name alive
        return true;
    }

    void kernel(const KernelRecord& k) {
        ++m_stats.kernels;
        if (!ordered(k.start, k.end, "a kernel")) return;
        KernelRow row;
        std::string op;
        if (!place(row, k.start, k.end, k.device, k.context, k.stream, k.correlation, op)) return;
        row.nameId = kernelName(k.nameId);
        row.grid = {{k.grid[0], k.grid[1], k.grid[2]}};
        row.block = {{k.block[0], k.block[1], k.block[2]}};
        row.registersPerThread = k.registersPerThread;
        row.sharedMemory = int64_t{k.staticSharedMemory} + k.dynamicSharedMemory;
        m_rows.kernel(row);
    }

    int64_t kernelName(uint32_t id) {
        auto it = m_kernelNames.find(id);
        if (it != m_kernelNames.end()) return it->second;
        const std::string& raw = m_t.text(id);
        const int64_t sid = raw.empty() ? 0 : m_w.intern(demangle(raw));
        return m_kernelNames.emplace(id, sid).first->second;
    }

    void memcpy(const MemcpyRecord& m) {
        ++m_stats.memcpys;
        if (!ordered(m.start, m.end, "a memcpy")) return;
        MemcpyRow row;
        std::string op;
        if (!place(row, m.start, m.end, m.device, m.context, m.stream, m.correlation, op)) return;
        row.bytes = static_cast<int64_t>(m.bytes);
        row.copyKind = m.copyKind;
        m_rows.memcpy(row);
    }

    void memset(const MemsetRecord& m) {
        ++m_stats.memsets;
        if (!ordered(m.start, m.end, "a memset")) return;
        MemsetRow row;
        std::string op;
        if (!place(row, m.start, m.end, m.device, m.context, m.stream, m.correlation, op)) return;
        row.bytes = static_cast<int64_t>(m.bytes);
        row.value = m.value;
        m_rows.memset(row);
    }

    void sync(const SyncRecord& s) {
        ++m_stats.syncs;
        if (!ordered(s.start, s.end, "a synchronisation")) return;
        SyncRow row;
        std::string op;
        auto dev = m_deviceOf.find(s.context);
        if (!place(row, s.start, s.end, dev == m_deviceOf.end() ? 0 : dev->second, s.context,
                   s.stream == kNoStream ? 0 : s.stream, s.correlation, op))
            return;
        row.type = s.type;
        row.hasStream = s.stream != kNoStream;
        if (s.type == 1 || s.type == 2) row.cudaEvent = s.cudaEvent;
        m_rows.sync(row);
    }

    int64_t markerCategory(uint32_t domainId) {
        const std::string& d = m_t.text(domainId);
        const std::string cat = d.empty() ? "nvtx" : d;
        auto it = m_markerCats.find(cat);
        if (it == m_markerCats.end()) it = m_markerCats.emplace(cat, m_w.intern(cat)).first;
        return it->second;
    }

    void markers() {
        std::map<uint32_t, const MarkerRecord*> open;
        for (const MarkerRecord& m : m_t.markers) {
            ++m_stats.markers;
            const int64_t gtid = globalTid(m.pid ? m.pid : m_pid, m.tid);
            if (m.flags & kMarkerInstant) {
                if (m_o.keep && !m_o.keep(at(m.ts), at(m.ts))) continue;
                m_b.instant(m_b.threadTrack(gtid, "NVTX", 0), at(m.ts), str(m.nameId, "(unnamed)"),
                            markerCategory(m.domainId), 0);
                continue;
            }
            if (m.flags & kMarkerStart) {
                open[m.id] = &m;
                continue;
            }
            auto it = open.find(m.id);
            if (it == open.end()) {
                ++m_stats.unpairedMarkers;
                m_problem("cupti_marker_unpaired", "an NVTX range end without its start", 1);
                continue;
            }
            range(*it->second, at(m.ts) - at(it->second->ts), m.tid);
            open.erase(it);
        }
        for (const auto& [id, start] : open) range(*start, -1, start->tid);  // unfinished
    }

    void range(const MarkerRecord& s, int64_t dur, uint32_t endTid) {
        if (m_o.keep && !m_o.keep(at(s.ts), dur < 0 ? at(s.ts) : at(s.ts) + dur)) return;
        const int64_t gtid = globalTid(s.pid ? s.pid : m_pid, s.tid);
        json::ArgsJson args;
        if (endTid != s.tid) args.num("end thread", endTid);
        const GpuSlice slice{at(s.ts), dur, str(s.nameId, "(unnamed)"), markerCategory(s.domainId),
                             args.empty() ? 0 : m_w.addArgs(args.done())};
        if (endTid == s.tid) {
            m_b.add(m_b.threadTrack(gtid, "NVTX", 0), slice);
            ++m_b.counts().slices;
        } else {
            m_b.add(m_b.asyncTrack(processKey(gtid), "NVTX start/end ranges"), slice);
            ++m_b.counts().asyncSlices;
        }
    }

    void overhead(const OverheadRecord& o) {
        ++m_stats.overheads;
        if (!ordered(o.start, o.end, "a CUPTI overhead")) return;
        m_stats.overheadNs += static_cast<int64_t>(o.end - o.start);
        if (m_o.keep && !m_o.keep(at(o.start), at(o.end))) return;
        if (!m_overheadCat) m_overheadCat = m_w.intern("cupti_overhead");
        const GpuSlice slice{at(o.start), at(o.end) - at(o.start), str(o.nameId, "CUPTI overhead"),
                             m_overheadCat, 0};
        if (o.tid) {
            m_b.add(m_b.threadTrack(globalTid(o.pid ? o.pid : m_pid, o.tid), "CUPTI overhead", 9),
                    slice);
            ++m_b.counts().slices;
        } else {
            m_b.add(m_b.asyncTrack(m_pkey, "CUPTI overhead"), slice);
            ++m_b.counts().asyncSlices;
        }
    }

    const ActivityTrace& m_t;
    GpuRows& m_rows;
    GpuTraceBuilder& m_b;
    store::StoreWriter& m_w;
    const ActivityImportOptions& m_o;
    const ActivityProblem& m_problem;
    ClockAlignment m_clock;
    uint32_t m_pid = 0;
    int64_t m_pkey = 0;
    int64_t m_overheadCat = 0;
    ActivityImportStats m_stats;
    std::unordered_map<uint32_t, int64_t> m_ids, m_kernelNames;
    std::unordered_map<uint32_t, uint32_t> m_deviceOf;
    std::unordered_map<uint32_t, LaunchSite> m_launch;
    std::map<std::string, int64_t> m_markerCats;
};

}  // namespace

ActivityImportStats writeActivityRows(const ActivityTrace& trace, GpuRows& rows,
                                      const ActivityImportOptions& options,
                                      const ActivityProblem& problem) {
    return RowWriter(trace, rows, options, problem).run();
}

}  // namespace ts::profiler::gpu
