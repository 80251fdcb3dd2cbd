#pragma once
// GpuTrace: a profile source of the session read for the device-side analyses — the GPU
// work (kernels, memory copies and sets, synchronisations) with the arguments Kineto,
// Nsight Systems and the studio's CUPTI files give them (device, stream, correlation,
// grid, block, registers, shared memory, Kineto's occupancy figures, bytes, bandwidth,
// the collective's arguments), the host events (operators, user annotations, runtime and
// driver calls, Python frames), the GPU-side user annotations, and the device properties
// the trace carries. Each GPU row is linked to the runtime call that launched it (same
// correlation id) and that call to the innermost operator around it, which gives each
// kernel its launching op and the op's input shapes. Works on every source kind; a source
// without GPU rows gives an empty `activities`. No Qt.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/analysis/gpu/device_properties.h"
#include "core/common/job_control.h"
#include "core/common/result.h"

namespace ts::store {
class TraceStore;
}

namespace ts::analysis::gpu {

/// Who made the device work the trace shows.
enum class Vendor { None, Nvidia, Amd, Ascend, Engine, Unknown };
/// "none", "cuda", "rocm", "ascend", "engine", "unknown".
const char* vendorKey(Vendor v);

enum class ActivityKind : uint8_t { Kernel, Memcpy, Memset, Sync };
/// "kernel", "memcpy", "memset", "sync".
const char* activityKindKey(ActivityKind k);

/// Kineto's collective arguments (record_param_comms ops, and NCCL kernels from PyTorch 2.3).
struct CollectiveArgs {
    std::string name;          // "Collective name": allreduce, allgather, reduce_scatter, ...
    std::string dtype;         // "dtype": Float, BFloat16, ...
    int64_t inNelems = -1;     // "In msg nelems"
    int64_t outNelems = -1;    // "Out msg nelems"
    int64_t groupSize = -1;    // "Group size"
    std::string processGroup;  // "Process Group Name" (+ " " + description when given)
    std::string groupRanks;    // "Process Group Ranks" as written, e.g. "[0, 1, 2, 3]"
    int64_t rank = -1;         // "Rank" (of the sender/receiver for p2p, when given)
    bool empty() const { return name.empty(); }
};

struct DeviceActivity {
    int64_t sliceId = 0, trackId = 0, ts = 0, dur = 0, nameId = 0;
    ActivityKind kind = ActivityKind::Kernel;
    int64_t device = -1, stream = -1, correlation = -1, externalId = -1;
    std::array<int64_t, 3> grid{0, 0, 0}, block{0, 0, 0};
    int64_t registers = -1, sharedMemory = -1;
    double blocksPerSm = -1, warpsPerSm = -1, occupancyPct = -1;  // Kineto's; -1 absent
    int64_t bytes = -1;
    double bandwidthGBs = -1;    // Kineto's "memory bandwidth (GB/s)"
    int32_t launch = -1;         // index into GpuTrace::host of the launching runtime call
    int32_t collective = -1;     // index into GpuTrace::collectives (kernel args or its op's)
    int32_t ascend = -1;         // index into GpuTrace::ascend (kernel_details.csv rows)
    bool tensorCore = false;     // usesTensorCores(name) for kernels
    bool communication = false;  // communication kernel (kernel_rules.h)
    int64_t end() const { return ts + dur; }
};

enum class HostKind : uint8_t { CpuOp, UserAnnotation, Runtime, Driver, Python, Other };

struct HostEvent {
    int64_t sliceId = 0, trackId = 0, ts = 0, dur = 0, nameId = 0;
    int32_t depth = 0;
    HostKind kind = HostKind::Other;
    int64_t correlation = -1, externalId = -1;
    int64_t stream = -1;      // "stream" (Triton's compiled kernels write it on their cpu_op)
    int32_t op = -1;          // innermost CpuOp around a runtime/driver call (index into host)
    int32_t collective = -1;  // index into GpuTrace::collectives (record_param_comms, nccl:*)
    std::string inputDims;    // "Input Dims" of an op that launched GPU work (JSON text)
    int64_t end() const { return ts + dur; }
};

/// What Ascend's kernel_details.csv says of a kernel beyond its time.
struct AscendKernelInfo {
    std::string type;             // "Type": MatMulV2, Cast, ...
    std::string acceleratorCore;  // "Accelerator Core": AI_CORE, AI_VECTOR_CORE, MIX_AIC, AI_CPU
    int64_t blockDim = -1;        // "Block Dim"
    std::string inputShapes;      // "Input Shapes"
    /// The pipeline figures: aic_* / aiv_* columns ending in _ratio or _rate, and
    /// cube_utilization(%), in the file's column order.
    std::vector<std::pair<std::string, double>> pipeline;
};

/// A GPU-side user annotation (Kineto's gpu_user_annotation: ProfilerStep#N, module names).
struct GpuAnnotation {
    int64_t sliceId = 0, trackId = 0, ts = 0, dur = 0, nameId = 0;
    int32_t depth = 0;
    int64_t end() const { return ts + dur; }
};

struct GpuTrace {
    int64_t sourceId = 0;
    std::string sourceKind;  // sources.kind
    Vendor vendor = Vendor::None;
    std::vector<DeviceProperties> devices;
    std::vector<DeviceActivity> activities;  // by start time
    std::vector<HostEvent> host;             // by track, then start, then depth
    std::vector<GpuAnnotation> annotations;  // by start time
    std::vector<CollectiveArgs> collectives;
    std::vector<AscendKernelInfo> ascend;
    std::unordered_map<int64_t, std::string> strings;

    const std::string& str(int64_t id) const;
    const std::string& name(const DeviceActivity& a) const { return str(a.nameId); }
    const std::string& name(const HostEvent& h) const { return str(h.nameId); }
    /// The op that launched `a` (nullptr when its launch or the op around it is not known).
    const HostEvent* launchingOp(const DeviceActivity& a) const;
    bool hasGpuWork() const { return !activities.empty(); }
};

/// Sources that hold device work (a track whose first slice is a kernel, memcpy or memset,
/// or a track of Ascend's "Ascend Hardware" process), newest (highest id) first.
Result<std::vector<int64_t>> listDeviceSources(store::TraceStore& store);
/// `sourceId` when given (must exist), else the newest source with device work; an error
/// naming the problem when there is none.
Result<int64_t> resolveDeviceSource(store::TraceStore& store, std::optional<int64_t> sourceId);

/// Reads source `sourceId` of `store`. Cancellable through `job`.
Result<GpuTrace> loadGpuTrace(store::TraceStore& store, int64_t sourceId,
                              JobControl* job = nullptr);

}  // namespace ts::analysis::gpu
