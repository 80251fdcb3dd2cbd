#pragma once
// ProcessFamily: a command run's process and everything it started. A ChildProcess starts
// its own session (setsid) and process group, with a token in its environment that every
// process it starts inherits (kFamilyVariable); its family is every process of that session
// or group, every descendant of a member (/proc/<pid>/stat: parent, group, session, start
// time) and every process whose environment holds the token (/proc/<pid>/environ: a daemon
// that left the session and whose parent died before a scan saw it). Members are remembered
// by pid and start time, so a reused pid is never taken for one. The supervisor stops and waits for
// the family, not only the first process: a run is reported ended only when no member runs any more
// (docs/RUNS.md). Linux only (/proc); used from the supervisor thread.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ts::run {

/// The environment variable that marks a family's processes.
inline constexpr const char* kFamilyVariable = "TRAINSCOPE_PROCESS_FAMILY";

class ProcessFamily {
public:
    /// A token no other family of this machine has (this process, the time, `rank`).
    static std::string makeToken(int rank);
    /// The family of `leader` (a process that leads its own session and group, started with
    /// kFamilyVariable=`token` in its environment; "" = no token).
    ProcessFamily(pid_t leader, std::string token) : m_leader(leader), m_token(std::move(token)) {}

    /// Scans the process table: adds the members started since, forgets those gone.
    void refresh();
    /// Members that still run (not zombies), `leader` included while it runs, as of the
    /// last refresh().
    std::vector<pid_t> running() const;
    /// Sends `sig` to the group, the session and every member that still runs.
    void signal(int sig) const;

private:
    struct Member {
        pid_t pid;
        uint64_t startTime;  // clock ticks after boot (/proc/<pid>/stat field 22)
        bool zombie;
    };
    bool hasToken(pid_t pid) const;

    pid_t m_leader;
    std::string m_token;
    std::vector<Member> m_members;
    std::unordered_map<pid_t, uint64_t> m_strangers;  // looked at, not members: start time
};

}  // namespace ts::run
