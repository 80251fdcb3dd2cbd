#pragma once
// Per-op memory of a profile in a session: which op allocated each block and how much each
// op (and each op with its input shapes) allocated, freed and still holds.
//  - Kineto traces (profile_memory=True): each "[memory]" instant is given to the op whose
//    slice holds it on the same thread (the deepest one; an allocation factory such as
//    aten::empty gives it to its caller, the op that asked for the tensor); its free (the
//    negative event at the same address) to the same block. Memory in use per device
//    ("Device Type" / "Device Id": CPU, cuda:0, ...) from "Total Allocated".
//  - Profiles with an "Allocations" thread (the engine's own runs, imported memory snapshots,
//    Ascend's operator_memory.csv): each "alloc" instant names its op and when it was freed.
// allocated = bytes of the op's allocations; freed = bytes of those freed within the profile;
// net = allocated - freed (what the op's allocations still held at the end). No Qt.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/common/job_control.h"
#include "core/common/result.h"

namespace ts::store {
class TraceStore;
}

namespace ts::memory {

struct OpMemoryRow {
    std::string op;
    std::string shapes;  // input shapes (compact JSON) for by-shape rows, "" otherwise
    int64_t allocations = 0;
    int64_t allocated = 0;
    int64_t freed = 0;
    int64_t net() const { return allocated - freed; }
};

/// One allocation with the op that made it.
struct OpAllocation {
    int64_t ts = 0;
    int64_t bytes = 0;
    uint64_t addr = 0;
    std::string device;  // "CPU", "cuda:0", ...
    std::string op;      // "" when no op slice holds it
    std::string shapes;
    int64_t freeTs = -1;  // -1: not freed within the profile
};

struct DeviceCurve {
    std::string device;
    std::vector<int64_t> ts;
    std::vector<double> bytes;  // memory in use after each event
    int64_t peakTs = 0;
    double peakBytes = 0;
};

struct OpMemory {
    std::string origin;                     // "kineto [memory] events" | "allocations thread" | ""
    std::vector<OpAllocation> allocations;  // in time order
    std::vector<OpMemoryRow> byOp;          // largest allocated first
    std::vector<OpMemoryRow> byOpAndShape;
    std::vector<DeviceCurve> devices;  // Kineto only; others have counters
    int64_t named = 0, unnamed = 0;    // allocations with / without an op
};

/// Errors: unknown source, damaged store, cancelled. A profile without memory data gives an
/// empty result (origin "").
Result<OpMemory> analyzeOpMemory(store::TraceStore& store, int64_t sourceId,
                                 JobControl* job = nullptr);

/// The allocation factories whose caller is the op that asked (aten::empty, ...).
bool isAllocationFactory(std::string_view op);

}  // namespace ts::memory
