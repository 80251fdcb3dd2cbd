#pragma once
// Training callbacks (MindSpore's Callback): begin, epoch_begin, epoch_end, step_begin,
// step_end, end, each given a RunContext whose originalArgs() exposes the run's state and
// whose requestStop() ends the run cleanly after the current step.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ts::engine {

class Optimizer;
class Cell;
class Trainer;
class DataPipeline;
class Callback;

/// cb_params, as MindSpore's RunContext.original_args(): the main attributes under their
/// MindSpore names, plus what this engine adds (lr, loss_scale, overflow, throughput, the
/// last evaluation). Callbacks may read and change any field and keep their own values in
/// `user` (MindSpore's "cb_params.init_time = ..." idiom); the trainer only reads
/// cur_epoch_num / cur_step_num back, never a callback's changes to the others.
struct RunArgs {
    std::string loss_fn = "SoftmaxCrossEntropyWithLogits";  // the loss function's name
    Optimizer* optimizer = nullptr;
    DataPipeline* train_dataset = nullptr;
    int epoch_num = 0;      // epochs to run
    int64_t batch_num = 0;  // steps per epoch
    Cell* train_network = nullptr;
    int cur_epoch_num = 0;                      // 1-based
    int64_t cur_step_num = 0;                   // global, 1-based
    std::string parallel_mode = "stand_alone";  // one device; shards split the data only
    std::vector<Callback*> list_callback;       // every callback of the run, in call order
    double net_outputs = 0;                     // the step's loss

    int64_t step_in_epoch = 0;  // 1-based
    double lr = 0;
    double loss_scale = 1;       // the scale for the next step (after this one's update)
    double loss_scale_used = 1;  // the scale this step's loss was multiplied by
    bool overflow = false;       // this step overflowed and was skipped
    int64_t batch_size = 0;
    double samples_per_s = 0;  // over the training loop so far
    double elapsed_s = 0;      // training-loop seconds so far
    std::map<std::string, double>
        eval_results;  // last per-epoch evaluation ("accuracy", "loss", ...)
    Trainer* trainer = nullptr;
    /// Values callbacks add for themselves (e.g. "init_time").
    std::map<std::string, double> user;
};

class RunContext {
public:
    RunArgs& originalArgs() { return m_args; }
    const RunArgs& originalArgs() const { return m_args; }
    /// MindSpore's run_context.request_stop(): ends the run after the current step.
    void requestStop() { requestStop("stop requested by a callback"); }
    /// Ends the run after the current step with status "stopped" (or "failed" when failed).
    void requestStop(const std::string& reason, bool failed = false) {
        if (!m_stop) {
            m_stop = true;
            m_reason = reason;
            m_failed = failed;
        }
    }
    bool stopRequested() const { return m_stop; }
    const std::string& stopReason() const { return m_reason; }
    bool stopIsFailure() const { return m_failed; }

private:
    RunArgs m_args;
    bool m_stop = false;
    bool m_failed = false;
    std::string m_reason;
};

class Callback {
public:
    virtual ~Callback() = default;
    virtual void begin(RunContext&) {}
    virtual void epochBegin(RunContext&) {}
    virtual void epochEnd(RunContext&) {}
    virtual void stepBegin(RunContext&) {}
    virtual void stepEnd(RunContext&) {}
    virtual void end(RunContext&) {}
    /// True for a callback whose stepEnd only reads the step's values (loss, lr, loss scale,
    /// throughput) and stops at most a failing run: a run on a device may then call it one
    /// step late, while the device computes the next step, so that no step waits for the
    /// device (docs/GPU.md). False, the default, for anything that reads or saves the model
    /// or stops the run on a condition: its stepEnd sees the step as it ends.
    virtual bool lateStepEnd() const { return false; }
};

}  // namespace ts::engine
