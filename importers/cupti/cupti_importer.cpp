// The CUPTI activity importer ("cupti_activity"): reads the file TrainScope's CUPTI collector
// (core/profiler/cuda, `trainscope-cli record`) writes for each CUDA process and turns it into
// rows the way the Nsight Systems importer does (core/profiler/gpu/activity_import.h): API
// calls per thread, kernels / copies / sets / synchronisations per device stream with their
// launch flows, NVTX ranges, CUPTI's overhead. GPU times go on the host's Unix clock (the
// file's clock pairs), so the traces of several processes line up. Records CUPTI dropped
// make the import "partial" with an import problem saying how many.
#include "core/common/json.h"
#include "core/profiler/gpu/activity_import.h"
#include "core/store/store_writer.h"
#include "importers/common/gpu_trace_counts.h"
#include "importers/registry.h"

namespace ts::importers {
namespace {

using namespace profiler::gpu;

int sniffCupti(const std::string&, std::string_view head) {
    return isActivityFile(head) ? 95 : 0;
}

std::string extraJson(const ActivityTrace& t, const ActivityImportStats& s) {
    json::ArgsJson extra;
    if (t.process) extra.num("pid", t.process->pid).num("cupti_version", t.process->cuptiVersion);
    extra.num("api_calls", s.apis)
        .num("kernels", s.kernels)
        .num("memcpys", s.memcpys)
        .num("memsets", s.memsets)
        .num("syncs", s.syncs)
        .num("nvtx_markers", s.markers)
        .num("cupti_overhead_ns", s.overheadNs)
        .num("dropped_records", s.dropped)
        .num("devices", static_cast<int64_t>(t.devices.size()));
    if (!s.clockNote.empty()) extra.str("clock", s.clockNote);
    return extra.done();
}

ImportReport runCupti(const std::string& path, store::TraceStore& store, JobControl& control,
                      const ImportOptions&) {
    ImportReport report;
    report.path = path;
    report.kind = "cupti_activity";
    auto trace = readActivityFile(path);
    if (!trace) {
        report.error = trace.error();
        return report;
    }
    const ActivityTrace& t = trace.value();
    report.events = static_cast<int64_t>(t.apis.size() + t.gpuRecords() + t.markers.size() +
                                         t.overheads.size());
    control.setTotal(static_cast<uint64_t>(report.events));
    auto source = store.beginSource(path, "cupti_activity");
    if (!source) {
        report.error = source.error();
        return report;
    }
    report.sourceId = source.value();
    std::string writeError, extra;
    {
        store::StoreWriter writer(store, report.sourceId);
        GpuTraceBuilder builder(writer);
        GpuRows rows(builder);
        ActivityImportOptions options;  // Unix time, as the Nsight importer's session start
        const ActivityImportStats stats = writeActivityRows(
            t, rows, options, [&](const std::string& key, const std::string& msg, int64_t n) {
                report.skipped += n;
                report.skippedReasons[key] += n;
                writer.logProblem(key, -1, {}, msg);
            });
        builder.finish();
        addTraceCounts(report, builder.counts());
        writeError = writer.error();
        extra = extraJson(t, stats);
        if (stats.dropped > 0 || t.truncated) report.status = store::SourceStatus::Partial;
    }
    control.addDone(static_cast<uint64_t>(report.events));
    report.extraJson = extra;
    if (!writeError.empty()) {
        report.status = store::SourceStatus::Failed;
        report.error = "store write failed: " + writeError;
    } else if (report.status != store::SourceStatus::Partial) {
        report.status = store::SourceStatus::Complete;
    }
    recordSource(store, report);
    (void)store.buildIndexes();
    return report;
}

}  // namespace

Importer cuptiActivityImporter() {
    return Importer{"cupti_activity",
                    "TrainScope CUDA activity file (trainscope-cli record, CUPTI collector)",
                    sniffCupti, runCupti};
}

}  // namespace ts::importers
