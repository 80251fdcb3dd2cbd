#include "tests/fuzz/fuzz_bodies.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string_view>

#include "core/analysis/cluster/cluster_input.h"
#include "core/analysis/diff/name_map.h"
#include "core/analysis/gpu/ascend_tables.h"
#include "core/analysis/gpu/gpu_report.h"
#include "core/analysis/profile/memory_analysis.h"
#include "core/checkpoint_info/checkpoint_info.h"
#include "core/common/job_control.h"
#include "core/debug/dump_config.h"
#include "core/debug/dump_scan.h"
#include "core/debug/rdr/rdr_config.h"
#include "core/debug/rdr/rdr_reader.h"
#include "core/engine/train/trainer.h"
#include "core/hdf5/h5_file.h"
#include "core/hdf5/h5_read.h"
#include "core/hdf5/h5_text.h"
#include "core/log/log_line_parser.h"
#include "core/log/log_tokenizer.h"
#include "core/memory/snapshot_reader.h"
#include "core/memory/snapshot_report.h"
#include "core/run/hook_events.h"
#include "core/run/launch_spec.h"
#include "core/run/run_summary.h"
#include "core/store/trace_store.h"
#include "core/timeline/op_stats.h"
#include "core/timeline/slice_details.h"
#include "core/timeline/timeline_model.h"
#include "importers/chrome_trace/trace_json_tokenizer.h"
#include "importers/registry.h"
#include "importers/tfevents/tfevents_importer.h"

namespace fs = std::filesystem;

