#pragma once
// ProfileRecorder: collects a training run's profile in memory — ProfilerStep#N slices,
// phase slices (DataLoading, Forward, Backward, Optimizer, Callbacks), one slice per op with
// its scope, input shapes and dtypes and bytes allocated/freed, forward->backward flows,
// counters and allocations — for the steps its schedule selects, and writes it into the
// session store as a source of kind "profiler" (the same tables an imported trace uses, so
// the timeline, op statistics, search and the Chrome export work on it unchanged).
// Recording costs a clock read, a hash lookup and a few vector pushes per op; nothing is
// formatted until it is written (flushTo() after each recorded step, writeTo() at the end).
// Knows nothing of the engine: ProfilerObserver
// (profiler_observer.h) feeds it from the op dispatcher.
// Used from one thread (the engine's); writeTo() after the run or between windows.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/common/result.h"
#include "core/profiler/gpu/gpu_trace_builder.h"
#include "core/profiler/profile_schedule.h"
#include "core/store/store_writer.h"
#include "core/store/trace_store.h"

namespace ts::profiler {

enum class Phase : uint8_t { DataLoading, Forward, Backward, Optimizer, Callbacks };
/// "DataLoading", "Forward", "Backward", "Optimizer", "Callbacks" (the slice names the step
/// analysis looks for).
const char* phaseName(Phase p);

enum class Counter : uint8_t { MemoryInUse, MemoryPool, SamplesPerSecond, Loss, LossScale };
/// Counter track names: "Memory In Use (bytes)", "Memory Pool (bytes)", "samples/s",
/// "loss", "loss scale".
const char* counterName(Counter c);

struct ProfilerOptions {
    ProfileSchedule schedule;
    bool recordShapes = true;   // record_shapes: "Input Dims" / "Input type" args per op
    bool profileMemory = true;  // profile_memory: bytes per op, allocations, memory counters
    /// Safety cap for long windows: once this many slices + allocations + counter samples
    /// are held, no further step is recorded (droppedSteps() counts them).
    int64_t maxEvents = 4'000'000;
};

class ProfileRecorder {
public:
    explicit ProfileRecorder(ProfilerOptions options = {});

    const ProfilerOptions& options() const { return m_options; }

    /// The process and thread the slices ran on (defaults: "trainscope", "engine").
    void setThread(int64_t pid, int64_t tid, std::string threadName);

    /// Step boundaries. `scheduleIndex` (0-based: the how-many-th step of the run) decides
    /// with the schedule whether the step is recorded; the slice is "ProfilerStep#<number>".
    void stepBegin(int64_t scheduleIndex, int64_t number);
    void stepBegin(int64_t step) { stepBegin(step, step); }
    void stepEnd();
    /// True while the current step is recorded (check before collecting op details).
    bool recording() const { return m_recording; }

    void phaseBegin(Phase p);
    void phaseEnd();

    /// Begins an op slice and returns a token for opEnd (-1 when not recording). A backward
    /// op names the full scope of its forward op in `forwardScope` ("" for none): when an op
    /// of that scope ran earlier in the step, a flow links the two.
    /// `steadyNs` (> 0): the op's start on the steady clock (the dispatcher's OpEvent
    /// time), saving a clock read; 0 = now.
    int64_t opBegin(std::string_view opType, std::string_view scope, int64_t seqid, bool backward,
                    std::string_view forwardScope, int64_t steadyNs = 0);
    /// Adds an input (shape `dims[0..rank)`, dtype name) to the op opBegin just returned;
    /// call right after opBegin, before any other op begins. Ignored without recordShapes.
    void addInput(int64_t token, const int64_t* dims, size_t rank, std::string_view dtype);
    /// The op's attributes (members of a JSON object, e.g. a collective's bytes and
    /// algorithm), written into its args.
    void setAttrs(int64_t token, std::string_view attrs);
    /// More attributes of the same form after those set (an op's OpEvent::endAttrs).
    void addAttrs(int64_t token, std::string_view attrs);
    /// Older form: shapes and dtypes at once; a backward op links to the forward op with
    /// seqid `forwardSeqId` (>= 0) of the same step.
    int64_t opBegin(std::string_view opType, std::string_view scope, int64_t seqid, bool backward,
                    int64_t forwardSeqId, const std::vector<std::vector<int64_t>>& inputShapes,
                    const std::vector<std::string_view>& inputDtypes);
    /// Ends the op with the bytes allocated and freed while it ran (`steadyNs` as opBegin).
    void opEnd(int64_t token, int64_t allocBytes, int64_t freeBytes, int64_t steadyNs = 0);

    /// A counter sample at the current time (kept only while recording).
    void counter(Counter c, double value, int64_t ts = 0);  // ts 0 = now()
    /// An allocation by the innermost open op (outside ops: attributed to the innermost
    /// phase or step); returns a handle for
    /// describe()/release(), -1 when not kept (not recording or no profileMemory).
    int64_t allocation(int64_t bytes, int64_t ts = 0);  // ts 0 = now()
    /// Names an allocation's tensor and shape (e.g. once the op that made it returns it).
    void describe(int64_t handle, std::string_view tensor, const int64_t* dims, size_t rank);
    /// Older form: allocation + describe.
    int64_t allocation(int64_t bytes, std::string_view tensor, const std::vector<int64_t>& shape);
    /// The allocation was freed now (kept also outside the recorded steps).
    void release(int64_t handle, int64_t ts = 0);  // ts 0 = now()
    /// An allocation that exists before the window (a parameter, an optimizer state): shown
    /// live from the first recorded step on, with `op` as its origin ("(parameter)").
    int64_t resident(int64_t bytes, std::string_view op, std::string_view tensor,
                     const std::vector<int64_t>& shape);

