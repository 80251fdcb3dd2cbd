#pragma once
// CommandRun: a user's training command as a run of a session (kind 'command'). The CLI's
// `launch` and the studio's Training panel both drive one (docs/RUNS.md).
//
//   CommandRun run(options);
//   run.start();                  // returns at once; the run starts on its own threads
//   if (auto s = run.waitStarted(); !s) ...   // the run row, the processes (or why not)
//   ... run.progress() from any thread, run.requestStop() from any thread ...
//   CommandResult r = run.wait(); // after the processes ended and everything was written
//
// Threads (both owned here; the caller's thread is never blocked but by wait*()):
//   - the supervisor starts the processes (one per rank) — so PR_SET_PDEATHSIG ties them
//     to a thread that lives as long as they do — reads their stdout/stderr line by line
//     (logs: log_tokenizer.h; scalars: scalar_lines.h), tails the Python package's event
//     files, and ends them on Stop: SIGINT to each process group, SIGTERM after the grace
//     period, SIGKILL after as long again. A rank that fails stops the others.
//   - the recorder owns the session connection: it writes logs, scalars, findings and dump
//     files in one transaction every 100 ms, imports the traces that appear in the watched
//     folders (through `importArtifact`: importers live above core), tails TensorBoard
//     files, records crash-record folders, and closes the run with its status and summary.
// The supervisor never touches SQLite, so a slow disk or a long import never stops it
// from draining the pipes (a child blocked on a full pipe would stall the training).
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/job_control.h"
#include "core/common/result.h"
#include "core/run/launch_env.h"
#include "core/run/launch_spec.h"
#include "core/store/status.h"

namespace ts::store {
class TraceStore;
}

namespace ts::run {

/// What importing one artifact did (the front end's importer registry does the work).
struct ArtifactImport {
    bool recognised = false;  // false: no importer reads it (not a trace): nothing written
    int64_t sourceId = 0;
    std::string kind;                                          // chrome_json, nsys_sqlite, ...
    store::SourceStatus status = store::SourceStatus::Failed;  // complete | partial | failed
    std::string error;
    int64_t slices = 0;
};
using ArtifactImporter = std::function<ArtifactImport(
    const std::string& path, store::TraceStore& store, JobControl& control)>;

struct CommandRunOptions {
    LaunchSpec spec;
    std::string sessionPath;          // created when missing; "" = supervise only, record nothing
    std::string pythonDir;            // the Python package ("" = pythonHooksDir())
    ArtifactImporter importArtifact;  // null: traces are listed, not imported
    std::string cuptiLibrary;  // the CUPTI collector for spec.recordCuda ("" = the built one)
    /// Called on the supervisor thread with every line the processes print (the CLI echoes
    /// them); `rank` and `isStderr` say where it came from.
    std::function<void(int rank, bool isStderr, std::string_view line)> echo;
    int64_t settleNs = 1'000'000'000;  // a watched file is complete after this long unchanged
};

struct ProcessState {
    int rank = 0;
    int64_t pid = 0;
    bool running = false;
    std::optional<int> exitCode, signal;
};

struct TraceImportInfo {
    std::string path;
    int64_t sourceId = 0;
    int64_t slices = 0;
    std::optional<store::SourceStatus> status;  // none: not imported (no importer given)
    /// The status's word, or "not imported".
    std::string statusText() const { return status ? store::statusName(*status) : "not imported"; }
};

/// Where a command run is (CommandProgress::state).
enum class CommandState { Starting, Running, Paused, Stopping, Ended };

/// A live snapshot for the studio (every field a copy).
struct CommandProgress {
    CommandState state = CommandState::Starting;
    int64_t runId = 0;
    double elapsedS = 0;
    int64_t lines = 0;    // lines read from the processes
    int64_t records = 0;  // log records written to the session
    int64_t scalarPoints = 0;
    int64_t step = 0;  // the last step the processes reported (Python package or scalars)
    std::optional<double> loss;
    int64_t traces = 0, dumpFiles = 0, overflowFindings = 0, rdrRecords = 0;
    std::vector<ProcessState> processes;
    std::string stopStage;  // "", "SIGINT", "SIGTERM", "SIGKILL"
    std::string lastLine;
};

/// The end of a run, as `trainscope-cli launch --json` prints it and runs.summary keeps it.
struct CommandResult {
    int64_t runId = 0;
    store::RunStatus status = store::RunStatus::Failed;  // completed | failed | stopped
    std::string reason;
    std::optional<int> exitCode, signal;
    double durationS = 0;
    int64_t logLines = 0;
    std::map<std::string, int64_t> scalars;  // tag -> points
    std::vector<TraceImportInfo> traces;
    std::vector<std::string> dumps;
    std::vector<std::string> rdr;
    int64_t overflowFindings = 0;
    std::vector<ProcessState> processes;
    std::vector<std::string> warnings;
    std::string runDir;
    std::vector<EnvChange> environment;  // what the studio set for rank 0
    /// The process's exit status as a shell reports it: the code, 128 + the signal, or 1
    /// when the run could not start.
    int shellExitCode() const;
    std::string toJson() const;
};

class CommandRun {
public:
    explicit CommandRun(CommandRunOptions options);
    /// Stops a run still going (as requestStop()) and waits for it.
    ~CommandRun();
    CommandRun(const CommandRun&) = delete;
    CommandRun& operator=(const CommandRun&) = delete;

    /// Starts the threads; false when already started or the settings are invalid (then
    /// waitStarted() and wait() say why).
    bool start();
    /// Blocks until the run is recorded and its processes started, or failed to.
    Status waitStarted();
    /// Ends the run: SIGINT, then SIGTERM and SIGKILL after the grace period. Any thread.
    void requestStop();
    /// Holds the processes (SIGSTOP to each process group) / lets them go on (SIGCONT).
    /// Any thread; a stop while paused lets them go on first so they can end.
    void pause();
    void resume();
    bool finished() const { return m_finished.load(); }
    /// Blocks until everything is written; the result (also after a failed start).
    const CommandResult& wait();
    CommandProgress progress() const;
    const CommandRunOptions& options() const { return m_options; }

    struct State;  // shared with the threads (command_run_*.cpp)

private:
    CommandRunOptions m_options;
    std::shared_ptr<State> m_state;
    std::atomic<bool> m_finished{false};
    bool m_started = false;
};

}  // namespace ts::run
