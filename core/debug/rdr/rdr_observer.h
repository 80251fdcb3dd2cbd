#pragma once
// RdrObserver: feeds a RunningDataRecorder from the engine. Attached to a Trainer's
// dispatcher as an OpObserver it records, on the training thread:
//   - the graph IR: the cell tree with parameters at run begin, then every op of the first
//     training step with input/output types (GraphIrBuilder);
//   - the execution order of every step (seqid, op, scope, input and output shapes), each
//     op recorded before its kernel runs so a fatal signal names the op in flight;
//   - every allocation and free of the trainer's MemoryPool, named after the op (or phase)
//     that made it (<scope>:output<j> for the op's outputs, <scope>:workspace<k> for the
//     rest, <scope>:alloc<k> while the op runs), with pool totals, and failed allocations;
//   - the run state (config, epoch, step, loss, loss scale) after each step.
// It also remembers what went wrong, for the export: the op that threw, the op during which
// an allocation failed, and the first forward op whose float output held NaN/Inf (the
// forward pass is where a NaN loss comes from; weights blown up by an update show there as
// a NaN/Inf input, named; backward and optimizer outputs are not scanned, which keeps the
// cost to one pass over the activations; overflow steps skipped by loss scaling are
// forgotten).
#include <cstdint>
#include <string>
#include <vector>

#include "core/debug/rdr/rdr_graph_ir.h"
#include "core/debug/rdr/rdr_recorder.h"
#include "core/engine/tensor/op_observer.h"

namespace ts::engine {
class Trainer;
}

namespace ts::rdr {

/// An op the observer blames, with the step it ran in.
struct RdrOpRef {
    std::string scope;  // "" = none
    std::string opType;
    int64_t seqid = -1;
    int64_t step = -1;
    std::string what;  // exception text, failed allocation size, or which input was NaN/Inf
    bool found() const { return !scope.empty(); }
};

class RdrObserver : public engine::OpObserver {
public:
    /// `trainer` gives the network (for the IR), the model name and the pool (for its cap).
    RdrObserver(RunningDataRecorder& recorder, engine::Trainer& trainer, bool checkFinite = true);

    void onRunBegin(const std::string& configJson) override;
    void onStepBegin(const engine::StepInfo& step) override;
    void onStepEnd(const engine::StepInfo& step) override;
    void onOverflow(const engine::StepInfo& step, double newScale) override;
    void onPhaseBegin(engine::Phase phase) override;
    void onPhaseEnd(engine::Phase phase) override;
    void onOpBegin(engine::OpEvent& op) override;
    void onOpEnd(const engine::OpEvent& op) override;
    void onOpError(const engine::OpEvent& op, const std::string& what) override;
    void onMemory(const engine::MemoryEvent& ev) override;

    /// The first op that threw in this run (not found when none).
    const RdrOpRef& opError() const { return m_opError; }
    /// The op running when an allocation first failed (opType "" when outside any op).
    const RdrOpRef& allocFailure() const { return m_allocFailure; }
    bool allocFailed() const { return m_allocFailed; }
    /// The first op of the current step, else of the step before, with a NaN/Inf output.
    RdrOpRef nonFiniteOp() const;
    /// Last loss seen at a step end (NaN before the first).
    double lastLoss() const { return m_lastLoss; }

private:
    std::string inputsText(const engine::OpEvent& op) const;
    static std::string outputsText(const engine::OpEvent& op);
    /// Which inputs of an op with a NaN/Inf output were already NaN/Inf.
    std::string blameInputs(const engine::OpEvent& op) const;

    RunningDataRecorder& m_rec;
    engine::Trainer& m_trainer;
    bool m_checkFinite;
    GraphIrBuilder m_ir;
    std::string m_config = "{}";
    int64_t m_irStep = -1;  // the step whose ops go into the IR (the run's first)
    int64_t m_step = 0;
    int m_epoch = 0;
    bool m_inEval = false;
    const char* m_phase = nullptr;
    bool m_inForward = false;
    std::string m_opScope;  // op in flight ("" between ops)
    std::string m_opType;
    int64_t m_opSeq = -1;
    int m_opAllocs = 0;
    std::vector<uint64_t> m_opAllocAddrs;  // blocks the op in flight allocated, in order
    int64_t m_phaseAllocs = 0;
    uint64_t m_peak = 0;
    int64_t m_poolCap = 0;  // the pool's cap (0 = none), read at run begin
    RdrOpRef m_opError, m_allocFailure, m_stepNonFinite, m_prevNonFinite;
    bool m_allocFailed = false;
    double m_lastLoss;
};

/// True when every float element of `t` is finite (other dtypes: true).
bool tensorFinite(const engine::Tensor& t);

}  // namespace ts::rdr
