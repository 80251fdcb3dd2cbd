#pragma once
// The readers of an Nsight Systems export's tables, one function per kind of table. Each
// reads rows in table order into the shared GPU row rules (core/profiler/gpu: GpuRows over
// a GpuTraceBuilder, which the CUPTI collector's files use too), counts them, skips and logs
// bad rows, and returns false only when cancelled.
#include <cstdint>
#include <string>
#include <unordered_map>

#include "core/common/job_control.h"
#include "core/common/json.h"
#include "core/profiler/gpu/gpu_rows.h"
#include "core/profiler/gpu/gpu_trace_builder.h"
#include "core/store/sqlite_db.h"
#include "core/store/store_writer.h"
#include "importers/import_report.h"
#include "importers/nsys/nsys_schema.h"

namespace ts::importers::nsys {

/// What the readers share while one file is imported.
class NsysReadContext {
public:
    NsysReadContext(store::SqliteDb& db, const NsysSchema& schema, store::StoreWriter& writer,
                    profiler::gpu::GpuTraceBuilder& builder, ImportReport& report,
                    JobControl& control)
        : db(db),
          schema(schema),
          w(writer),
          b(builder),
          rows(builder),
          report(report),
          control(control) {}

    store::SqliteDb& db;
    const NsysSchema& schema;
    store::StoreWriter& w;
    profiler::gpu::GpuTraceBuilder& b;
    profiler::gpu::GpuRows rows;
    ImportReport& report;
    JobControl& control;
    int64_t timeBase = 0;      // added to every timestamp (session start, Unix ns)
    int64_t nvtxMetadata = 0;  // NVTX rows that name things (domains, categories, threads)

    /// Loads StringIds (call first).
    void loadStrings();
    /// Text of an nsys StringId ("" when unknown).
    const std::string& text(int64_t nsysStringId) const;
    /// Store string id of an nsys StringId (interned on first use).
    int64_t str(int64_t nsysStringId);
    /// One row read: progress, and false when the import was cancelled.
    bool tick();
    /// Skips and logs a bad row.
    void skip(const std::string& key, const std::string& message);

private:
    std::unordered_map<int64_t, std::string> m_strings;
    std::unordered_map<int64_t, int64_t> m_interned;
    uint64_t m_rows = 0;
};

/// PROCESSES, ThreadNames, TARGET_INFO_GPU, default streams, NVTX thread names, session
/// start time: names and facts the builder needs before rows arrive.
void readNames(NsysReadContext& c);
/// A table of CPU calls (start, end, globalTid, nameId[, correlationId]): CUDA runtime and
/// driver API, OS runtime, cuBLAS, cuDNN. Calls with a correlationId become launch points.
bool readApiTable(NsysReadContext& c, const std::string& table, const std::string& label,
                  int order);
/// NVTX_EVENTS: push/pop ranges nest on the thread's NVTX track, start/end ranges go to a
/// process-level async track, marks become instants; domains become categories.
bool readNvtx(NsysReadContext& c);
/// CUPTI_ACTIVITY_KIND_KERNEL / _MEMCPY / _MEMSET: slices on their stream's track, with a
/// flow from the API call of the same correlationId.
bool readGpuTable(NsysReadContext& c, const std::string& table);

}  // namespace ts::importers::nsys

namespace ts::importers::nsys {

using json::ArgsJson;

}  // namespace ts::importers::nsys
