#pragma once
// From the CUPTI collector's activity file (activity_format.h) to session rows, the way the
// Nsight Systems importer makes them (gpu_rows.h): API calls on "<thread> · CUDA API",
// kernels / memcpy / memset / synchronisations on one track per device stream with a
// "CUDA launch" flow from their API call, NVTX ranges on "<thread> · NVTX", CUPTI's own
// overhead on "<thread> · CUPTI overhead". Kernel names are demangled. GPU times are put on
// the host clock through the file's clock pairs. Records CUPTI dropped, a truncated file,
// unpaired markers and the collector's own notes become import problems, never silence.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/common/result.h"
#include "core/profiler/gpu/activity_format.h"
#include "core/profiler/gpu/gpu_rows.h"

namespace ts::profiler::gpu {

/// An activity file read into memory.
struct ActivityTrace {
    std::unordered_map<uint32_t, std::string> strings;
    std::optional<ProcessRecord> process;
    std::vector<ClockRecord> clocks;
    std::vector<DeviceRecord> devices;
    std::vector<ContextRecord> contexts;
    std::vector<ApiRecord> apis;
    std::vector<KernelRecord> kernels;
    std::vector<MemcpyRecord> memcpys;
    std::vector<MemsetRecord> memsets;
    std::vector<SyncRecord> syncs;
    std::vector<MarkerRecord> markers;
    std::vector<OverheadRecord> overheads;
    std::vector<DroppedRecord> dropped;
    std::vector<ThreadNameRecord> threadNames;
    std::vector<std::string> notes;
    bool truncated = false;         // the last record is incomplete (the process died)
    uint64_t unknownRecords = 0;    // types this build does not know (a newer collector)
    uint64_t malformedRecords = 0;  // a known type with the wrong size

    /// Text of string `id` ("" when unknown).
    const std::string& text(uint32_t id) const;
    /// GPU activity records (kernels, copies, sets, synchronisations).
    size_t gpuRecords() const {
        return kernels.size() + memcpys.size() + memsets.size() + syncs.size();
    }
    uint64_t droppedCount() const;
};

/// True when `head` starts with the activity file's magic.
bool isActivityFile(std::string_view head);
/// Parses a whole file's bytes. Errors: not an activity file, or a newer version.
Result<ActivityTrace> parseActivity(std::string_view bytes);
Result<ActivityTrace> readActivityFile(const std::string& path);

enum class HostClock { Realtime, Monotonic };

/// CUPTI's clock -> a host clock: host = hostStart + (t - cuptiStart) * slope, the slope
/// from the start and end pairs (1 with one pair, or when the two disagree by more than
/// 1 %, which `note` then says).
struct ClockAlignment {
    bool calibrated = false;  // false: no clock pair; times are CUPTI's own
    uint64_t cuptiStart = 0;
    int64_t hostStart = 0;
    double slope = 1.0;
    std::string note;  // "" or why the alignment is weaker than two consistent pairs
    int64_t toHost(uint64_t cuptiNs) const;
};
ClockAlignment alignClock(const std::vector<ClockRecord>& clocks, HostClock clock);

struct ActivityImportOptions {
    HostClock clock = HostClock::Realtime;
    /// Maps an aligned host time to the session's time (identity when null), e.g. the engine
    /// profile's steady -> wall mapping.
    std::function<int64_t(int64_t)> toSession;
    /// The engine op running on thread `tid` at session time `ts` ("" = none): GPU work
    /// gets it as its "op" arg (the profiler's timeline shows kernels under their ops).
    std::function<std::string(int64_t tid, int64_t ts)> opAt;
    /// Pre-existing rows of the process / threads (the engine profile writes its own).
    std::function<void(GpuTraceBuilder&)> prepare;
    /// Which records to write, by their session times (null: all): the engine profile keeps
    /// those of its recorded steps.
    std::function<bool(int64_t start, int64_t end)> keep;
};

/// What writeActivityRows did besides the rows (for the import's stats).
struct ActivityImportStats {
    int64_t apis = 0, kernels = 0, memcpys = 0, memsets = 0, syncs = 0, markers = 0, overheads = 0;
    int64_t overheadNs = 0;
    int64_t dropped = 0;
    int64_t unpairedMarkers = 0;
    std::string clockNote;
};

/// A problem met while writing: a stable key, a message and how many records it covers.
using ActivityProblem =
    std::function<void(const std::string& key, const std::string& message, int64_t count)>;

/// Writes `trace` through `rows` (call rows.builder().finish() after). Problems: records
/// CUPTI dropped ("cupti_dropped_records"), a truncated file ("cupti_truncated"), unknown or
/// malformed records ("cupti_unknown_record", "cupti_malformed_record"), markers without
/// their start ("cupti_marker_unpaired"), no or inconsistent clock pairs ("cupti_clock"), and
/// every note of the collector ("cupti_collector_note").
ActivityImportStats writeActivityRows(const ActivityTrace& trace, GpuRows& rows,
                                      const ActivityImportOptions& options,
                                      const ActivityProblem& problem);

/// The demangled form of a C++ symbol ("_Z..."), the name itself when it is not one.
std::string demangle(const std::string& name);

}  // namespace ts::profiler::gpu
