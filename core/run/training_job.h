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
#include "core/engine/train/trainer.h"
#include "core/profiler/run_profiler.h"

namespace ts::engine {
class ModelCheckpoint;
class RunRecorder;
}  // namespace ts::engine
namespace ts::debug {
class DebugJob;
}
namespace ts::rdr {
class RdrRun;
}
namespace ts::log {
class RunLogCapture;
}
namespace ts::dist {
class ProcessGroup;
}

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

    // ---- Tensor dumps and overflow checks (core/debug/debug_job.h) ----
    std::string dumpConfig;       // dump.json path: per-op HDF5 dumps, load mode ("" = off)
    std::string dumpConfigJson;   // dump.json text (the GUI builds it); wins over dumpConfig
    bool overflowCheck = false;   // count NaN/Inf after every op; findings into the session
    bool stopOnOverflow = false;  // stop the run at the first finding
    std::string overflowDumpDir;  // offending ops dumped here ("" = dump_path or <session>.dumps)

    // ---- Profiler (core/profiler/run_profiler.h, docs/PROFILING.md) ----
    // profile = true records, for the steps profiler.schedule picks, every op (scope, input
    // shapes and dtypes, bytes), the ProfilerStep#N and phase slices, memory and throughput
    // counters, and writes them at the end as the run's profile (a source of kind
    // "profiler" linked to the run). A front end needs only a "Profile" checkbox and the
    // schedule fields wait / warmup / active / repeat (defaults: 0, 0, 20, 1 = the first 20
    // steps, first-step warm-up included); record_shapes and profile_memory default on.
    bool profile = false;
    profiler::ProfilerOptions profiler = profiler::defaultRunProfilerOptions();

    // --- Crash recorder and logs (issue 6; core/debug/rdr/rdr_run.h,
    // core/log_store/run_log_capture.h) Running Data Recorder config file ({"rdr": {"enable",
    // "mode", "path"}}; `train --rdr`);
    // "" = none. Each field in the file wins over MS_RDR_ENABLE / MS_RDR_MODE / MS_RDR_PATH.
    std::string rdrConfigPath;
    std::string rdrConfigJson;      // the same JSON as text (the studio's form); wins over the file
    bool rdrUseEnvironment = true;  // honour MS_RDR_* (and RANK_ID)
    // Copy the process's log records into the session's logs table while the run lives.
    bool logsToSession = true;

    // ---- Data parallel (issue 15; docs/DISTRIBUTED.md) ----
    // When the environment makes this process a rank of a larger world (RANK / WORLD_SIZE,
    // mpirun's or srun's variables, RANK_ID / RANK_SIZE), prepare() connects it to the other
    // ranks and trains its share; sessionPath is then a folder and this rank records into
    // <folder>/rank_<rank>.tscope. Off: always a single process.
    bool joinWorldFromEnvironment = true;
    // The Training panel's "Processes": above 1, the studio runs the job as ranks of
    // `trainscope-cli train` (core/run/rank_command.h) instead of in its own thread.
    int processes = 1;
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
    /// The RDR export folder (<path>/rank_<id>/rdr) when run() wrote an export, else "".
    /// The studio opens it after an abnormal end (views/rdr/rdr_auto_open.h).
    std::string rdrExportDir() const;
    /// Where checkpoints go: options().checkpointDir, or "<session>-checkpoints/run-<id>"
    /// beside the session file when only saveOnStop asked for them ("" before prepare()).
    std::string checkpointDir() const;
    /// Checkpoint files the run kept, oldest first (call once run() has returned).
    std::vector<std::string> checkpoints() const;
    /// The result as the CLI prints it with --json and the session keeps in runs.summary:
    /// {"status","reason","epochs","steps","samples_per_s","train_seconds","final":{"loss"},
    /// "eval":{"accuracy","loss","precision","recall","f1"}} as the issue lists, then "run_id",
    /// "rdr_export", "overflow_steps", "memory":{"peak_bytes","reserved_bytes"},
    /// "per_class":{"precision","recall","f1": [one per class]}, "confusion_matrix": [[row per
    /// true class]], "checkpoints": [...], "warnings", "dump"/"overflow" (when on) and
    /// "profile": null or {"source_id","steps","slices","flows","allocations","schedule"}.
    std::string summaryJson(const engine::TrainResult& r) const;
    /// What the profiler wrote (sourceId 0 when off or nothing was recorded); after run().
    const profiler::RunProfileOutcome& profileOutcome() const { return m_profileOutcome; }
    /// This process's rank and the world's size (0 and 1 for a single process); after prepare().
    int rank() const { return m_options.train.rank; }
    int worldSize() const { return m_options.train.worldSize; }
    /// The session this process records into (for a rank: <folder>/rank_<rank>.tscope).
    const std::string& sessionPath() const { return m_options.sessionPath; }

private:
    JobOptions m_options;
    std::unique_ptr<engine::Trainer> m_trainer;
    std::unique_ptr<engine::RunRecorder> m_recorder;
    std::unique_ptr<debug::DebugJob> m_debug;          // dumps / overflow check (null when off)
    std::unique_ptr<rdr::RdrRun> m_rdr;                // crash recorder (null: RDR off)
    std::unique_ptr<log::RunLogCapture> m_logCapture;  // log records -> session
    std::shared_ptr<engine::ModelCheckpoint> m_checkpoint;
    std::string m_checkpointDir;
    bool m_prepared = false;
    std::unique_ptr<profiler::RunProfiler> m_profiler;  // while profiling (options.profile)
    std::unique_ptr<dist::ProcessGroup> m_group;        // data parallel (null: one process)
    Status joinWorld();
    profiler::RunProfileOutcome m_profileOutcome;
};

}  // namespace ts::run
