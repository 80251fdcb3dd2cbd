#pragma once
// TrainingJob: one training run as both front ends start it — `trainscope-cli train` and the
// studio's Training panel. It builds the Trainer from a TrainConfig, opens the run's row in the
// session store (RunRecorder), adds the built-in callbacks the options ask for, runs, and
// records the end (status, reason, summary JSON). Instrumentation that hangs on the op
// dispatcher (profiler, dumps, overflow checks, crash recorder) is attached in prepare() and
// finished in run(), so both front ends get the same behaviour from the same options.
//
// Threading: prepare() and run() on the training thread; trainer().requestStop()/pause()/
// resume()/progress() from any thread (see Trainer).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/engine/trainer.h"

namespace ts::engine {
class ModelCheckpoint;
class RunRecorder;
}  // namespace ts::engine

namespace ts::run {

struct JobOptions {
    engine::TrainConfig train;
    std::string sessionPath;  // required: the session the run is recorded in
    std::string runName;      // "" = "<model> on <dataset>"

    // Console-style loss printing (LossMonitor); NaN/Inf loss always stops the run.
    int64_t printEvery = 0;
    std::function<void(const std::string&)> print;

    // ModelCheckpoint (off when checkpointDir is empty and saveOnStop is false). It also saves
    // the state the run ends in (completed or stopped), so a stopped run can be resumed.
    std::string checkpointDir;
    int64_t saveSteps = 0;
    int saveEpochs = 1;
    int keepCheckpoints = 5;
    // Save the end state even without a checkpointDir (then in defaultCheckpointDir()).
    bool saveOnStop = false;

    // SummaryCollector's TensorBoard event file (off when empty).
    std::string tensorboardDir;

    // EarlyStop (by epoch-mean loss or an eval metric), StopAtTime, SaveBestCheckpoint.
    bool earlyStop = false;
    std::string earlyStopMonitor = "loss";
    int earlyStopPatience = 3;
    double earlyStopMinDelta = 0.0;
    double earlyStopLossThreshold = 0.0;
    double stopAfterSeconds = 0.0;  // 0 = off
    std::string saveBestMetric;     // "" = off; needs evalEachEpoch and checkpointDir
};

class TrainingJob {
public:
    explicit TrainingJob(JobOptions options);
    ~TrainingJob();
    TrainingJob(const TrainingJob&) = delete;
    TrainingJob& operator=(const TrainingJob&) = delete;

    /// Builds the model and data, opens the run in the session, adds callbacks and
    /// instrumentation. Errors are the ones a user can act on (bad option, missing dataset,
    /// unwritable session).
    Status prepare();
    /// Trains (calls prepare() when not done), records the end of the run and returns the
    /// result. Never throws.
    engine::TrainResult run();

    engine::Trainer& trainer() { return *m_trainer; }
    const JobOptions& options() const { return m_options; }
    /// The run's id in the session (0 before prepare()).
    int64_t runId() const;
    /// Where checkpoints go: options().checkpointDir, or "<session>-checkpoints/run-<id>"
    /// beside the session file when only saveOnStop asked for them ("" before prepare()).
    std::string checkpointDir() const;
    /// Checkpoint files the run kept, oldest first (call once run() has returned).
    std::vector<std::string> checkpoints() const;
    /// The result as the CLI prints it with --json and the session keeps in runs.summary:
    /// {"status","reason","epochs","steps","samples_per_s","train_seconds","final":{"loss"},
    /// "eval":{"accuracy","loss","precision","recall","f1"}} as the issue lists, then "run_id",
    /// "overflow_steps", "memory":{"peak_bytes","reserved_bytes"}, "per_class":{"precision",
    /// "recall","f1": [one per class]}, "confusion_matrix": [[row per true class]],
    /// "checkpoints": [...] and "warnings".
    std::string summaryJson(const engine::TrainResult& r) const;

private:
    JobOptions m_options;
    std::unique_ptr<engine::Trainer> m_trainer;
    std::unique_ptr<engine::RunRecorder> m_recorder;
    std::shared_ptr<engine::ModelCheckpoint> m_checkpoint;
    std::string m_checkpointDir;
    bool m_prepared = false;
};

}  // namespace ts::run
