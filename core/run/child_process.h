#pragma once
// ChildProcess: one process of a command run, started with fork + execve so that it
//   - runs in a session and a process group of its own (setsid: Stop signals the whole
//     group, and core/run/process_family.h finds what left it), with SIGINT, SIGTERM and
//     SIGPIPE at their defaults and no signal blocked;
//   - dies with the thread that started it (PR_SET_PDEATHSIG = SIGKILL): a launcher that
//     is killed or crashes leaves no orphan behind. So the thread that calls spawn() must
//     live as long as the child (CommandRun's supervisor thread does);
//   - has stdin on /dev/null, stdout and stderr on two pipes (read ends non-blocking), and
//     no other descriptor of ours (everything above 2 is close-on-exec);
//   - reports a program that cannot be started (not found, not executable, a working
//     folder that does not exist) as an error of spawn(), with errno's text, not as a
//     child that exits 127.
#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/run/launch_env.h"

namespace ts::run {

struct SpawnOptions {
    std::string program;            // a path, or a name looked up on the PATH of `env`
    std::vector<std::string> args;  // without the program
    std::string cwd;                // "" = ours
    EnvList env;                    // the whole environment
};

class ChildProcess {
public:
    static Result<std::unique_ptr<ChildProcess>> spawn(const SpawnOptions& options);
    /// Kills the process group (SIGKILL) when the process still runs, and reaps it.
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    pid_t pid() const { return m_pid; }
    /// Read ends of the child's stdout / stderr (non-blocking); -1 once closed.
    int stdoutFd() const { return m_out; }
    int stderrFd() const { return m_err; }
    void closeStdout();
    void closeStderr();

    /// Sends `sig` to the child's process group; false when it has already been reaped.
    bool signalGroup(int sig);
    /// Reaps the child if it has ended (never blocks); true once it has.
    bool poll();
    bool ended() const { return m_ended; }
    /// The exit code when it exited, nullopt when a signal ended it (or it still runs).
    std::optional<int> exitCode() const { return m_exitCode; }
    /// The signal that ended it, nullopt when it exited (or still runs).
    std::optional<int> termSignal() const { return m_signal; }
    /// "exit code 1", "signal 9 (Killed)", "running".
    std::string describeEnd() const;

private:
    ChildProcess() = default;
    pid_t m_pid = -1;
    int m_out = -1, m_err = -1;
    bool m_ended = false;
    std::optional<int> m_exitCode, m_signal;
};

/// The file execve would run for `program` with this environment and working folder: a
/// program with a '/' as is (relative to `cwd`), else the first executable file of that
/// name on the PATH of `env` (/usr/local/bin:/usr/bin:/bin when PATH is unset); "" when
/// there is none.
std::string resolveProgram(const std::string& program, const EnvList& env, const std::string& cwd);

/// "SIGINT", "SIGTERM", "SIGKILL", ... ("signal N" for others).
std::string signalName(int sig);

}  // namespace ts::run