namespace ts::fuzz {

// A folder of this process for the files the readers need (they read paths).
const fs::path& scratch() {
    static const fs::path dir = [] {
        std::string tmpl = (fs::temp_directory_path() / "trainscope_fuzz_XXXXXX").string();
        const char* made = ::mkdtemp(tmpl.data());
        return fs::path(made ? made : tmpl.c_str());
    }();
    return dir;
}

fs::path writeInput(const std::string& name, const uint8_t* data, size_t size) {
    const fs::path p = scratch() / name;
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return p;
}

// ---- importers, through their registry entry, into one session of this process ----

static store::TraceStore& session() {
    static std::unique_ptr<store::TraceStore> s = [] {
        auto opened = store::TraceStore::open((scratch() / "fuzz.tscope").string(),
                                              store::TraceStore::Mode::Create);
        if (!opened) std::abort();
        return std::move(opened.value());
    }();
    return *s;
}

// Imports with the importer `name` and removes the source again, so no input sees another's
// rows (a clock sync of an earlier input would move this one; a summary file joins the run
// of its folder, so runs and what they hold go too).
void importWith(const char* name, const fs::path& file) {
    store::TraceStore& s = session();
    const int64_t strings = s.maxStringId();
    for (const importers::Importer& imp : importers::importers()) {
        if (imp.name != name) continue;
        JobControl control;
        const importers::ImportReport r = imp.run(file.string(), s, control, {});
        if (r.sourceId) (void)s.deleteSource(r.sourceId);
        (void)s.db().exec(
            "DELETE FROM scalars; DELETE FROM summary_values; DELETE FROM run_params; "
            "DELETE FROM runs;");
        (void)s.discardUnusedStringsAbove(strings);
    }
}

namespace {

// ---- Chrome JSON: the tokenizer alone ----

class BytesSource : public importers::chrome::ByteSource {
public:
    BytesSource(const uint8_t* d, size_t n) : m_d(d), m_n(n) {}
    size_t read(char* buf, size_t n) override {
        n = std::min(n, m_n - m_pos);
        std::copy(m_d + m_pos, m_d + m_pos + n, buf);
        m_pos += n;
        return n;
    }
    uint64_t progress() const override { return m_pos; }
    std::string error() const override { return {}; }

private:
    const uint8_t* m_d;
    size_t m_n, m_pos = 0;
};

class CountingSink : public importers::chrome::EventSink {
public:
    importers::chrome::ChromeEvent& slot() override { return m_event; }
    void commit() override {
        // touch what the builder reads, so a wrong length or pointer shows
        m_bytes += m_event.ph.size() + m_event.name.size() + m_event.args.size() +
                   m_event.stack.size() + m_event.argNumberCount + m_event.argStringCount;
    }

private:
    importers::chrome::ChromeEvent m_event;
    size_t m_bytes = 0;
};

// The chunk size (1..128 bytes) follows from the input's length, so windows end everywhere
// while every byte stays the document's.
void chromeTokenizer(const uint8_t* data, size_t size) {
    BytesSource source(data, size);
    JobControl control;
    CountingSink sink;
    const size_t chunk = 1 + (size * 2654435761u >> 8) % 128;
    (void)importers::chrome::tokenizeChromeJson(source, control, sink, chunk);
}

void chromeImport(const uint8_t* data, size_t size) {
    importWith("chrome_json", writeInput("in.json", data, size));
}

void nsysImport(const uint8_t* data, size_t size) {
    importWith("nsys_sqlite", writeInput("in.sqlite", data, size));
}

void tfevents(const uint8_t* data, size_t size) {
    const fs::path p = writeInput("events.out.tfevents.0.fuzz", data, size);
    (void)importers::tfevents::readEventFile(p.string());
    importWith("tfevents", p);
}

// ---- HDF5: the inspector's reads and the dump scans ----

void hdf5Reads(const uint8_t* data, size_t size) {
    auto file = h5::File::open(writeInput("in.h5", data, size).string());
    if (!file) return;
    const h5::File& f = file.value();
    (void)f.children("/");
    auto all = f.allDatasets();
    if (!all) return;
    bool small = true;  // a damaged header may claim 2^60 elements: no full scans then
    int seen = 0;
    for (const std::string& path : all.value()) {
        if (++seen > 32) break;
        (void)f.attributes(path);
        (void)f.objectAddress(path);
        auto info = f.datasetInfo(path);
        if (!info) continue;
        const h5::DatasetInfo& d = info.value();
        small = small && d.count <= (uint64_t{1} << 16);
        std::vector<uint64_t> start(d.shape.size(), 0), count;
        for (uint64_t n : d.shape) count.push_back(std::min<uint64_t>(n, 2));
        (void)h5::readHyperslabText(f, path, start, count);
        if (d.numeric()) (void)h5::readHyperslab(f, path, start, count);
    }
    if (!small || seen > 32) return;
    (void)debug::statsAll(f, "");
    (void)debug::scanOverflow(f);
    debug::OrderSource order;
    (void)debug::orderedTensors(f, &order);
}

// ---- logs: line by line through the tokenizer and the header parser ----

void logLines(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    size_t records = 0;
    log::LogTokenizer tokenizer([&](log::LogRecord&&) { ++records; });
    for (size_t at = 0; at <= text.size();) {
        size_t end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(at, end - at);
        (void)log::parseHeaderLine(line, 2024);
        (void)log::glogFileHeaderYear(line);
        (void)log::guessLevel(line);
        tokenizer.addLine(line);
        at = end + 1;
    }
    tokenizer.finish();
}

// ---- checkpoints (the protobuf wire reader) ----

void checkpoint(const uint8_t* data, size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    (void)checkpoint_info::parseCheckpoint(in, size);
}

// ---- RDR export folders: the input is the folder's files, split at "\n--8<--\n" ----

void rdrFolder(const uint8_t* data, size_t size) {
    static const char* const kFiles[] = {"rdr_index.json", "exec_order.txt", "memory_alloc.txt",
                                         "log_tail.txt",   "run_state.txt",  "graph_0.ir"};
    const fs::path dir = scratch() / "rdr";
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir, ec);
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view kCut = "\n--8<--\n";
    size_t at = 0;
    for (const char* name : kFiles) {
        if (at > text.size()) break;
        size_t end = text.find(kCut, at);
        if (end == std::string_view::npos) end = text.size();
        std::ofstream(dir / name, std::ios::binary) << text.substr(at, end - at);
        at = end + kCut.size();
    }
    auto e = rdr::readRdrExport(dir.string());
    if (!e) return;
    (void)e.value().failingRow();
    (void)e.value().failingPreviousRow();
    (void)rdr::rdrMemoryCurve(e.value().allocations, 64);
}

// ---- the session opener, and the readers of what a session holds ----

void sessionOpen(const uint8_t* data, size_t size) {
    const fs::path p = scratch() / "open.tscope";
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p.string() + suffix, ec);
    writeInput("open.tscope", data, size);
    auto s = store::TraceStore::open(p.string(), store::TraceStore::Mode::ReadOnly);
    if (!s) return;
    store::TraceStore& st = *s.value();
    (void)st.sources();
    (void)st.tableCounts();
    (void)st.timeRange();
    auto& db = st.db();
    for (const char* sql :
         {"SELECT count(*), sum(dur), max(depth), sum(flags) FROM slices",
          "SELECT sum(length(json)) FROM args", "SELECT count(*) FROM slices WHERE id = 3",
          "SELECT count(*) FROM slices WHERE track_id = 1 AND ts > 5 AND ts < 1000000",
          "SELECT sum(s.dur) FROM slices s JOIN args a ON a.id = s.arg_set_id"}) {
        store::Statement q = db.prepare(sql);
        while (q.step()) {
        }
    }
    timeline::OpStatsOptions options;
    (void)timeline::computeOpStats(st, options);
    (void)timeline::loadTimelineModel(p.string(), nullptr, 1);
}

