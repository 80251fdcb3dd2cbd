#pragma once
// GpuRows: how CUDA activity becomes session rows, shared by the Nsight Systems importer and
// the CUPTI collector's files so both show a run alike: CPU calls on "<thread> · <label>"
// tracks (Kineto's categories), kernels / memcpy / memset on their stream's track (names,
// categories and args as Nsight Systems shows them), and a flow "CUDA launch" (category
// ac2g) from the innermost API call with the GPU row's correlation id to the GPU row.
// Rows are taken as they are: callers check durations and skip (and log) bad rows first.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/common/json.h"
#include "core/common/pair_hash.h"
#include "core/profiler/gpu/gpu_trace_builder.h"

namespace ts::profiler::gpu {

/// Which family a CPU call belongs to (its category).
enum class ApiKind { Cuda, OsRuntime, Cublas, Cudnn, Other };
/// Kineto's categories: "cuda_runtime" (cuda*), "cuda_driver" (cu*), "osrt", "cublas",
/// "cudnn", "api".
const char* apiCategory(ApiKind kind, std::string_view name);
/// CUPTI memcpy kinds (CUpti_ActivityMemcpyKind) as Nsight Systems names them:
/// 1 "Host-to-Device", 2 "Device-to-Host", ..., 8 "Device-to-Device", 10 "Peer-to-Peer".
const char* memcpyKindName(int64_t kind);

struct ApiCall {
    int64_t start = 0, end = 0;  // ns on the session's clock
    int64_t globalTid = 0;
    int64_t nameId = 0;     // store string id of `name`
    std::string_view name;  // decides the category of a CUDA call (cuda* or cu*)
    ApiKind kind = ApiKind::Cuda;
    std::optional<int64_t> correlation, returnValue;
};

/// Where and when GPU work ran.
struct GpuPlacement {
    int64_t start = 0, end = 0;  // ns on the session's clock
    int64_t device = 0, context = 0, stream = 0;
    std::optional<int64_t> correlation;
    std::optional<int64_t> globalPid;  // the launching process (nullopt: match any process)
    std::string_view op;               // the engine op that launched it ("" = none)
};

struct KernelRow : GpuPlacement {
    int64_t nameId = 0;  // store string id of the (demangled) name; 0 = "[CUDA kernel]"
    std::optional<std::array<int64_t, 3>> grid, block;
    std::optional<int64_t> registersPerThread, sharedMemory;  // static + dynamic bytes
};

struct MemcpyRow : GpuPlacement {
    std::optional<int64_t> bytes;
    int64_t copyKind = 0;
};

struct MemsetRow : GpuPlacement {
    std::optional<int64_t> bytes, value;
};

/// A synchronisation CUPTI timed (CUpti_ActivitySynchronizationType: 1 event, 2 stream wait
/// event, 3 stream, 4 context). Without a stream it goes to the context's "sync" track.
struct SyncRow : GpuPlacement {
    int64_t type = 0;
    bool hasStream = true;
    std::optional<int64_t> cudaEvent;
};
/// Kineto's names: "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync",
/// "Unknown Sync".
const char* syncTypeName(int64_t type);

class GpuRows {
public:
    explicit GpuRows(GpuTraceBuilder& builder);

    GpuTraceBuilder& builder() { return m_b; }

    /// A CPU call on track `label` of its thread; with a correlation id it may have
    /// launched GPU work.
    SliceHandle apiCall(const ApiCall& call, const std::string& label, int order);
    SliceHandle kernel(const KernelRow& k);
    SliceHandle memcpy(const MemcpyRow& m);
    SliceHandle memset(const MemsetRow& m);
    /// Category "cuda_sync", flow from its API call like a kernel's.
    SliceHandle sync(const SyncRow& s);

private:
    struct Launch {
        SliceHandle slice;
        int64_t ts = 0, dur = 0;
    };
    void addLaunch(int64_t processKey, int64_t correlation, const Launch& l);
    /// The innermost API call with this correlation id (nullptr when none); processKey < 0
    /// matches any process.
    const Launch* findLaunch(int64_t processKey, int64_t correlation) const;
    SliceHandle gpuRow(const GpuPlacement& p, int64_t nameId, int64_t catId, json::ArgsJson& args,
                       uint32_t track);
    int64_t category(ApiKind kind, std::string_view name);
    uint32_t streamOf(const GpuPlacement& p);

    GpuTraceBuilder& m_b;
    store::StoreWriter& m_w;
    int64_t m_kernelCat, m_memcpyCat, m_memsetCat, m_memsetName, m_kernelName, m_flowName,
        m_flowCat;
    int64_t m_syncCat = 0;
    std::map<int64_t, int64_t> m_memcpyNames, m_syncNames;
    std::map<std::string, int64_t, std::less<>> m_apiCats;  // category -> string id
    std::unordered_map<std::pair<int64_t, int64_t>, Launch, ts::Int64PairHash> m_launches;
    std::unordered_map<int64_t, Launch> m_launchByCorrelation;
};

}  // namespace ts::profiler::gpu
