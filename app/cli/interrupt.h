#pragma once
// Ctrl-C for commands that work in-process (query, dump): while a CancelOnInterrupt lives,
// SIGINT sets a flag and cancels the JobControl given (the work stops at its next check)
// instead of ending the process; the previous handler comes back at the end. Such a command
// exits 130 when interrupted, as a shell reports SIGINT.
#include <atomic>

#include "core/common/job_control.h"

namespace ts::cli {

class CancelOnInterrupt {
public:
    explicit CancelOnInterrupt(JobControl* control = nullptr);
    ~CancelOnInterrupt();
    CancelOnInterrupt(const CancelOnInterrupt&) = delete;
    CancelOnInterrupt& operator=(const CancelOnInterrupt&) = delete;

    /// The flag SIGINT sets (UserQuery watches it).
    static const std::atomic<bool>* flag();
    static bool interrupted() { return flag()->load(); }

private:
    void (*m_previous)(int) = nullptr;
};

/// Throws the CliError of an interrupted command (exit 130) when Ctrl-C was pressed.
void throwIfInterrupted();

}  // namespace ts::cli
