#pragma once
// ProfileRecorder: collects a training run's profile in memory — ProfilerStep#N slices,
// phase slices (DataLoading, Forward, Backward, Optimizer, Callbacks), one slice per op with
// its scope, shapes, dtypes and bytes, forward->backward flows, counters and allocations —
// for the steps its schedule selects, and writes it into the session store as a source of
// kind "profiler" (the same tables an imported trace uses). Recording costs a clock read
// and a few vector pushes per op; nothing is formatted until writeTo().
// Used from one thread (the engine's); writeTo() after the run or between windows.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/common/result.h"
#include "core/profiler/profile_schedule.h"
#include "core/store/trace_store.h"

namespace ts::profiler {

enum class Phase : uint8_t { DataLoading, Forward, Backward, Optimizer, Callbacks };
const char* phaseName(Phase p);

enum class Counter : uint8_t { MemoryInUse, MemoryPool, SamplesPerSecond, Loss, LossScale };
const char* counterName(Counter c);

struct ProfilerOptions {
    ProfileSchedule schedule;
    bool recordShapes = true;   // record_shapes
    bool profileMemory = true;  // profile_memory
};

class ProfileRecorder {
public:
    explicit ProfileRecorder(ProfilerOptions options = {});

    /// Step boundaries; the schedule decides whether the step is recorded.
    void stepBegin(int64_t step);
    void stepEnd();
    /// True while the current step is recorded (check before collecting op details).
    bool recording() const { return m_recording; }

    void phaseBegin(Phase p);
    void phaseEnd();

    /// Begins an op slice. `forwardSeqId` >= 0 on a backward op links it (by flow) to the
    /// forward op with that seqid in the same step. Returns a token for opEnd.
    int64_t opBegin(std::string_view opType, std::string_view scope, int64_t seqid,
                    bool backward, int64_t forwardSeqId,
                    const std::vector<std::vector<int64_t>>& inputShapes,
                    const std::vector<std::string_view>& inputDtypes);
    void opEnd(int64_t token, int64_t allocBytes, int64_t freeBytes);

    void counter(Counter c, double value);
    /// An allocation by the current op (or outside any op); returns a handle for free().
    int64_t allocation(int64_t bytes, std::string_view tensor, const std::vector<int64_t>& shape);
    void release(int64_t handle);

    /// Writes everything recorded so far as one new source and links it to `runId`
    /// (0 = no run). Clears the buffers. Returns the source id.
    Result<int64_t> writeTo(store::TraceStore& store, int64_t runId, const std::string& label);

    int64_t recordedSteps() const { return m_recordedSteps; }
    int64_t recordedSlices() const { return static_cast<int64_t>(m_slices.size()); }

    /// Nanoseconds on the wall clock, from a monotonic source (no jumps within a run).
    int64_t now() const;

private:
    enum class Kind : uint8_t { Step, Phase, Op };
    struct Slice {
        int64_t ts = 0;
        int64_t dur = -1;  // -1 while open
        uint32_t name = 0;
        uint32_t scope = 0;
        int32_t depth = 0;
        Kind kind = Kind::Op;
        bool backward = false;
        int64_t seqid = -1;
        int64_t allocBytes = 0;
        int64_t freeBytes = 0;
        uint32_t shapesBegin = 0;  // into m_dims: [nInputs, rank0, d..., rank1, d..., ...]
        uint32_t dtypesBegin = 0;  // into m_dtypeRefs: [n, id, id...]
        bool hasShapes = false;
    };
    struct Alloc {
        int64_t ts = 0;
        int64_t freeTs = -1;
        int64_t bytes = 0;
        uint32_t op = 0;
        uint32_t tensor = 0;
        uint32_t shapeBegin = 0;
    };
    struct CounterSample {
        Counter c;
        int64_t ts;
        double value;
    };

    uint32_t intern(std::string_view s);
    int64_t push(Kind kind, uint32_t name);
    void close(int64_t index);
    std::string opArgs(const Slice& s) const;

    ProfilerOptions m_options;
    bool m_recording = false;
    int64_t m_recordedSteps = 0;
    int64_t m_epochWallNs = 0;
    int64_t m_epochSteadyNs = 0;
    std::vector<Slice> m_slices;
    std::vector<int64_t> m_stack;  // open slice indexes
    std::vector<int64_t> m_dims;
    std::vector<uint32_t> m_dtypeRefs;
    std::vector<Alloc> m_allocs;
    std::vector<CounterSample> m_counters;
    std::vector<std::pair<int64_t, int64_t>> m_flows;  // slice index forward -> backward
    std::unordered_map<int64_t, int64_t> m_forwardBySeq;  // this step: seqid -> slice index
    std::vector<std::string> m_strings;
    std::unordered_map<std::string, uint32_t> m_stringIds;
};

}  // namespace ts::profiler
