#include "importers/ascend_memory/ascend_memory_importer.h"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>

#include "core/common/saturating_cast.h"
#include "core/store/store_writer.h"
#include "importers/common/csv_table.h"

namespace ts::importers {
namespace ascend_memory {

namespace {

enum class Table { None, OperatorMemory, MemoryRecord };

Table tableOf(const std::vector<std::string>& header) {
    auto has = [&](std::string_view prefix) {
        return std::any_of(header.begin(), header.end(),
                           [&](const std::string& h) { return h.rfind(prefix, 0) == 0; });
    };
    if (has("Name") && has("Size(KB)") && has("Allocation Time(")) return Table::OperatorMemory;
    if (has("Component") && has("Timestamp(") && has("Total Allocated("))
        return Table::MemoryRecord;
    return Table::None;
}

struct Sample {
    int64_t ts;
    double inUse, pool;
};

using csv::Row;

/// Calls `fn` with each data line (after the header) until the end or a cancel.
template <class F>
void forEachRow(const std::vector<std::string>& lines, JobControl& control, F fn) {
    for (size_t i = 1; i < lines.size(); ++i) {
        if ((i & 4095) == 0) {
            control.setDone(i);
            if (control.cancelled()) return;
        }
        fn(Row{splitCsvLine(lines[i])});
    }
}

}  // namespace

int sniff(const std::string& path, std::string_view head) {
    (void)path;
    if (head.rfind("\xEF\xBB\xBF", 0) == 0) head.remove_prefix(3);
    const auto nl = head.find('\n');
    if (nl == std::string_view::npos && head.size() >= 4096) return 0;
    return tableOf(splitCsvLine(head.substr(0, nl))) != Table::None ? 90 : 0;
}

ImportReport importCsv(const std::string& path, store::TraceStore& store, JobControl& control) {
    ImportReport report;
    report.path = path;
    report.kind = "ascend_memory";
    auto lines = csv::readLines(path);
    if (!lines) {
        report.error = lines.error();
        return report;
    }
    if (lines->empty()) {
        report.error = "empty file";
        return report;
    }
    const auto header = splitCsvLine(lines->front());
    const Table table = tableOf(header);
    if (table == Table::None) {
        report.error = "not an Ascend memory table (operator_memory.csv or memory_record.csv)";
        return report;
    }
    auto src = store.beginSource(path, "ascend_memory");
    if (!src) {
        report.error = src.error();
        return report;
    }
    report.sourceId = src.value();
    store::StoreWriter w(store, report.sourceId);
    const int devTypeCol = csv::column(header, "Device Type"),
              devIdCol = csv::column(header, "Device_id");
    auto deviceOf = [&](const std::vector<std::string>& f) -> std::string {
        if (devTypeCol >= 0 && static_cast<size_t>(devTypeCol) < f.size() &&
            !f[static_cast<size_t>(devTypeCol)].empty())
            return f[static_cast<size_t>(devTypeCol)];
        if (devIdCol >= 0 && static_cast<size_t>(devIdCol) < f.size())
            return "NPU:" + f[static_cast<size_t>(devIdCol)];
        return "NPU";
    };
    std::map<std::string, std::vector<Sample>> curves;  // device -> in use / pool over time
    struct Alloc {
        int64_t ts, bytes;
        std::string op;
        std::optional<int64_t> freeTs;
    };
    std::map<std::string, std::vector<Alloc>> allocs;
    std::map<std::string, std::map<std::string, std::vector<Sample>>> components;
    control.setTotal(lines->size());
    if (table == Table::OperatorMemory) {
        const int name = csv::column(header, "Name"), size = csv::column(header, "Size(KB)"),
                  at = csv::column(header, "Allocation Time("),
                  rel = csv::column(header, "Release Time("),
                  dur = csv::column(header, "Duration("),
                  aAlloc = csv::column(header, "Allocation Total Allocated("),
                  aRes = csv::column(header, "Allocation Total Reserved("),
                  rAlloc = csv::column(header, "Release Total Allocated("),
                  rRes = csv::column(header, "Release Total Reserved(");
        const double tUnit = csv::nsPerUnit(header, at), mUnit = csv::bytesPerUnit(header, aAlloc);
        forEachRow(*lines, control, [&](const Row& f) {
            const auto kb = f.get(size), t = f.get(at);
            if (!kb || !t || !f.has(name)) {
                report.skip("ascend_memory_bad_row");
                return;
            }
            if (*kb <= 0) {  // a release row (MindSpore's layout): the allocation row says when
                report.skip("ascend_memory_release_row");
                return;
            }
            const std::string dev = deviceOf(f.fields);
            Alloc a{saturatingInt64(*t * tUnit), saturatingInt64(*kb * 1024.0), f.text(name),
                    std::nullopt};
            if (auto r = f.get(rel))
                a.freeTs = saturatingInt64(*r * tUnit);
            else if (auto d = f.get(dur))
                a.freeTs = a.ts + saturatingInt64(*d * csv::nsPerUnit(header, dur));
            if (auto v = f.get(aAlloc))
                curves[dev].push_back({a.ts, *v * mUnit, f.get(aRes).value_or(0) * mUnit});
            if (a.freeTs)
                if (auto v = f.get(rAlloc))
                    curves[dev].push_back({*a.freeTs, *v * mUnit, f.get(rRes).value_or(0) * mUnit});
            allocs[dev].push_back(std::move(a));
            ++report.events;
        });
    } else {
        const int comp = csv::column(header, "Component"), at = csv::column(header, "Timestamp("),
                  al = csv::column(header, "Total Allocated("),
                  res = csv::column(header, "Total Reserved(");
        const double tUnit = csv::nsPerUnit(header, at), mUnit = csv::bytesPerUnit(header, al);
        forEachRow(*lines, control, [&](const Row& f) {
            const auto t = f.get(at), a = f.get(al);
            if (!t || !a || !f.has(comp)) {
                report.skip("ascend_memory_bad_row");
                return;
            }
            components[deviceOf(f.fields)][f.text(comp)].push_back(
                {saturatingInt64(*t * tUnit), *a * mUnit, f.get(res).value_or(0) * mUnit});
            ++report.events;
        });
        // In use: the framework and the graph engine together (PTA+GE), else PTA, else any.
        for (auto& [dev, comps] : components) {
            for (const char* pick : {"PTA+GE", "PTA", "APP", "GE"})
                if (comps.count(pick)) {
                    curves[dev] = comps[pick];
                    break;
                }
            if (!curves.count(dev) && !comps.empty()) curves[dev] = comps.begin()->second;
        }
    }
    if (control.cancelled()) {
        (void)store.deleteSource(report.sourceId);
        report.sourceId = 0;
        report.status = store::SourceStatus::Cancelled;
        report.error = "cancelled";
        return report;
    }
    const int64_t nameAlloc = w.intern("alloc"), cat = w.intern("memory");
    int64_t sort = 0;
    std::map<std::string, int64_t> procs;
    auto procOf = [&](const std::string& dev) {
        auto it = procs.find(dev);
        if (it != procs.end()) return it->second;
        const int64_t p = w.addProcess(dev, dev + " memory (Ascend)", sort++);
        ++report.processes;
        return procs[dev] = p;
    };
    for (auto& [dev, samples] : curves) {
        std::stable_sort(samples.begin(), samples.end(),
                         [](const Sample& a, const Sample& b) { return a.ts < b.ts; });
        const int64_t p = procOf(dev);
        const int64_t inUse = w.addTrack("counter", p, 0, "Memory In Use (bytes)");
        const int64_t pool = w.addTrack("counter", p, 0, "Memory Pool (bytes)");
        for (const Sample& s : samples) {
            w.addCounter(inUse, s.ts, s.inUse);
            w.addCounter(pool, s.ts, s.pool);
            report.counterSamples += 2;
            report.seeTime(s.ts, s.ts);
        }
    }
    for (auto& [dev, comps] : components)  // every component's curve, for the timeline
        for (auto& [name, samples] : comps) {
            const int64_t t = w.addTrack("counter", procOf(dev), 0, name + " Allocated (bytes)");
            for (const Sample& s : samples) w.addCounter(t, s.ts, s.inUse);
            report.counterSamples += static_cast<int64_t>(samples.size());
        }
    for (auto& [dev, list] : allocs) {
        std::stable_sort(list.begin(), list.end(),
                         [](const Alloc& a, const Alloc& b) { return a.ts < b.ts; });
        const int64_t p = procOf(dev);
        const int64_t th = w.addThread(p, "allocations", "Allocations");
        ++report.threads;
        const int64_t track = w.addTrack("thread", p, th, "Allocations");
        for (const Alloc& a : list) {
            std::string json = "{\"bytes\":" + std::to_string(a.bytes) + ",\"op\":\"";
            for (char c : a.op) {
                if (c == '"' || c == '\\') json += '\\';
                if (static_cast<unsigned char>(c) >= 0x20) json += c;
            }
            json += "\"";
            if (a.freeTs) json += ",\"free_ts\":" + std::to_string(*a.freeTs);
            json += "}";
            w.addInstant(track, a.ts, nameAlloc, cat, 't', w.addArgs(json));
            ++report.instants;
            report.seeTime(a.ts, a.freeTs.value_or(a.ts));
        }
    }
    if (auto st = w.flush(); !st && w.error().empty()) report.error = st.error();
    report.extraJson = std::string("{\"table\":\"") +
                       (table == Table::OperatorMemory ? "operator_memory" : "memory_record") +
                       "\"}";
    if (!w.error().empty()) {
        report.status = store::SourceStatus::Failed;
        report.error = "store write failed: " + w.error();
    } else if (report.events == 0) {
        report.status = store::SourceStatus::Failed;
        report.error = "no row could be read";
    } else {
        report.status =
            report.skipped > 0 ? store::SourceStatus::Partial : store::SourceStatus::Complete;
    }
    recordSource(store, report);
    return report;
}

}  // namespace ascend_memory

Importer ascendMemoryImporter() {
    Importer imp;
    imp.name = "ascend_memory";
    imp.description = "Ascend memory tables (operator_memory.csv, memory_record.csv)";
    imp.sniff = [](const std::string& path, std::string_view head) {
        return ascend_memory::sniff(path, head);
    };
    imp.run = [](const std::string& path, store::TraceStore& store, JobControl& control,
                 const ImportOptions&) { return ascend_memory::importCsv(path, store, control); };
    return imp;
}

}  // namespace ts::importers
