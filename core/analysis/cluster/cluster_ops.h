#pragma once
// What the cluster view counts as communication, computation and step markers — the one
// place that knows the names traces give collectives (nccl:*, gloo:*, c10d::*, HCCL, the
// engine's AllReduce, ...) and which tracks run on a device. No Qt.
//
// Two ways of counting, chosen per rank (docs/DISTRIBUTED.md, "Cluster view"):
// - device: the rank has device work (Kineto kernels, GPU streams, Ascend streams, HCCL
//   planes). Compute = device work that is not communication; communication = communication
//   kernels / tasks. Host-side calls (c10d::allreduce_, nccl:all_reduce annotations) only
//   launch work and are not counted, as HTA counts GPU kernels.
// - host: CPU-only ranks (gloo, the engine). Compute = operator slices (cpu_op, Operator,
//   slices without a category in category-less traces) minus the communication nested in
//   them on the same thread; communication = communication slices on any thread.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace ts::analysis {

/// The name patterns of communication, lower case: `prefix*` or `*infix*`.
struct CommPattern {
    std::string_view text;
    bool prefix;  // true: the name starts with text; false: the name contains it
};
const std::vector<CommPattern>& commPatterns();

/// True when `name` is a collective or point-to-point communication op, kernel or task:
/// nccl*, gloo:*, c10d::*, mpi:*, ucc:*, hccl*, hcom*, record_param_comms, *allreduce*,
/// *all_reduce*, *allgather*, *all_gather*, *reducescatter*, *reduce_scatter*,
/// *alltoall*, *all_to_all*, Ascend HCCL tasks (Notify_Wait, Notify_Record, Reduce_Inline,
/// REDUCE_ASYNC*). Case-insensitive; the engine's "AllReduce" matches.
bool isCommName(std::string_view name);

/// A slice that only marks a step: "ProfilerStep#N" (PyTorch, the engine) or "Iteration N"
/// (msprof / MindSpore step trace). The step number, nullopt for other names.
std::optional<int64_t> stepMarkerNumber(std::string_view name);
/// Which kind of marker `name` is: 1 = ProfilerStep#N, 2 = Iteration N, 0 = none.
int stepMarkerKind(std::string_view name);

/// What a track is, from its names and the categories of its slices.
struct TrackTraits {
    bool device = false;   // runs on a GPU/NPU: kernels, streams, HCCL planes
    bool derived = false;  // holds figures a tool computed (msprof "Overlap Analysis",
                           // "Step Trace" rows): never counted as work
};
/// `kind`: tracks.kind; `trackName`, `threadName`, `processName`, `processLabels` as stored.
TrackTraits trackTraits(std::string_view kind, std::string_view trackName,
                        std::string_view threadName, std::string_view processName,
                        std::string_view processLabels);

/// True for categories of device work (kernel, gpu_memcpy, gpu_memset, Kernel, Memcpy,
/// Memset): a track holding them is a device track.
bool isDeviceWorkCategory(std::string_view category);
/// True for device-side synchronisation that is not work: Ascend EVENT_RECORD / EVENT_WAIT /
/// EVENT_RESET, Kineto gpu_user_annotation (an annotation spanning kernels).
bool isDeviceNonWork(std::string_view name, std::string_view category);
/// The halves of isDeviceNonWork: by name (EVENT_*), by category (gpu_user_annotation).
bool isDeviceNonWorkName(std::string_view name);
bool isDeviceNonWorkCategory(std::string_view category);
/// True for host slices that are operators (compute when not communication): categories
/// cpu_op, Operator, and (in traces without categories) any category-less slice.
bool isHostOpCategory(std::string_view category, bool traceHasCategories);

/// A device track is a communication stream when at least this share of its slices are
/// communication by name (HCCL's streams also run MEMCPY_ASYNC for the collective).
inline constexpr double kCommStreamShare = 0.5;

}  // namespace ts::analysis
