#pragma once
// RunProfiler: profiling of one training run as TrainingJob drives it (the CLI's
// `train --profile` and the Training panel's "Profile" button). attach() hangs a
// ProfilerObserver on the trainer's dispatcher and registers the parameters and optimizer
// state as blocks alive before the window; finish() detaches it and writes the profile into
// the session as a source of kind "profiler" linked to the run (runs.profile_source_id), so
// the timeline, op statistics, Steps, Memory and Advice views and `export --run N` find it.
// On a CUDA device it also records the GPU's activity with the CUPTI collector and writes it
// into the profile (core/profiler/gpu): kernels on their streams, the CUDA API calls under
// the training thread, flows from launch to kernel, and each kernel's "op" arg naming the
// op that launched it.
// Threading: both on the training thread (the one that runs the trainer).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/engine/tensor/tensor.h"
#include "core/profiler/profile_recorder.h"

namespace ts::engine {
class Trainer;
class DeviceBackend;
}  // namespace ts::engine
namespace ts::profiler::gpu {
struct ActivityTrace;
}

namespace ts::profiler {

class ProfilerObserver;

/// What finish() wrote.
struct RunProfileOutcome {
    int64_t sourceId = 0;      // 0: nothing was recorded (no step fell in the window)
    int64_t steps = 0;         // steps recorded
    int64_t droppedSteps = 0;  // steps of the window skipped by the event cap
    int64_t slices = 0, flows = 0, allocations = 0;
    /// Device runs: rows of GPU activity (kernels, copies, CUDA API calls) in the profile,
    /// and why there are none ("" when collected).
    int64_t gpuSlices = 0;
    std::string gpuNote;
};

class RunProfiler {
public:
    /// Attaches to `trainer` (prepared: model, data and optimizer built); its batch size
    /// feeds the samples/s counter.
    static std::unique_ptr<RunProfiler> attach(engine::Trainer& trainer,
                                               const ProfilerOptions& options);
    ~RunProfiler();
    RunProfiler(const RunProfiler&) = delete;
    RunProfiler& operator=(const RunProfiler&) = delete;

    /// From now on, writes each recorded step into the session at `sessionPath` as it ends
    /// (source `label`, linked to `runId` from its first step), as scalars are written: a
    /// run killed later keeps the steps it profiled. finish() must get the same arguments.
    /// A step that cannot be written becomes a warning of finishRun(); the run goes on.
    void writeAsRecorded(const std::string& sessionPath, int64_t runId, const std::string& label);

    /// Detaches and writes what was recorded (and not yet written) to the session at
    /// `sessionPath` as source `label`, linked to `runId` (0 = none). A window no step
    /// reached writes nothing. Errors: the session cannot be opened or written.
    Result<RunProfileOutcome> finish(const std::string& sessionPath, int64_t runId,
                                     const std::string& label);

    /// finish() for TrainingJob: labels the source runLabel() and turns an error into a
    /// line of `warnings` (a failed profile never fails the run).
    RunProfileOutcome finishRun(const std::string& sessionPath, int64_t runId,
                                const std::string& model, std::vector<std::string>& warnings);
    /// "run <id> profile (<model>)".
    static std::string runLabel(int64_t runId, const std::string& model);

    ProfilerObserver& observer() { return *m_observer; }

private:
    RunProfiler() = default;
    void detach();

    void startGpuActivity(engine::Device device);
    void stopGpuActivity();
    /// The GPU rows of the activity file, within the recorded steps (profile_recorder's hook).
    gpu::TraceCounts writeGpuRows(store::StoreWriter& w, int64_t processRow, int64_t threadRow);

    Status writeRecordedStep();

    engine::Trainer* m_trainer = nullptr;
    // writeAsRecorded(): where each recorded step goes, the connection (opened at the first
    // step), and the first error (reported by finishRun).
    std::string m_sessionPath, m_label;
    int64_t m_runId = 0;
    std::unique_ptr<store::TraceStore> m_store;
    std::string m_stepWriteError;
    std::unique_ptr<ProfilerObserver> m_observer;
    engine::DeviceBackend* m_backend = nullptr;  // device runs: the collector's owner
    std::string m_activityPath;                  // the collector's file while it records
    std::string m_gpuNote;                       // why no GPU activity is in the profile
    std::unique_ptr<gpu::ActivityTrace> m_activity;
    int64_t m_windowStart = 0, m_windowEnd = 0;  // the recorded steps, on the profile's clock
};

/// The options a run profile starts from: the first 20 steps (schedule 0,0,20,1 — the first
/// step is kept so its warm-up shows), record_shapes and profile_memory on.
ProfilerOptions defaultRunProfilerOptions();

/// {"source_id","steps","dropped_steps","slices","flows","allocations","schedule",
///  "record_shapes","profile_memory"} for the run summary JSON.
std::string outcomeJson(const RunProfileOutcome& o, const ProfilerOptions& options);

/// Parses a schedule as the CLI and the Training panel take it: four or five comma-separated
/// integers "wait,warmup,active,repeat[,skip_first]" or keys "wait=1,active=3,...".
/// repeat 0 = repeat the cycle until the run ends. False (and `error` set) when malformed.
bool parseScheduleText(const std::string& text, ProfileSchedule* out, std::string* error);
/// "wait=W,warmup=U,active=A,repeat=R[,skip_first=S]" for messages and the run's summary.
std::string scheduleText(const ProfileSchedule& s);

}  // namespace ts::profiler
