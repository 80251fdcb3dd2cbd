// The Nsight Systems importer ("nsys_sqlite"): reads the SQLite file that
// `nsys export --type sqlite` writes (schema 2.x with EXPORT_META_DATA and 3.x with
// META_DATA_EXPORT alike). CPU calls (CUDA runtime/driver API, OS runtime, cuBLAS, cuDNN)
// and NVTX ranges land on their threads, kernels / memcpy / memset on one track per CUDA
// stream under a process per GPU, and each GPU row gets a flow from the API call with the
// same correlationId. Timestamps are shifted to Unix time by the session start, so several
// reports (one per rank) line up. The export is opened read-only and never changed.
#include "core/store/store_writer.h"
#include "importers/common/gpu_trace_counts.h"
#include "importers/nsys/nsys_schema.h"
#include "importers/nsys/nsys_tables.h"
#include "importers/registry.h"

namespace ts::importers {
namespace {

using nsys::NsysSchema;

constexpr const char* kApiTables[][2] = {{"CUPTI_ACTIVITY_KIND_RUNTIME", "CUDA API"},
                                         {"CUBLAS_EVENTS", "cuBLAS"},
                                         {"CUDNN_EVENTS", "cuDNN"},
                                         {"OSRT_API", "OS runtime"}};
constexpr const char* kGpuTables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                      "CUPTI_ACTIVITY_KIND_MEMSET"};

// Any SQLite file gets a low score, so one that is not an nsys export (or is damaged) gets
// this importer's precise error instead of "unrecognised format".
int sniffNsys(const std::string& path, std::string_view head) {
    if (!head.starts_with(store::kSqliteHeader)) return 0;
    return nsys::looksLikeNsysExport(path, head) ? 90 : 5;
}

uint64_t rowsToRead(store::SqliteDb& db, const NsysSchema& s) {
    uint64_t total = 0;
    auto count = [&](const std::string& t) {
        if (!s.hasTable(t)) return;
        if (auto n = db.queryInt("SELECT count(*) FROM " + t); n)
            total += static_cast<uint64_t>(n.value());
    };
    for (const auto& t : kApiTables) count(t[0]);
    for (const char* t : kGpuTables) count(t);
    count("NVTX_EVENTS");
    return total;
}

bool readAll(nsys::NsysReadContext& c) {
    c.loadStrings();
    nsys::readNames(c);
    int order = 1;
    for (const auto& t : kApiTables)  // CUDA API first: GPU rows look their launches up
        if (!nsys::readApiTable(c, t[0], t[1], order++)) return false;
    if (!nsys::readNvtx(c)) return false;
    for (const char* t : kGpuTables)
        if (!nsys::readGpuTable(c, t)) return false;
    return true;
}

std::string extraJson(const NsysSchema& s, const nsys::NsysReadContext& c) {
    nsys::ArgsJson extra;
    extra.str("meta_table", s.metaTable());
    extra.str("schema_version", s.meta("EXPORT_SCHEMA_VERSION"));
    std::string product = s.meta("EXPORT_PRODUCT_VERSION");
    if (product.empty()) product = s.meta("NSIGHT_SYSTEMS_VERSION");
    extra.str("nsys_version", product);
    extra.num("time_base_ns", c.timeBase);
    extra.num("nvtx_metadata_events", c.nvtxMetadata);
    std::string missing;
    for (const auto& t : kApiTables) missing += s.hasTable(t[0]) ? "" : std::string(" ") + t[0];
    for (const char* t : kGpuTables) missing += s.hasTable(t) ? "" : std::string(" ") + t;
    if (!s.hasTable("NVTX_EVENTS")) missing += " NVTX_EVENTS";
    extra.str("tables_absent", missing.empty() ? missing : missing.substr(1));
    return extra.done();
}

ImportReport runNsys(const std::string& path, store::TraceStore& store, JobControl& control,
                     const ImportOptions&) {
    ImportReport report;
    report.path = path;
    report.kind = "nsys_sqlite";
    auto db = store::SqliteDb::open(path, store::SqliteDb::Mode::ReadOnly);
    if (!db) {
        report.error = db.error();
        return report;
    }
    auto schema = NsysSchema::read(db.value());
    if (!schema) {
        report.error = schema.error();
        return report;
    }
    control.setTotal(rowsToRead(db.value(), schema.value()));
    auto source = store.beginSource(path, "nsys_sqlite");
    if (!source) {
        report.error = source.error();
        return report;
    }
    report.sourceId = source.value();
    bool finished = false;
    std::string writeError, extra;
    {
        store::StoreWriter writer(store, report.sourceId);
        profiler::gpu::GpuTraceBuilder builder(writer);
        nsys::NsysReadContext ctx(db.value(), schema.value(), writer, builder, report, control);
        finished = readAll(ctx);
        if (finished) builder.finish();
        addTraceCounts(report, builder.counts());
        writeError = writer.error();
        extra = extraJson(schema.value(), ctx);
    }
    if (!finished || control.cancelled()) {
        (void)store.deleteSource(report.sourceId);
        report = ImportReport{};
        report.path = path;
        report.kind = "nsys_sqlite";
        report.status = store::SourceStatus::Cancelled;
        report.error = "cancelled";
        return report;
    }
    report.extraJson = extra;
    report.status =
        writeError.empty() ? store::SourceStatus::Complete : store::SourceStatus::Failed;
    if (!writeError.empty()) report.error = "store write failed: " + writeError;
    recordSource(store, report);
    (void)store.buildIndexes();
    return report;
}

}  // namespace

Importer nsysSqliteImporter() {
    return Importer{"nsys_sqlite", "Nsight Systems SQLite export (nsys export --type sqlite)",
                    sniffNsys, runNsys};
}

}  // namespace ts::importers
