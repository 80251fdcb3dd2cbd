// The Ascend profiler importer ("ascend_profiler"): the tables of an ASCEND_PROFILER_OUTPUT
// folder, msprof-analyze's cluster outputs and MindSpore 1.x's profiler files (see
// ascend_files.h). What each becomes (docs/IMPORT.md, "Ascend profiler folders"):
//  - kernel_details.csv: one slice per kernel on the "Stream <id>" track of an
//    "Ascend Hardware" process (category "kernel"; Start Time(us), Duration(us)), its args
//    every column of the row (Type, Accelerator Core, Block Dim, shapes, dtypes, formats,
//    the aic_* / aiv_* pipeline figures, ...), so the Kernel view and the GPU analyses read
//    it as they read a GPU's kernels;
//  - npu_module_mem.csv: one counter track per component ("<component> Reserved (bytes)");
//  - op_statistic.csv, step_trace_time.csv, cluster_step_trace_time.csv and MindSpore 1.x's
//    aicore_intermediate_*, framework_raw_*, flops_*, minddata_pipeline_raw_*,
//    step_trace_raw_* tables: kept as tables in the source's stats (extra.table, extra.header,
//    extra.rows: numbers as numbers, text as text), read by core/analysis/gpu/ascend_tables;
//  - communication.json / cluster_communication.json: every operator's "Communication Time
//    Info" and "Communication Bandwidth Info" per link type as extra.ops;
//    communication_matrix.json / cluster_communication_matrix.json: every link as
//    extra.links.
// Bad rows are skipped with a key; a file with no readable row fails.
#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/common/json.h"
#include "core/common/json_read.h"
#include "core/common/saturating_cast.h"
#include "core/store/store_writer.h"
#include "importers/ascend/ascend_files.h"
#include "importers/common/csv_table.h"
#include "importers/registry.h"

