#pragma once
// What CommandRun's two threads share (internal to command_run*.cpp): the handshake of the
// start, the queues the supervisor fills and the recorder drains, the live progress and
// the result. One mutex guards it all; the supervisor holds it only to hand over a batch.
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "core/debug/overflow_store.h"
#include "core/log/log_record.h"
#include "core/run/artifact_watch.h"
#include "core/run/command_run.h"
#include "core/run/scalar_lines.h"

namespace ts::run {

struct QueuedScalar {
    ScalarPoint point;
    int64_t wallNs = 0;
    bool fromHooks = false;  // the Python package's value wins over a printed one
};

struct RunBatch {
    std::vector<log::LogRecord> records;
    std::vector<QueuedScalar> scalars;
    std::vector<debug::OverflowRecord> findings;
    std::vector<std::pair<std::string, int64_t>> dumpFiles;  // path, step
    std::vector<std::string> traces;                         // announced complete traces
    bool empty() const {
        return records.empty() && scalars.empty() && findings.empty() && dumpFiles.empty() &&
               traces.empty();
    }
};

struct CommandRun::State {
    CommandRunOptions options;

    std::mutex mu;
    std::condition_variable cv;
    // Start handshake.
    bool startDone = false;
    Status startStatus;
    // Supervisor -> recorder.
    RunBatch queue;
    size_t queuedRecords = 0;
    int64_t droppedRecords = 0;
    bool supervisorDone = false;
    // The run as it goes.
    CommandProgress progress;
    std::atomic<bool> stopRequested{false};
    std::atomic<bool> pauseWanted{false};  // the supervisor SIGSTOPs / SIGCONTs to match
    bool stopFromRun = false;              // the Python package asked (stop on overflow)
    std::string stopReason;                // why the run is being stopped ("" = the user's Stop)
    std::string failedRank;                // first rank that failed: the reason of the run
    // Filled by the supervisor, completed by the recorder.
    CommandResult result;
    std::unique_ptr<store::TraceStore> store;  // opened by the supervisor, then the recorder's
    ArtifactWatcher watcher;
    std::vector<std::string> warnings;
    int64_t startNs = 0;
    JobControl importControl;
    std::thread supervisor, recorder;

    explicit State(CommandRunOptions o) : options(std::move(o)), watcher(options.settleNs) {}
    void finishStart(Status s) {
        std::lock_guard<std::mutex> lock(mu);
        startDone = true;
        startStatus = std::move(s);
        cv.notify_all();
    }
};

/// The recorder thread's body (command_run_recorder.cpp).
void runRecorder(CommandRun::State& st);
/// The supervisor thread's body (command_run_supervisor.cpp).
void runSupervisor(CommandRun::State& st);

}  // namespace ts::run
