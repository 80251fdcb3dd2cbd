#include "importers/ascend/ascend_files.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "importers/common/csv_table.h"

namespace ts::importers::ascend {
namespace fs = std::filesystem;

namespace {

bool starts(std::string_view s, std::string_view p) {
    return s.size() >= p.size() && s.substr(0, p.size()) == p;
}
bool ends(std::string_view s, std::string_view p) {
    return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

}  // namespace

AscendFile ascendFileKind(std::string_view n) {
    if (auto slash = n.find_last_of('/'); slash != std::string_view::npos) n = n.substr(slash + 1);
    if (n == "trace_view.json") return AscendFile::TraceView;
    if (n == "kernel_details.csv") return AscendFile::KernelDetails;
    if (n == "op_statistic.csv") return AscendFile::OpStatistic;
    if (n == "step_trace_time.csv") return AscendFile::StepTraceTime;
    if (n == "communication.json") return AscendFile::Communication;
    if (n == "communication_matrix.json") return AscendFile::CommunicationMatrix;
    if (n == "operator_memory.csv" || (starts(n, "operator_memory_") && ends(n, ".csv")))
        return AscendFile::OperatorMemory;
    if (n == "memory_record.csv" || (starts(n, "memory_record_") && ends(n, ".csv")))
        return AscendFile::MemoryRecord;
    if (n == "npu_module_mem.csv") return AscendFile::NpuModuleMem;
    if (ends(n, ".db") && (starts(n, "ascend_pytorch_profiler") ||
                           starts(n, "ascend_mindspore_profiler") || starts(n, "msprof_")))
        return AscendFile::ProfilerDb;
    if (n == "cluster_step_trace_time.csv") return AscendFile::ClusterStepTraceTime;
    if (n == "cluster_communication.json") return AscendFile::ClusterCommunication;
    if (n == "cluster_communication_matrix.json") return AscendFile::ClusterCommunicationMatrix;
    if (starts(n, "aicore_intermediate_") && ends(n, "_detail.csv"))
        return AscendFile::MsAicoreDetail;
    if (starts(n, "aicore_intermediate_") && ends(n, "_type.csv")) return AscendFile::MsAicoreType;
    if (starts(n, "framework_raw_") && ends(n, ".csv")) return AscendFile::MsFrameworkRaw;
    if (starts(n, "minddata_pipeline_raw_") && ends(n, ".csv"))
        return AscendFile::MsMinddataPipeline;
    if (starts(n, "flops_") && ends(n, ".txt")) return AscendFile::MsFlops;
    if (starts(n, "step_trace_raw_") && ends(n, ".csv")) return AscendFile::MsStepTraceRaw;
    if (ends(n, ".json") &&
        (n.find("_timeline_display_") != std::string_view::npos || starts(n, "msprof_") ||
         starts(n, "hccl_") || starts(n, "step_trace_") || starts(n, "task_time_")))
        return AscendFile::MsTimeline;
    return AscendFile::Unknown;
}

const char* ascendFileKey(AscendFile f) {
    switch (f) {
        case AscendFile::Unknown:
            return "";
        case AscendFile::TraceView:
            return "trace_view";
        case AscendFile::KernelDetails:
            return "kernel_details";
        case AscendFile::OpStatistic:
            return "op_statistic";
        case AscendFile::StepTraceTime:
            return "step_trace_time";
        case AscendFile::Communication:
            return "communication";
        case AscendFile::CommunicationMatrix:
            return "communication_matrix";
        case AscendFile::OperatorMemory:
            return "operator_memory";
        case AscendFile::MemoryRecord:
            return "memory_record";
        case AscendFile::NpuModuleMem:
            return "npu_module_mem";
        case AscendFile::ProfilerDb:
            return "profiler_db";
        case AscendFile::ClusterStepTraceTime:
            return "cluster_step_trace_time";
        case AscendFile::ClusterCommunication:
            return "cluster_communication";
        case AscendFile::ClusterCommunicationMatrix:
            return "cluster_communication_matrix";
        case AscendFile::MsAicoreDetail:
            return "aicore_intermediate_detail";
        case AscendFile::MsAicoreType:
            return "aicore_intermediate_type";
        case AscendFile::MsFrameworkRaw:
            return "framework_raw";
        case AscendFile::MsMinddataPipeline:
            return "minddata_pipeline_raw";
        case AscendFile::MsFlops:
            return "flops";
        case AscendFile::MsStepTraceRaw:
            return "step_trace_raw";
        case AscendFile::MsTimeline:
            return "timeline";
    }
    return "";
}

AscendFile ascendCsvKindByHeader(std::string_view line) {
    if (starts(line, "\xEF\xBB\xBF")) line.remove_prefix(3);
    const auto h = splitCsvLine(line);
    auto has = [&](std::string_view name) {
        return std::any_of(h.begin(), h.end(), [&](const std::string& c) { return c == name; });
    };
    auto hasPrefix = [&](std::string_view p) { return csv::column(h, p) >= 0; };
    if (has("Name") && has("Accelerator Core") && hasPrefix("Start Time(") &&
        hasPrefix("Duration("))
        return AscendFile::KernelDetails;
    if (has("OP Type") && has("Core Type") && has("Count") && hasPrefix("Total Time("))
        return AscendFile::OpStatistic;
    if (has("Step") && has("Type") && has("Index") && has("Computing"))
        return AscendFile::ClusterStepTraceTime;
    if (has("Step") && has("Computing") && hasPrefix("Communication(Not Overlapped)"))
        return AscendFile::StepTraceTime;
    if (has("Device_id") && has("Component") && hasPrefix("Timestamp(") &&
        hasPrefix("Total Reserved("))
        return AscendFile::NpuModuleMem;
    if (has("full_kernel_time") && has("execution_time")) return AscendFile::MsAicoreDetail;
    if (has("kernel_type") && has("total_time") && has("execution_frequency"))
        return AscendFile::MsAicoreType;
    if (has("task_id") && has("stream_id") && has("full_kernel_name") && has("op_info"))
        return AscendFile::MsFrameworkRaw;
    if (has("op_id") && has("op_type") && has("num_workers") && has("output_queue_usage_rate"))
        return AscendFile::MsMinddataPipeline;
    if (has("full_kernel_name") && has("FLOPs")) return AscendFile::MsFlops;
    return AscendFile::Unknown;
}

std::vector<std::string> ascendProfilerFiles(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return {};
    std::vector<std::pair<int, std::string>> found;
    auto scan = [&](const fs::path& d) {
        for (const auto& e : fs::directory_iterator(d, ec)) {
            if (!e.is_regular_file(ec)) continue;
            const std::string name = e.path().filename().string();
            const AscendFile k = ascendFileKind(name);
            // The SQLite export repeats the text files (and needs its own reader).
            if (k == AscendFile::Unknown || k == AscendFile::ProfilerDb) continue;
            // Traces first (the tables' times sit on their axis), then kernels, then tables.
            int order = 2;
            if (k == AscendFile::TraceView || k == AscendFile::MsTimeline) order = 0;
            if (k == AscendFile::KernelDetails) order = 1;
            found.emplace_back(order, e.path().string());
        }
    };
    const fs::path p(dir);
    scan(p);
    // A torch_npu *_ascend_pt folder (or MindSpore's *_ascend_ms) holds ASCEND_PROFILER_OUTPUT.
    if (fs::is_directory(p / "ASCEND_PROFILER_OUTPUT", ec)) scan(p / "ASCEND_PROFILER_OUTPUT");
    if (found.empty()) return {};
    std::sort(found.begin(), found.end());
    std::vector<std::string> out;
    for (auto& [order, path] : found) out.push_back(std::move(path));
    return out;
}

bool isAscendProfilerFolder(const std::string& dir) {
    return !ascendProfilerFiles(dir).empty();
}

}  // namespace ts::importers::ascend