namespace ts::importers {
namespace ascend {
namespace {

namespace fs = std::filesystem;
using Writer = json::Writer;

constexpr size_t kMaxTableRows = 500000;

AscendFile kindOf(const std::string& path, std::string_view head) {
    AscendFile k = ascendFileKind(fs::path(path).filename().string());
    if (k == AscendFile::TraceView || k == AscendFile::MsTimeline || k == AscendFile::ProfilerDb ||
        k == AscendFile::OperatorMemory || k == AscendFile::MemoryRecord)
        return AscendFile::Unknown;  // other importers read these
    if (k != AscendFile::Unknown) return k;
    const auto nl = head.find('\n');
    k = ascendCsvKindByHeader(head.substr(0, nl));
    if (k != AscendFile::Unknown) return k;
    if (head.find("\"Communication Time Info\"") != std::string_view::npos)
        return fs::path(path).filename().string().rfind("cluster_", 0) == 0
                   ? AscendFile::ClusterCommunication
                   : AscendFile::Communication;
    if (head.find("\"Transport Type\"") != std::string_view::npos)
        return fs::path(path).filename().string().rfind("cluster_", 0) == 0
                   ? AscendFile::ClusterCommunicationMatrix
                   : AscendFile::CommunicationMatrix;
    return AscendFile::Unknown;
}

/// Writes one CSV cell: a number when the whole cell is one, else text.
void cell(Writer& w, const std::string& s) {
    if (auto v = csv::number(s); v && !s.empty())
        json::finiteOrNull(w, *v);
    else
        json::str(w, s);
}

/// A table kept as header + rows in the stats.
/// After a table is read: the source its rows go into, unless the import was cancelled
/// meanwhile (the report says which, and why not).
bool beginTableSource(const std::string& path, store::TraceStore& store, const JobControl& control,
                      ImportReport& report) {
    if (control.cancelled()) {
        report.status = store::SourceStatus::Cancelled;
        report.error = "cancelled";
        return false;
    }
    auto src = store.beginSource(path, "ascend_profiler");
    if (!src) {
        report.error = src.error();
        return false;
    }
    report.sourceId = src.value();
    return true;
}

ImportReport importTable(const std::string& path, AscendFile kind, store::TraceStore& store,
                         JobControl& control, ImportReport report) {
    auto lines = csv::readLines(path);
    if (!lines) {
        report.error = lines.error();
        return report;
    }
    if (lines->empty()) {
        report.error = "empty file";
        return report;
    }
    auto header = splitCsvLine(lines->front());
    // flops_<id>.txt writes ", " between columns: the splitter trims the spaces.
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.StartObject();
    json::kv(w, "table", std::string_view(ascendFileKey(kind)));
    w.Key("header");
    w.StartArray();
    for (const auto& h : header) json::str(w, h);
    w.EndArray();
    w.Key("rows");
    w.StartArray();
    control.setTotal(lines->size());
    for (size_t i = 1; i < lines->size(); ++i) {
        if ((i & 4095) == 0) {
            control.setDone(i);
            if (control.cancelled()) break;
        }
        const auto f = splitCsvLine((*lines)[i]);
        if (f.size() != header.size()) {
            report.skip("ascend_table_column_count");
            continue;
        }
        if (static_cast<size_t>(report.events) >= kMaxTableRows) {
            report.skip("ascend_table_too_many_rows");
            continue;
        }
        w.StartArray();
        for (const auto& c : f) cell(w, c);
        w.EndArray();
        ++report.events;
    }
    w.EndArray();
    w.EndObject();
    if (!beginTableSource(path, store, control, report)) return report;
    report.extraJson = std::string(buf.GetString(), buf.GetSize());
    if (report.events == 0) {
        report.status = store::SourceStatus::Failed;
        report.error = "no row could be read";
    } else {
        report.status =
            report.skipped ? store::SourceStatus::Partial : store::SourceStatus::Complete;
    }
    recordSource(store, report);
    return report;
}

/// kernel_details.csv: kernels on their streams.
ImportReport importKernels(const std::string& path, store::TraceStore& store, JobControl& control,
                           ImportReport report) {
    auto lines = csv::readLines(path);
    if (!lines) {
        report.error = lines.error();
        return report;
    }
    if (lines->size() < 2) {
        report.error = lines->empty() ? "empty file" : "no kernel rows";
        return report;
    }
    const auto header = splitCsvLine(lines->front());
    const int name = csv::exactColumn(header, "Name"), start = csv::column(header, "Start Time("),
              dur = csv::column(header, "Duration("),
              stream = csv::exactColumn(header, "Stream ID"),
              device = csv::exactColumn(header, "Device_id");
    if (name < 0 || start < 0 || dur < 0) {
        report.error = "kernel_details.csv needs the columns Name, Start Time(us) and Duration(us)";
        return report;
    }
    const double tUnit = csv::nsPerUnit(header, start), dUnit = csv::nsPerUnit(header, dur);
    struct Kernel {
        int64_t ts, dur;
        std::string name, args;
    };
    std::map<std::pair<std::string, std::string>, std::vector<Kernel>> byStream;  // device, stream
    control.setTotal(lines->size());
    for (size_t i = 1; i < lines->size(); ++i) {
        if ((i & 4095) == 0) {
            control.setDone(i);
            if (control.cancelled()) break;
        }
        const csv::Row r{splitCsvLine((*lines)[i])};
        const auto t = r.get(start), d = r.get(dur);
        if (!t || !d || !r.has(name) || *d < 0) {
            report.skip("ascend_kernel_bad_row");
            continue;
        }
        json::ArgsJson args;
        for (size_t c = 0; c < header.size() && c < r.fields.size(); ++c) {
            if (static_cast<int>(c) == name || static_cast<int>(c) == start ||
                static_cast<int>(c) == dur)
                continue;
            std::string_view v = r.fields[c];
            // torch_npu quotes shapes once more inside the CSV's quoting ("""8192,512"""), so
            // that a spreadsheet keeps them whole: the value is what is inside.
            if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
            if (v.empty() || v == "N/A") continue;
            if (auto x = csv::number(v);
                x && header[c] != "Input Shapes" && header[c] != "Output Shapes")
                args.real(header[c], *x);
            else
                args.str(header[c], v);
        }
        byStream[{r.text(device), r.text(stream)}].push_back(
            {saturatingInt64(*t * tUnit), saturatingInt64(*d * dUnit), r.text(name), args.done()});
        ++report.events;
    }
    if (!beginTableSource(path, store, control, report)) return report;
    store::StoreWriter w(store, report.sourceId);
    const int64_t cat = w.intern("kernel");
    std::map<std::string, int64_t> procs;
    for (auto& [key, list] : byStream) {
        const std::string& dev = key.first;
        auto pit = procs.find(dev);
        if (pit == procs.end()) {
            const int64_t p = w.addProcess(dev.empty() ? "npu" : "npu" + dev, "Ascend Hardware", 8);
            ++report.processes;
            pit = procs.emplace(dev, p).first;
        }
        const std::string streamName =
            "Stream " + (key.second.empty() ? std::string("0") : key.second);
        const int64_t th =
            w.addThread(pit->second, key.second.empty() ? "0" : key.second, streamName);
        ++report.threads;
        const int64_t track = w.addTrack("thread", pit->second, th, streamName);
        std::stable_sort(list.begin(), list.end(),
                         [](const Kernel& a, const Kernel& b) { return a.ts < b.ts; });
        for (const Kernel& k : list) {
            store::SliceRow row;
            row.trackId = track;
            row.ts = k.ts;
            row.dur = k.dur;
            row.nameId = w.intern(k.name);
            row.catId = cat;
            row.argSetId = w.addArgs(k.args);
            w.addSlice(row);
            ++report.slices;
            report.seeTime(k.ts, k.ts + k.dur);
        }
    }
    if (auto st = w.flush(); !st && w.error().empty()) report.error = st.error();
    report.extraJson = "{\"table\":\"kernel_details\"}";
    if (!w.error().empty()) {
        report.status = store::SourceStatus::Failed;
        report.error = "store write failed: " + w.error();
    } else if (report.slices == 0) {
        report.status = store::SourceStatus::Failed;
        report.error = "no kernel row could be read";
    } else {
        report.status =
            report.skipped ? store::SourceStatus::Partial : store::SourceStatus::Complete;
    }
    recordSource(store, report);
    return report;
}

/// npu_module_mem.csv: the reserved memory of each component over time, as counters.
ImportReport importModuleMemory(const std::string& path, store::TraceStore& store,
                                JobControl& control, ImportReport report) {
    auto lines = csv::readLines(path);
    if (!lines || lines->size() < 2) {
        report.error = lines ? "no rows" : lines.error();
        return report;
    }
    const auto header = splitCsvLine(lines->front());
    const int comp = csv::exactColumn(header, "Component"), at = csv::column(header, "Timestamp("),
              res = csv::column(header, "Total Reserved("),
              dev = csv::exactColumn(header, "Device_id");
    if (comp < 0 || at < 0 || res < 0) {
        report.error = "npu_module_mem.csv needs Component, Timestamp(us) and Total Reserved(MB)";
        return report;
    }
    const double tUnit = csv::nsPerUnit(header, at), mUnit = csv::bytesPerUnit(header, res);
    std::map<std::pair<std::string, std::string>, std::vector<std::pair<int64_t, double>>> series;
    for (size_t i = 1; i < lines->size(); ++i) {
        if (control.cancelled()) break;
        const csv::Row r{splitCsvLine((*lines)[i])};
        const auto t = r.get(at), v = r.get(res);
        if (!t || !v || !r.has(comp)) {
            report.skip("ascend_module_mem_bad_row");
            continue;
        }
        series[{r.text(dev), r.text(comp)}].emplace_back(saturatingInt64(*t * tUnit), *v * mUnit);
        ++report.events;
    }
    if (!beginTableSource(path, store, control, report)) return report;
    store::StoreWriter w(store, report.sourceId);
    std::map<std::string, int64_t> procs;
    for (auto& [key, points] : series) {
        auto pit = procs.find(key.first);
        if (pit == procs.end()) {
            const std::string d = key.first.empty() ? "NPU" : "NPU:" + key.first;
            pit = procs.emplace(key.first, w.addProcess(d, d + " modules (Ascend)", 9)).first;
            ++report.processes;
        }
        std::stable_sort(points.begin(), points.end());
        const int64_t track =
            w.addTrack("counter", pit->second, 0, key.second + " Reserved (bytes)");
        for (const auto& [t, v] : points) {
            w.addCounter(track, t, v);
            ++report.counterSamples;
            report.seeTime(t, t);
        }
    }
    if (auto st = w.flush(); !st && w.error().empty()) report.error = st.error();
    report.extraJson = "{\"table\":\"npu_module_mem\"}";
    report.status =
        !w.error().empty() || report.counterSamples == 0
            ? store::SourceStatus::Failed
            : (report.skipped ? store::SourceStatus::Partial : store::SourceStatus::Complete);
    if (report.counterSamples == 0 && report.error.empty()) report.error = "no row could be read";
    recordSource(store, report);
    return report;
}

// ---- communication.json and communication_matrix.json (and msprof-analyze's cluster_*)

double num(const rapidjson::Value& o, const char* key) {
    auto it = o.FindMember(key);
    if (it == o.MemberEnd()) return 0;
    if (it->value.IsNumber()) return it->value.GetDouble();
    if (it->value.IsString()) return csv::number(it->value.GetString()).value_or(0);
    return 0;
}

bool isNumberKey(std::string_view k) {
    return !k.empty() &&
           std::all_of(k.begin(), k.end(), [](char c) { return c >= '0' && c <= '9'; });
}

struct Path {
    std::string step, kind, op, group, rankSet, rank;
};

/// Where a key puts us: a step ("step12"), p2p / collective, a rank set "(0, 1, 2, 3)",
/// a rank number, else an operator ("hcom_allReduce__123_0_1@group").
void classifyKey(const std::string& key, Path& p) {
    if (key.rfind("step", 0) == 0)
        p.step = key;
    else if (key == "p2p" || key == "collective")
        p.kind = key;
    else if (!key.empty() && key.front() == '(')
        p.rankSet = key;
    else if (isNumberKey(key))
        p.rank = key;
    else {
        p.op = key;
        const auto at = key.rfind('@');
        if (at != std::string::npos) {
            p.op = key.substr(0, at);
            p.group = key.substr(at + 1);
        }
    }
}

void writePath(Writer& w, const Path& p) {
    json::kv(w, "step", p.step);
    json::kv(w, "kind", p.kind);
    json::kv(w, "op", p.op);
    json::kv(w, "group", p.group.empty() ? p.rankSet : p.group);
    json::kv(w, "rank", p.rank.empty() ? int64_t{-1} : static_cast<int64_t>(std::stoll(p.rank)));
}

void walkCommunication(const rapidjson::Value& v, Path p, Writer& w, ImportReport& report) {
    if (!v.IsObject()) return;
    auto time = v.FindMember("Communication Time Info");
    if (time != v.MemberEnd() && time->value.IsObject()) {
        if (p.op == "Total Op Info") return;  // the file's own sums: computed again from the ops
        const auto& t = time->value;
        w.StartObject();
        writePath(w, p);
        json::kv(w, "start_us", num(t, "Start Timestamp(us)"));
        json::kv(w, "elapse_ms", num(t, "Elapse Time(ms)"));
        json::kv(w, "transit_ms", num(t, "Transit Time(ms)"));
        json::kv(w, "wait_ms", num(t, "Wait Time(ms)"));
        json::kv(w, "sync_ms", num(t, "Synchronization Time(ms)"));
        json::kv(w, "idle_ms", num(t, "Idle Time(ms)"));
        w.Key("links");
        w.StartArray();
        auto bw = v.FindMember("Communication Bandwidth Info");
        if (bw != v.MemberEnd() && bw->value.IsObject()) {
            for (const auto& link : bw->value.GetObject()) {
                if (!link.value.IsObject()) continue;
                w.StartObject();
                json::kv(w, "type",
                         std::string_view(link.name.GetString(), link.name.GetStringLength()));
                json::kv(w, "size_mb", num(link.value, "Transit Size(MB)"));
                json::kv(w, "time_ms", num(link.value, "Transit Time(ms)"));
                json::kv(w, "bandwidth_gbps", num(link.value, "Bandwidth(GB/s)"));
                json::kv(w, "large_packet_ratio", num(link.value, "Large Packet Ratio"));
                w.Key("sizes");
                w.StartArray();
                auto sd = link.value.FindMember("Size Distribution");
                if (sd != link.value.MemberEnd() && sd->value.IsObject())
                    for (const auto& s : sd->value.GetObject()) {
                        w.StartArray();
                        json::finiteOrNull(w, csv::number(s.name.GetString()).value_or(0));
                        double count = 0, ms = 0;
                        if (s.value.IsArray() && s.value.Size() >= 2) {
                            if (s.value[0].IsNumber()) count = s.value[0].GetDouble();
                            if (s.value[1].IsNumber()) ms = s.value[1].GetDouble();
                        }
                        json::finiteOrNull(w, count);
                        json::finiteOrNull(w, ms);
                        w.EndArray();
                    }
                w.EndArray();
                w.EndObject();
            }
        }
        w.EndArray();
        w.EndObject();
        ++report.events;
        return;
    }
    for (const auto& m : v.GetObject()) {
        Path q = p;
        classifyKey(std::string(m.name.GetString(), m.name.GetStringLength()), q);
        walkCommunication(m.value, q, w, report);
    }
}

void walkMatrix(const rapidjson::Value& v, Path p, const std::string& linkKey, Writer& w,
                ImportReport& report) {
    if (!v.IsObject()) return;
    if (v.HasMember("Transport Type")) {
        if (p.op == "Total Op Info") return;
        const auto dash = linkKey.find('-');
        w.StartObject();
        writePath(w, p);
        json::kv(w, "src", dash == std::string::npos ? linkKey : linkKey.substr(0, dash));
        json::kv(w, "dst", dash == std::string::npos ? std::string() : linkKey.substr(dash + 1));
        auto tt = v.FindMember("Transport Type");
        json::kv(w, "transport",
                 tt->value.IsString()
                     ? std::string_view(tt->value.GetString(), tt->value.GetStringLength())
                     : std::string_view());
        json::kv(w, "size_mb", num(v, "Transit Size(MB)"));
        json::kv(w, "time_ms", num(v, "Transit Time(ms)"));
        json::kv(w, "bandwidth_gbps", num(v, "Bandwidth(GB/s)"));
        w.EndObject();
        ++report.events;
        return;
    }
    for (const auto& m : v.GetObject()) {
        const std::string key(m.name.GetString(), m.name.GetStringLength());
        Path q = p;
        // "src-dst" keys of the links: both sides numbers (or "local").
        const auto dash = key.find('-');
        const bool link = dash != std::string::npos && dash > 0 && m.value.IsObject() &&
                          m.value.HasMember("Transport Type");
        if (!link) classifyKey(key, q);
        walkMatrix(m.value, q, link ? key : linkKey, w, report);
    }
}

ImportReport importCommunication(const std::string& path, AscendFile kind, store::TraceStore& store,
                                 JobControl& control, ImportReport report) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        report.error = "cannot open " + path;
        return report;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    control.setTotal(1);
    rapidjson::Document doc;
    if (!ts::json::parse(doc, text) || !doc.IsObject()) {
        report.error = "not a JSON object (communication JSON is an object of steps)";
        return report;
    }
    const bool matrix =
        kind == AscendFile::CommunicationMatrix || kind == AscendFile::ClusterCommunicationMatrix;
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.StartObject();
    json::kv(w, "table", std::string_view(ascendFileKey(kind)));
    w.Key(matrix ? "links" : "ops");
    w.StartArray();
    if (matrix)
        walkMatrix(doc, Path{}, std::string(), w, report);
    else
        walkCommunication(doc, Path{}, w, report);
    w.EndArray();
    w.EndObject();
    control.setDone(1);
    auto src = store.beginSource(path, "ascend_profiler");
    if (!src) {
        report.error = src.error();
        return report;
    }
    report.sourceId = src.value();
    report.extraJson = std::string(buf.GetString(), buf.GetSize());
    if (report.events == 0) {
        report.status = store::SourceStatus::Failed;
        report.error = matrix ? "no link with a \"Transport Type\""
                              : "no operator with \"Communication Time Info\"";
    } else {
        report.status = store::SourceStatus::Complete;
    }
    recordSource(store, report);
    return report;
}

}  // namespace

int sniff(const std::string& path, std::string_view head) {
    const AscendFile k = kindOf(path, head);
    if (k == AscendFile::Unknown) return 0;
    // By name or header: above the Chrome importer (communication.json is JSON, not a trace).
    return 92;
}

ImportReport importAscend(const std::string& path, store::TraceStore& store, JobControl& control) {
    ImportReport report;
    report.path = path;
    report.kind = "ascend_profiler";
    const AscendFile k = kindOf(path, readHead(path));
    switch (k) {
        case AscendFile::KernelDetails:
            return importKernels(path, store, control, std::move(report));
        case AscendFile::NpuModuleMem:
            return importModuleMemory(path, store, control, std::move(report));
        case AscendFile::Communication:
        case AscendFile::CommunicationMatrix:
        case AscendFile::ClusterCommunication:
        case AscendFile::ClusterCommunicationMatrix:
            return importCommunication(path, k, store, control, std::move(report));
        case AscendFile::OpStatistic:
        case AscendFile::StepTraceTime:
        case AscendFile::ClusterStepTraceTime:
        case AscendFile::MsAicoreDetail:
        case AscendFile::MsAicoreType:
        case AscendFile::MsFrameworkRaw:
        case AscendFile::MsMinddataPipeline:
        case AscendFile::MsFlops:
        case AscendFile::MsStepTraceRaw:
            return importTable(path, k, store, control, std::move(report));
        default:
            report.error = "not an Ascend profiler table this importer reads";
            return report;
    }
}

}  // namespace ascend

Importer ascendProfilerImporter() {
    Importer imp;
    imp.name = "ascend_profiler";
    imp.description =
        "Ascend / MindSpore profiler tables (kernel_details.csv, op_statistic.csv, "
        "step_trace_time.csv, communication*.json, npu_module_mem.csv, msprof-analyze cluster_*, "
        "MindSpore 1.x *_raw_*.csv)";
    imp.sniff = [](const std::string& path, std::string_view head) {
        return ascend::sniff(path, head);
    };
    imp.run = [](const std::string& path, store::TraceStore& store, JobControl& control,
                 const ImportOptions&) { return ascend::importAscend(path, store, control); };
    return imp;
}

}  // namespace ts::importers