    /// Writes the steps recorded since the last call (closed slices, their flows, counter
    /// samples, freed allocations) into this profile's source, made by the first call
    /// ('importing', linked to `runId` at once), so a run killed later keeps the steps it
    /// profiled (the session shows the source 'incomplete'). Nothing is written before the
    /// first recorded slice. Returns the source id (0: none yet).
    Result<int64_t> flushTo(store::TraceStore& store, int64_t runId, const std::string& label);
    /// Writes everything not written yet (allocations still live too) into the profile's
    /// source (made now when flushTo() never ran), closes it and links it to `runId`
    /// (0 = no run). Clears the buffers. Returns the source id.
    /// `extra` (optional) writes more rows into the same source before it is closed — the
    /// GPU activity of a device run — given the writer and the rows of the profile's process
    /// and training thread; it returns what it wrote (the source's counts and time range).
    using ExtraRows = std::function<gpu::TraceCounts(store::StoreWriter& w, int64_t processRow,
                                                     int64_t threadRow)>;
    Result<int64_t> writeTo(store::TraceStore& store, int64_t runId, const std::string& label,
                            const ExtraRows& extra = {});
    /// The full scope name of the op running at `ts` (the profile's clock) on the training
    /// thread; between ops, the phase running then ("data_loading", "backward": a device's
    /// batch gather, the gradient seed); "" outside the recorded steps.
    std::string opAt(int64_t ts) const;
    /// The first start and the last end of the recorded slices (0 when none).
    int64_t firstTs() const;
    int64_t lastTs() const;
    int64_t pid() const { return m_pid; }
    int64_t tid() const { return m_tid; }

    int64_t recordedSteps() const { return m_recordedSteps; }
    int64_t droppedSteps() const { return m_droppedSteps; }
    int64_t recordedSlices() const { return static_cast<int64_t>(m_slices.size()); }
    int64_t recordedFlows() const { return static_cast<int64_t>(m_flows.size()); }
    int64_t recordedAllocations() const { return static_cast<int64_t>(m_allocs.size()); }
    bool empty() const { return m_slices.empty() && m_counters.empty() && m_allocs.empty(); }

    /// Nanoseconds on the wall clock, from a monotonic source (no jumps within a run).
    int64_t now() const;
    /// A steady_clock time (ns since its epoch) on the same scale as now().
    int64_t fromSteady(int64_t steadyNs) const {
        return m_epochWallNs + (steadyNs - m_epochSteadyNs);
    }

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
        uint16_t inputs = 0;
        int64_t seqid = -1;
        int64_t allocBytes = 0;
        int64_t freeBytes = 0;
        uint32_t shapesBegin = 0;     // into m_dims: per input [rank, d...]
        uint32_t dtypesBegin = 0;     // into m_dtypeRefs: per input one string id
        uint32_t attrs = UINT32_MAX;  // string id of the op's attributes (none: UINT32_MAX)
    };
    struct Alloc {
        int64_t ts = 0;
        int64_t freeTs = -1;
        int64_t bytes = 0;
        uint32_t op = 0;
        uint32_t scope = 0;
        uint32_t tensor = 0;
        int64_t shapeBegin = -1;  // into m_dims: [rank, d...], -1 when unknown
    };
    struct CounterSample {
        Counter c;
        int64_t ts;
        double value;
    };
    struct StringHash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };

    // What the writes so far made and wrote (flushTo(), writeTo()).
    struct Output {
        int64_t source = 0, process = 0, thread = 0, track = 0, allocTrack = 0;
        int64_t counterTracks[5] = {0, 0, 0, 0, 0};
        size_t slices = 0, flows = 0, counters = 0;  // written: m_slices[0, slices), ...
        std::vector<int64_t> sliceIds;               // slice index -> row id
        std::vector<bool> allocWritten;
        int64_t instants = 0;
    };
    void openOutput(store::StoreWriter& w, const std::string& label);
    void writeRows(store::StoreWriter& w, bool all);

    uint32_t intern(std::string_view s);
    /// intern() through a slot of m_slots whose string is compared before the hash lookup.
    uint32_t internSlot(std::string_view s, size_t slot);
    int64_t push(Kind kind, uint32_t name, int64_t ts);
    void close(int64_t index, int64_t ts);
    int64_t innermostOp() const;
    bool overCap() const;
    std::string opArgs(const Slice& s) const;
    std::string allocArgs(const Alloc& a) const;
    void clear();

    ProfilerOptions m_options;
    bool m_recording = false;
    int64_t m_recordedSteps = 0;
    int64_t m_droppedSteps = 0;
    int64_t m_epochWallNs = 0;
    int64_t m_epochSteadyNs = 0;
    int64_t m_pid = 0, m_tid = 0;
    std::string m_threadName = "engine";
    std::vector<Slice> m_slices;
    std::vector<int64_t> m_stack;  // open slice indexes
    std::vector<int64_t> m_dims;
    std::vector<uint32_t> m_dtypeRefs;
    std::vector<Alloc> m_allocs;
    std::vector<CounterSample> m_counters;
    std::vector<std::pair<int64_t, int64_t>> m_flows;  // slice index forward -> backward
    // scope id -> (m_recordedSteps when set, forward slice): valid for the current step only
    std::vector<std::pair<int64_t, int64_t>> m_forwardByScope;
    std::unordered_map<int64_t, int64_t> m_forwardBySeq;  // this step: seqid -> slice
    static constexpr size_t kTypeSlots = 256, kScopeSlots = 4096;
    std::vector<uint32_t> m_slots = std::vector<uint32_t>(kTypeSlots + kScopeSlots, 0);
    std::vector<std::string> m_strings;
    std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> m_stringIds;
    Output m_out;
};

}  // namespace ts::profiler
