#pragma once
// ProfileData: one profile (a source of the session) read into memory for the step, memory
// and advice analyses — every slice of its tracks (sorted by track, then start), the names
// of its counter tracks, and the helpers to pick which source to analyse. Works on a
// recorded run profile (source kind "profiler") and on imported traces (Kineto/Chrome
// JSON), which may lack phases, counters or allocations. No Qt.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/analysis/gpu/profiler_step.h"
#include "core/common/job_control.h"
#include "core/common/result.h"

namespace ts::store {
class TraceStore;
}

namespace ts::analysis {

/// A source that holds a profile: kind "profiler", any source with ProfilerStep#N slices,
/// memory data, or device work (gpu::listDeviceSources).
struct ProfileSourceInfo {
    int64_t id = 0;
    std::string kind;   // sources.kind
    std::string label;  // sources.label, else the file name of sources.path
    int64_t steps = 0;  // distinct ProfilerStep#N names (Kineto's GPU copies count once)
    /// A profile only by its device work (no steps, not a recorded run, no memory data): an
    /// Nsight export, a CUPTI file, Ascend's kernels or msprof timelines.
    bool deviceOnly = false;
};

/// Profile sources, newest (highest id) first. Empty when the session has none.
Result<std::vector<ProfileSourceInfo>> listProfileSources(store::TraceStore& store);

/// The source to analyse: `sourceId` when given (must exist), the profile of `runId` when
/// given (error when the run is unknown or has no profile), else the newest profile source
/// (one with steps, a recorded run or memory data before one only by its device work).
/// Errors name the problem ("run 3 has no profile", "no profile in this session").
Result<int64_t> resolveProfileSource(store::TraceStore& store, std::optional<int64_t> sourceId,
                                     std::optional<int64_t> runId);

/// One slice of the profile; names and categories are ids into ProfileData::strings.
struct ProfileSlice {
    int64_t id = 0;
    int64_t trackId = 0;
    int64_t ts = 0;
    int64_t dur = 0;
    int32_t depth = 0;
    int64_t nameId = 0;
    int64_t catId = 0;
    int64_t end() const { return ts + dur; }
};

struct ProfileTrack {
    int64_t id = 0;
    std::string kind;  // thread | async | counter | gpu_stream
    std::string name;
};

struct ProfileData {
    int64_t sourceId = 0;
    std::string kind;
    std::vector<ProfileTrack> tracks;
    std::vector<ProfileSlice> slices;  // by track, then ts, then depth
    std::unordered_map<int64_t, std::string> strings;

    const std::string& name(const ProfileSlice& s) const { return str(s.nameId); }
    const std::string& category(const ProfileSlice& s) const { return str(s.catId); }
    const std::string& str(int64_t id) const;
    const ProfileTrack* track(int64_t id) const;
    /// Index range [first, last) of the slices of `trackId` (empty when none).
    std::pair<size_t, size_t> trackRange(int64_t trackId) const;
};

/// Reads the slices and tracks of `sourceId`. Cancellable through `job`.
Result<ProfileData> loadProfile(store::TraceStore& store, int64_t sourceId,
                                JobControl* job = nullptr);

/// True for categories of CPU/host operators ("cpu_op", Kineto's "Operator") and copies.
bool isOpCategory(std::string_view category);
/// True for device kernel categories ("kernel", "Kernel").
bool isKernelCategory(std::string_view category);
/// True for copies and contiguous/format conversions (Copy, Contiguous, Cast, TransData,
/// aten::copy_, aten::contiguous, Memcpy*, category gpu_memcpy / Memcpy).
bool isCopyOp(std::string_view name, std::string_view category);

}  // namespace ts::analysis
