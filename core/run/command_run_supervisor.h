#pragma once
// CommandRun's supervisor thread (internal to command_run*.cpp), one concern a file:
// command_run_supervisor.cpp  the loop and the hand-over of batches to the recorder;
// command_run_start.cpp       the run's folders, environments and processes;
// command_run_session.cpp     the run's row in the session (the only SQLite it touches: the
//                             connection it opens becomes the recorder's);
// command_run_output.cpp      the processes' pipes, read into log records and scalars;
// command_run_events.cpp      the Python package's event files;
// command_run_stop.cpp        pause, the stop sequence, reaping and how the run ended.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/clock.h"
#include "core/log/log_record.h"
#include "core/log/log_tokenizer.h"
#include "core/run/child_process.h"
#include "core/run/command_run_state.h"
#include "core/run/file_tail.h"
#include "core/run/launch_env.h"
#include "core/run/line_splitter.h"
#include "core/run/process_family.h"

namespace ts::run::supervision {

inline constexpr int kPollMs = 50;
inline constexpr int64_t kMs = 1'000'000;
inline constexpr int64_t kIdleFlushNs = 300 * kMs;  // a record with nothing after it is complete
inline constexpr int64_t kPipeDrainNs =
    2000 * kMs;  // grandchildren holding the pipes after the end
inline constexpr size_t kMaxQueuedRecords = 2'000'000;  // beyond: dropped and counted
inline constexpr size_t kReadChunk = 256 * 1024;
inline constexpr int64_t kFamilyScanNs = 200 * kMs;  // how often the process tree is read

struct Stream {
    Stream(bool isErr, std::function<void(log::LogRecord&&)> emit)
        : err(isErr), tokenizer(std::move(emit)) {
        tokenizer.setPlainLines(log::Level::Info, err ? "stderr" : "stdout");
    }
    bool err;
    LineSplitter splitter;
    log::LogTokenizer tokenizer;
    int64_t lastLineNs = 0;
};

struct Proc {
    int rank = 0;
    std::unique_ptr<ChildProcess> child;
    std::unique_ptr<ProcessFamily> family;  // the child and everything it started
    std::unique_ptr<Stream> out, err;
    int stage = 0;  // 0 none, 1 SIGINT sent, 2 SIGTERM, 3 SIGKILL
    int64_t deadline = 0;
    int64_t endedAtNs = 0;
    // After the child ended by itself, what it left running is ended: 1 SIGTERM sent,
    // 2 SIGKILL sent, 3 given up (a process that ignores SIGKILL: stuck in the kernel).
    int cleanup = 0;
    int64_t cleanupDeadline = 0;
    bool done = false;
    std::string lastException;  // last line of the last Python traceback on its output
};

struct EventTail {
    explicit EventTail(std::string path, int r) : tail(std::move(path)), rank(r) {}
    FileTail tail;
    LineSplitter splitter;
    int rank;
};

/// The exception line of a traceback record: the first line after its last frame
/// ("RuntimeError: boom"); MindSpore's call stack may follow it.
std::string exceptionLine(const std::string& message);

class Supervisor {
public:
    explicit Supervisor(CommandRun::State& st) : m_st(st), m_spec(st.options.spec) {}

    void run();
    void setUserRegex();

private:
    int64_t now() const { return nowNs(); }

    // command_run_start.cpp
    bool fail(const std::string& why);
    bool prepare();

    // command_run_session.cpp
    /// Opens the session and adds the run's row (m_runId); false after fail().
    bool beginRunRow();
    /// Ends the run's row as failed with `reason`, when it was added.
    void endRunRowFailed(const std::string& reason);

    // command_run_output.cpp
    void onRecord(Proc& p, log::LogRecord&& r);
    void onLine(Proc& p, Stream& s, std::string_view line);
    // Reads what `fd` has; false at end of file.
    bool drain(Proc& p, Stream& s, int fd);
    void closeStream(Proc& p, Stream& s);
    void pollPipes();
    // A record with nothing after it for a while is complete: show it now.
    void flushIdle();

    // command_run_events.cpp
    void tailEvents(bool final);
    void onEventLine(int rank, std::string_view line);

    // command_run_stop.cpp
    // Pause and resume: SIGSTOP / SIGCONT to every process group; a stop ends any pause.
    void followPause();
    // The stop sequence: SIGINT, SIGTERM after the grace period, SIGKILL after as long again.
    void escalate();
    void noteStage(const std::string& stage);
    void reap();
    /// Reads the process tree (every kFamilyScanNs, or now with `force`).
    void scanFamilies(bool force);
    /// Ends what a child that ended by itself left running (SIGTERM, SIGKILL after the grace
    /// period); true once nothing of its family runs.
    bool familyEnded(Proc& p);
    void end();
    std::string graceText() const;

    // command_run_supervisor.cpp
    std::vector<ProcessState> processStates() const;
    void handOver();
    // Appends the batch to the shared queue (records beyond kMaxQueuedRecords are dropped
    // and counted: the session could not keep up). Caller holds m_st.mu.
    void handOverLocked();
    bool allDone() const;
    void loop();

    CommandRun::State& m_st;
    LaunchSpec m_spec;  // a copy: supervising only switches the Python package off
    int64_t m_runId = 0;
    RunPaths m_paths;
    std::vector<Proc> m_procs;
    RunBatch m_batch;
    ScalarLineParser m_scalars;
    std::map<std::string, EventTail> m_events;
    int64_t m_lastEventScan = 0;
    int64_t m_lineNs = 0;
    int64_t m_lines = 0;
    int64_t m_lastStep = 0;
    std::optional<double> m_lastLoss;
    std::string m_lastLine;
    int m_badEvents = 0;
    bool m_failing = false;  // a rank failed: the others are being stopped
    bool m_runStop = false;  // the Python package asked to stop
    int m_runStopRank = 0;
    int m_stage = 0;  // the furthest signal sent: 1 SIGINT, 2 SIGTERM, 3 SIGKILL
    int64_t m_lastFamilyScan = 0;
    std::vector<pid_t> m_leftRunning;  // processes not ended even by SIGKILL
    bool m_paused = false;
};

}  // namespace ts::run::supervision
