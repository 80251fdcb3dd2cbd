#pragma once
// The observer interface of the op dispatcher: profilers, dumpers, overflow checkers and the
// crash recorder implement OpObserver and attach to a Dispatcher (see docs/ENGINE.md).
// Every forward and backward op of the engine reports onOpBegin/onOpEnd; the trainer reports
// run, epoch, step and phase boundaries; the memory pool reports allocations.
// All callbacks run on the training thread, synchronously; keep them cheap.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine/tensor/memory_pool.h"
#include "core/engine/tensor/tensor.h"

namespace ts::engine {

/// One op execution.
struct OpEvent {
    std::string_view opType;  // "Conv2D", "MatMul", "ReLUGrad", ...
    std::string scopeName;  // Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op5
                            // (backward ops: Gradients/<forward scope>/<opType>-op<seq>)
    int64_t seqId = 0;      // per-step sequence id, 0-based, forward and backward together
    int64_t opIndex = 0;    // the N of "-opN": per-step index of this op among forward ops
    bool backward = false;
    int64_t step = 0;  // global step (1-based inside a training run, 0 outside)
    int epoch = 0;
    int64_t startNs = 0;  // steady-clock ns when the op began (onOpEnd: also endNs)
    int64_t endNs = 0;
    /// Inputs as the kernel receives them. In onOpBegin an observer may replace entries
    /// (same shape and dtype) to feed recorded data ("load mode").
    std::vector<Tensor>* inputs = nullptr;
    /// Outputs; empty in onOpBegin.
    const std::vector<Tensor>* outputs = nullptr;
    /// The op's attributes as members of a JSON object ("bytes":400,"algorithm":"ring"),
    /// empty for most ops; collectives carry theirs (the profile shows them as args).
    std::string_view attrs;
    /// onOpEnd only: attributes the kernel learnt while it ran (Dispatcher::setEndAttrs), in
    /// the same form, e.g. a collective's own time on the comm thread; usually empty.
    std::string_view endAttrs;
};

/// Training phases a step splits into.
enum class Phase { DataLoading, Forward, Backward, Optimizer, Callbacks };
const char* phaseName(Phase p);

/// Run-level facts for observers.
struct StepInfo {
    int epoch = 0;     // 1-based
    int64_t step = 0;  // global, 1-based
    int64_t stepInEpoch = 0;
    double loss = 0;        // valid in onStepEnd
    double lossScale = 1;   // current loss scale (1 without mixed precision)
    bool overflow = false;  // onStepEnd: this step's gradients overflowed and it was skipped
};

class OpObserver {
public:
    virtual ~OpObserver() = default;
    virtual void onOpBegin(OpEvent& /*op*/) {}
    virtual void onOpEnd(const OpEvent& /*op*/) {}
    /// An op's kernel threw; the exception propagates after this call.
    virtual void onOpError(const OpEvent& /*op*/, const std::string& /*what*/) {}
    virtual void onRunBegin(const std::string& /*configJson*/) {}
    virtual void onRunEnd(const std::string& /*status*/, const std::string& /*reason*/) {}
    virtual void onEpochBegin(int /*epoch*/) {}
    virtual void onEpochEnd(int /*epoch*/) {}
    virtual void onStepBegin(const StepInfo& /*step*/) {}
    virtual void onStepEnd(const StepInfo& /*step*/) {}
    virtual void onPhaseBegin(Phase /*phase*/) {}
    virtual void onPhaseEnd(Phase /*phase*/) {}
    /// Dynamic/static loss scale: a step whose gradients overflowed was skipped.
    virtual void onOverflow(const StepInfo& /*step*/, double /*newScale*/) {}
    /// Allocation or free in the pool the run uses (only while attached to a running trainer).
    virtual void onMemory(const MemoryEvent& /*ev*/) {}
};

}  // namespace ts::engine