// ---- PyTorch memory snapshots: the pickle reader, the analyses, the importer ----

void torchMemory(const uint8_t* data, size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    auto s = memory::readSnapshotBytes(bytes);
    if (s.ok()) {
        const memory::SnapshotReport r = memory::analyzeSnapshot(s.value(), 5);
        for (const auto& d : r.devices) (void)memory::stackedLayout(d.timeline, 50);
    }
    importWith("torch_memory_snapshot", writeInput("in.pickle", data, size));
}

// ---- JSON documents: every reader that parses JSON, handed the input where it finds it ----

// The input as each document TrainScope parses whole (a child's event line, a launch spec, a
// run's config and summary, the dump and RDR configs, an op map), then placed in a Chrome
// trace where `import`, `analyze`, `diff --by shape` and `cluster` parse it (a sample's
// stack, "Input Dims", a [memory] event's args, distributedInfo), in an RDR index, and in a
// run row of the session. A document nested 200,000 deep once overflowed the stack in each.
void jsonReaders(const uint8_t* data, size_t size) {
    const std::string doc(reinterpret_cast<const char*>(data), size);
    (void)run::parseHookEvent(doc);
    (void)run::parseHookEvent(R"({"type":"step","step":1,"extra":)" + doc + "}");
    (void)run::launchSpecFromJson(doc);
    run::RunSummary summary;
    (void)run::parseRunSummary(doc, summary);
    (void)engine::TrainConfig::fromJson(doc);
    (void)debug::parseDumpConfig(doc);
    (void)rdr::parseRdrConfig(doc, {});
    (void)analysis::NameMap::parse(doc);
    (void)timeline::prettyJson(doc);
    (void)timeline::inputShapesOf(R"({"Input Dims":)" + doc + "}");

    const std::string trace =
        R"({"distributedInfo":)" + doc +
        R"(,"traceEvents":[)"
        R"({"ph":"X","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":5,"args":{"Input Dims":)" +
        doc + R"(}},{"ph":"P","name":"s","pid":1,"tid":1,"ts":2,"stack":)" + doc +
        R"(},{"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":3,)"
        R"("args":{"Device Id":0,"Bytes":8,"Total Allocated":8,"deep":)" +
        doc + "}}]}";
    const fs::path file =
        writeInput("nested.json", reinterpret_cast<const uint8_t*>(trace.data()), trace.size());
    (void)analysis::readDistributedInfo(file.string());
    store::TraceStore& s = session();
    const int64_t strings = s.maxStringId();
    JobControl control;
    const importers::ImportReport r = importers::importFile(file.string(), s, control);
    if (r.sourceId) {
        timeline::OpStatsOptions options;
        options.groupByInputShape = true;
        (void)timeline::computeOpStats(s, options);
        (void)analysis::analyzeMemory(s, r.sourceId);
        store::Statement ids = s.db().prepare("SELECT id FROM slices");
        while (ids.step()) (void)timeline::readSliceDetails(s, ids.int64(0));
    }
    if (auto run = s.beginRun("fuzz", doc)) {
        (void)s.finishRun(run.value(), store::RunStatus::Completed, "", doc);
        (void)run::readRunSummaries(s);
        (void)analysis::ranksOfSession(s, s.path());
        (void)s.db().exec("DELETE FROM runs WHERE id = " + std::to_string(run.value()));
    }
    if (r.sourceId) (void)s.deleteSource(r.sourceId);
    (void)s.discardUnusedStringsAbove(strings);

    const fs::path dir = scratch() / "rdr_json";
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::ofstream(dir / "rdr_index.json", std::ios::binary | std::ios::trunc) << doc;
    (void)rdr::readRdrExport(dir.string());
}

