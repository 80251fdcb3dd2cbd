#include "core/analysis/cluster/cluster_ops.h"

#include "core/common/text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

namespace ts::analysis {
namespace {

bool contains(std::string_view hay, std::string_view needle) {
    return hay.find(needle) != std::string_view::npos;
}

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

std::optional<int64_t> trailingNumber(std::string_view name, std::string_view prefix) {
    if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix)
        return std::nullopt;
    int64_t n = 0;
    const char* b = name.data() + prefix.size();
    const char* e = name.data() + name.size();
    auto [p, ec] = std::from_chars(b, e, n);
    if (ec != std::errc() || p != e) return std::nullopt;
    return n;
}

}  // namespace

const std::vector<CommPattern>& commPatterns() {
    // Lower case. Prefixes: PyTorch's backends name their work "<backend>:<collective>"
    // (nccl:all_reduce, gloo:all_reduce, mpi:..., ucc:...), c10d's ops are c10d::*, NCCL's
    // kernels ncclKernel_* / ncclDevKernel_*, torch 2's wrapper record_param_comms, HCCL's
    // host ops HcclAllReduce and MindSpore's hcom_* ops. Infixes: the collectives by name
    // wherever they appear (MindSpore "Default/AllReduce-op534_0", the engine's AllReduce).
    // Ascend HCCL tasks on the device: Notify_Wait / Notify_Record / Reduce_Inline /
    // REDUCE_ASYNC_V2.
    static const std::vector<CommPattern> patterns = {
        {"nccl", true},           {"gloo:", true},
        {"c10d::", true},         {"mpi:", true},
        {"ucc:", true},           {"hccl", true},
        {"hcom", true},           {"record_param_comms", true},
        {"notify_wait", true},    {"notify_record", true},
        {"reduce_inline", true},  {"reduce_async", true},
        {"allreduce", false},     {"all_reduce", false},
        {"allgather", false},     {"all_gather", false},
        {"reducescatter", false}, {"reduce_scatter", false},
        {"alltoall", false},      {"all_to_all", false}};
    return patterns;
}

bool isCommName(std::string_view name) {
    const std::string n = asciiLower(name);
    for (const CommPattern& p : commPatterns()) {
        if (p.prefix ? n.starts_with(p.text) : contains(n, p.text)) return true;
    }
    return false;
}

std::optional<int64_t> stepMarkerNumber(std::string_view name) {
    if (auto n = trailingNumber(name, "ProfilerStep#")) return n;
    return trailingNumber(name, "Iteration ");
}

int stepMarkerKind(std::string_view name) {
    if (trailingNumber(name, "ProfilerStep#")) return 1;
    if (trailingNumber(name, "Iteration ")) return 2;
    return 0;
}

TrackTraits trackTraits(std::string_view kind, std::string_view trackName,
                        std::string_view threadName, std::string_view processName,
                        std::string_view processLabels) {
    TrackTraits t;
    const std::string process = asciiLower(processName);
    const std::string labels = asciiLower(processLabels);
    const std::string thread = asciiLower(threadName.empty() ? trackName : threadName);
    t.derived = contains(process, "overlap analysis") || process == "step trace" ||
                thread.starts_with("step trace");
    t.device = kind == "gpu_stream" || contains(process, "ascend hardware") || process == "hccl" ||
               contains(labels, "npu") || contains(labels, "gpu");
    return t;
}

bool isDeviceWorkCategory(std::string_view c) {
    return iequals(c, "kernel") || iequals(c, "gpu_memcpy") || iequals(c, "gpu_memset") ||
           iequals(c, "memcpy") || iequals(c, "memset");
}

bool isDeviceNonWork(std::string_view name, std::string_view category) {
    return isDeviceNonWorkName(name) || isDeviceNonWorkCategory(category);
}

bool isDeviceNonWorkName(std::string_view name) {
    const std::string n = asciiLower(name);
    return n.starts_with("event_record") || n.starts_with("event_wait") ||
           n.starts_with("event_reset");
}

bool isDeviceNonWorkCategory(std::string_view category) {
    return iequals(category, "gpu_user_annotation");
}

bool isHostOpCategory(std::string_view c, bool traceHasCategories) {
    if (c.empty()) return !traceHasCategories;
    return iequals(c, "cpu_op") || iequals(c, "operator");
}

}  // namespace ts::analysis
