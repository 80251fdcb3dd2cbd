#pragma once
// Ascend's and MindSpore's profiler folders: which file is which, and which files of a
// folder the studio imports. Folders recognised:
//  - ASCEND_PROFILER_OUTPUT/ of torch_npu and MindSpore 2.x (trace_view.json,
//    kernel_details.csv, op_statistic.csv, step_trace_time.csv, communication.json,
//    communication_matrix.json, operator_memory.csv, memory_record.csv, npu_module_mem.csv,
//    ascend_pytorch_profiler_*.db / ascend_mindspore_profiler_*.db), or a folder holding one
//    (torch_npu's <host>_<pid>_<time>_ascend_pt/, MindSpore's *_ascend_ms/);
//  - msprof-analyze's cluster_analysis_output/ (cluster_step_trace_time.csv,
//    cluster_communication.json, cluster_communication_matrix.json);
//  - MindSpore 1.x's profiler folder (step_trace_raw_*, aicore_intermediate_*,
//    minddata_pipeline_raw_*, framework_raw_*, flops_*, hccl_* and the PROF_* timelines:
//    *_timeline_display_*.json, msprof_*.json, step_trace_*.json, task_time_*.json).
// isAscendProfilerFolder / ascendProfilerFiles are the recognisers the folder walk
// (importers/folder: the CLI's and the studio's import of a folder) asks. No Qt.
#include <string>
#include <string_view>
#include <vector>

namespace ts::importers::ascend {

enum class AscendFile {
    Unknown,
    TraceView,            // trace_view.json (Chrome JSON: the chrome importer reads it)
    KernelDetails,        // kernel_details.csv
    OpStatistic,          // op_statistic.csv
    StepTraceTime,        // step_trace_time.csv
    Communication,        // communication.json
    CommunicationMatrix,  // communication_matrix.json
    OperatorMemory,       // operator_memory.csv (ascend_memory importer)
    MemoryRecord,         // memory_record.csv (ascend_memory importer)
    NpuModuleMem,         // npu_module_mem.csv
    ProfilerDb,  // ascend_pytorch_profiler_*.db, ascend_mindspore_profiler_*.db, msprof_*.db
    ClusterStepTraceTime,        // cluster_step_trace_time.csv
    ClusterCommunication,        // cluster_communication.json
    ClusterCommunicationMatrix,  // cluster_communication_matrix.json
    MsAicoreDetail,              // aicore_intermediate_<id>_detail.csv
    MsAicoreType,                // aicore_intermediate_<id>_type.csv
    MsFrameworkRaw,              // framework_raw_<id>.csv
    MsMinddataPipeline,          // minddata_pipeline_raw_<id>.csv
    MsFlops,                     // flops_<id>.txt
    MsStepTraceRaw,              // step_trace_raw_<id>_detail_time.csv
    MsTimeline  // *_timeline_display_*.json, msprof_*.json, hccl_*.json, ... (Chrome JSON)
};

/// The kind of a file by its name ("" path parts ignored).
AscendFile ascendFileKind(std::string_view fileName);
/// Stable key: "kernel_details", "op_statistic", ...; "" for Unknown.
const char* ascendFileKey(AscendFile f);
/// The kind of a CSV by its header line (renamed files), Unknown when it is none of ours.
AscendFile ascendCsvKindByHeader(std::string_view headerLine);

/// True when `dir` is (or holds, one level down) one of the folders above.
bool isAscendProfilerFolder(const std::string& dir);
/// The files of such a folder the studio imports, in import order (traces first, then
/// tables); empty when `dir` is not one.
std::vector<std::string> ascendProfilerFiles(const std::string& dir);

}  // namespace ts::importers::ascend