// ---- the Ascend profiler tables and the device analyses over what an input makes ----

/// Imports `file` with the importer `name`, runs `analyse` on the source, removes it.
template <class F>
void importAnalyse(const char* name, const fs::path& file, F analyse) {
    store::TraceStore& s = session();
    const int64_t strings = s.maxStringId();
    for (const importers::Importer& imp : importers::importers()) {
        if (imp.name != name) continue;
        JobControl control;
        const importers::ImportReport r = imp.run(file.string(), s, control, {});
        if (r.sourceId) {
            analyse(s, r.sourceId);
            (void)s.deleteSource(r.sourceId);
        }
        (void)s.discardUnusedStringsAbove(strings);
    }
}

void deviceAnalyses(store::TraceStore& s, int64_t sourceId) {
    auto g = analysis::gpu::loadGpuTrace(s, sourceId);
    if (g) (void)analysis::gpu::analyzeGpu(g.value());
    auto t = analysis::gpu::loadAscendTables(s);
    if (t) {
        (void)analysis::gpu::ascendSteps(t.value(), false);
        (void)analysis::gpu::ascendSteps(t.value(), true);
        (void)analysis::gpu::summarizeAscendComm(t.value(), false);
        (void)analysis::gpu::summarizeAscendComm(t.value(), true);
        (void)analysis::gpu::ascendMatrix(t.value(), true);
    }
}

void ascendProfiler(const uint8_t* data, size_t size) {
    for (const char* name :
         {"kernel_details.csv", "communication.json", "communication_matrix.json",
          "cluster_communication.json", "step_trace_time.csv", "cluster_step_trace_time.csv",
          "npu_module_mem.csv", "op_statistic.csv", "framework_raw_0.csv"})
        importAnalyse("ascend_profiler", writeInput(name, data, size), deviceAnalyses);
}

void gpuAnalysis(const uint8_t* data, size_t size) {
    importAnalyse("chrome_json", writeInput("in.json", data, size), deviceAnalyses);
}

}  // namespace

const std::vector<Target>& targets() {
    static const std::vector<Target> list = {{"chrome_tokenizer", &chromeTokenizer},
                                             {"chrome_import", &chromeImport},
                                             {"nsys", &nsysImport},
                                             {"hdf5", &hdf5Reads},
                                             {"log_lines", &logLines},
                                             {"tfevents", &tfevents},
                                             {"checkpoint", &checkpoint},
                                             {"rdr", &rdrFolder},
                                             {"session_open", &sessionOpen},
                                             {"torch_memory", &torchMemory},
                                             {"json_readers", &jsonReaders},
                                             {"ascend_profiler", &ascendProfiler},
                                             {"gpu_analysis", &gpuAnalysis},
                                             {"mindspore_summary", &mindsporeSummary},
                                             {"mindspore_lineage", &mindsporeLineage},
                                             {"npy", &npyFile},
                                             {"msdump", &msdumpFolder},
                                             {"msrdr", &msRdrFolder}};
    return list;
}

const Target* findTarget(const std::string& name) {
    for (const Target& t : targets())
        if (name == t.name) return &t;
    return nullptr;
}

}  // namespace ts::fuzz
