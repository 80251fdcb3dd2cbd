#pragma once
// Memory analysis of a profile: the memory counters over time (memory in use, pool size),
// the peak of memory in use (time, bytes) and the allocations live at the peak, largest
// first (op, shape, bytes) — what profile_memory gives in PyTorch. Reads the recorder's
// counter tracks ("Memory In Use (bytes)", "Memory Pool (bytes)") and its "Allocations"
// track or thread (instants "alloc" with args {bytes, op, scope, shape, tensor, free_ts};
// the thread name is what survives a Chrome export and re-import). Imported Kineto
// traces have "[memory]" instants instead ({"Bytes", "Addr", "Total Allocated",
// "Total Reserved", "Device Id"}): the series come from those (the device with the highest
// peak) and the live allocations from matching Addr (no op or shape there). Older Kineto
// traces carry only {"Device Id", "Bytes"}: memory in use is then the running sum of Bytes
// from the start of the trace (relative: blocks allocated before it are not seen), there is
// no pool series and no live-allocation list. No Qt.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/job_control.h"
#include "core/common/result.h"

namespace ts::store {
class TraceStore;
}

namespace ts::analysis {

inline constexpr const char* kMemoryInUseCounter = "Memory In Use (bytes)";
inline constexpr const char* kMemoryPoolCounter = "Memory Pool (bytes)";

struct MemorySeries {
    std::string name;
    std::vector<int64_t> ts;
    std::vector<double> value;
    bool empty() const { return ts.empty(); }
};

struct LiveAllocation {
    int64_t ts = 0;  // when it was allocated
    int64_t bytes = 0;
    std::string op;      // op that allocated it ("" when unknown)
    std::string shape;   // e.g. "[64,128]" ("" when unknown)
    std::string tensor;  // tensor name ("" when unknown)
};

struct MemoryAnalysis {
    int64_t sourceId = 0;
    MemorySeries inUse;                // memory in use (bytes) over time
    MemorySeries pool;                 // pool / reserved size (bytes)
    std::vector<MemorySeries> others;  // other counters of the source (samples/s, loss, ...)
    bool hasPeak = false;
    int64_t peakTs = 0;
    double peakBytes = 0;
    double poolPeakBytes = 0;
    std::vector<LiveAllocation> topAtPeak;  // largest first, at most `top`
    int64_t liveAtPeakCount = 0;            // all allocations live at the peak
    int64_t liveAtPeakBytes = 0;
    /// Bytes in use at the peak that no listed allocation explains (blocks allocated before
    /// the profile started and not registered as residents); 0 without an allocation list.
    int64_t untrackedAtPeakBytes = 0;
    std::string origin;  // "counters" | "kineto [memory] events" | "" when nothing found
};

/// Analyses the memory of `sourceId`; a source without memory data gives an empty analysis
/// (hasPeak false). Errors: unknown source, damaged store.
Result<MemoryAnalysis> analyzeMemory(store::TraceStore& store, int64_t sourceId, size_t top = 10,
                                     JobControl* job = nullptr);

}  // namespace ts::analysis
