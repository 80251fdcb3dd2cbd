#pragma once
// ProfilerObserver: the engine's profiler — an OpObserver on the op dispatcher that feeds a
// ProfileRecorder (what PyTorch's profiler records, in the engine's terms):
//  - per op: a slice on the training thread named by op type, with the full scope name
//    ("Default/network-WithLossCell/_backbone-MLP/fc1-Dense/MatMul-op0"), the per-step
//    sequence number, input shapes and dtypes (record_shapes), and bytes allocated and freed
//    while it ran (profile_memory); each backward op is linked by a flow to the forward op it
//    differentiates (its scope is "Gradients/<forward scope>/<op>-opN");
//  - per step: "ProfilerStep#N" (N = global step) and the phase slices DataLoading, Forward,
//    Backward, Optimizer, Callbacks, so a step splits into iteration gap, forward+backward
//    and tail;
//  - counters: memory in use and pool size at every allocation and free, samples/s, loss
//    and loss scale per step;
//  - allocations: one "alloc" instant per block (op, scope, tensor, shape, bytes, free time)
//    for the Memory view's "live at the peak" list; parameters alive before the window are
//    added as residents by the attach code.
// The schedule counts the steps this observer sees (0 = the run's first step), so a resumed
// run is scheduled from where it starts. All callbacks run on the training thread.
#include <cstdint>
#include <functional>
#include <string>

#include "core/engine/tensor/op_observer.h"
#include "core/profiler/block_map.h"
#include "core/profiler/profile_recorder.h"

namespace ts::engine {
class MemoryPool;
}

namespace ts::profiler {

class ProfilerObserver : public engine::OpObserver {
public:
    /// `pool` (may be null) gives the memory level at each recorded step's start;
    /// `batchSize` (> 0) turns step durations into samples/s.
    ProfilerObserver(ProfilerOptions options, const engine::MemoryPool* pool, int64_t batchSize);

    ProfileRecorder& recorder() { return m_rec; }
    /// Called after each recorded step has ended (the run profiler writes the step then).
    void setOnRecordedStep(std::function<void()> f) { m_onRecordedStep = std::move(f); }
    /// Steps seen so far (recorded or not).
    int64_t stepsSeen() const { return m_stepIndex; }

    /// Adds a block that exists before the first recorded step (a parameter): it counts as
    /// live from the start of the profile until freed.
    void addResident(const void* ptr, int64_t bytes, std::string_view origin,
                     std::string_view tensor, const std::vector<int64_t>& shape);

    void onRunBegin(const std::string& configJson) override;
    void onStepBegin(const engine::StepInfo& step) override;
    void onStepEnd(const engine::StepInfo& step) override;
    void onPhaseBegin(engine::Phase phase) override;
    void onPhaseEnd(engine::Phase phase) override;
    void onOpBegin(engine::OpEvent& op) override;
    void onOpEnd(const engine::OpEvent& op) override;
    void onOpError(const engine::OpEvent& op, const std::string& what) override;
    void onMemory(const engine::MemoryEvent& ev) override;

private:
    struct OpFrame {
        int64_t token;
        int64_t allocated, freed;  // running totals when the op began
        int64_t firstAlloc;        // first allocation handle made inside the op
    };

    ProfileRecorder m_rec;
    const engine::MemoryPool* m_pool;
    int64_t m_batchSize;
    int64_t m_stepIndex = 0;
    int64_t m_stepStartNs = 0;
    int64_t m_allocated = 0, m_freed = 0;  // bytes, while recording
    int64_t m_lastReserved = -1;
    std::vector<OpFrame> m_ops;
    BlockMap m_live;  // live block -> allocation handle
    std::function<void()> m_onRecordedStep;
};

}  // namespace ts::profiler
