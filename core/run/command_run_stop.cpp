// Pause (SIGSTOP / SIGCONT), the stop sequence (SIGINT, SIGTERM, SIGKILL), reaping the
// processes and how the run ended.
#include "core/run/command_run_supervisor.h"

#include <signal.h>

#include <cstdio>

namespace ts::run::supervision {

void Supervisor::followPause() {
    const bool want =
        m_st.pauseWanted.load() && !m_st.stopRequested.load() && !m_failing && !m_runStop;
    if (want == m_paused) return;
    for (Proc& p : m_procs) p.family->signal(want ? SIGSTOP : SIGCONT);
    m_paused = want;
    std::lock_guard<std::mutex> lock(m_st.mu);
    if (m_st.progress.state == CommandState::Running || m_st.progress.state == CommandState::Paused)
        m_st.progress.state = want ? CommandState::Paused : CommandState::Running;
}

void Supervisor::escalate() {
    const int64_t t = now();
    const auto grace = static_cast<int64_t>(m_spec.graceSeconds * 1e9);
    const bool userStop = m_st.stopRequested.load();
    for (Proc& p : m_procs) {
        // A shell that died of SIGINT may leave its program running: the stop goes on until
        // nothing of the family runs.
        if (p.child->ended() && p.family->running().empty()) continue;
        const bool wanted = userStop || m_failing || m_runStop;
        if (!wanted) continue;
        if (p.stage == 0) {
            // The rank that asked to stop ends itself; signal it only if it does not.
            if (!userStop && !m_failing && m_runStop && p.rank == m_runStopRank) {
                if (p.deadline == 0) p.deadline = t + grace;
                if (t < p.deadline) continue;
            }
            p.family->signal(SIGINT);
            p.stage = 1;
            p.deadline = t + grace;
            noteStage("SIGINT");
        } else if (p.stage == 1 && t >= p.deadline) {
            p.family->signal(SIGTERM);
            p.stage = 2;
            p.deadline = t + grace;
            noteStage("SIGTERM");
        } else if (p.stage == 2 && t >= p.deadline) {
            p.family->signal(SIGKILL);
            p.stage = 3;
            p.deadline = t + grace;
            noteStage("SIGKILL");
        }
    }
}

void Supervisor::noteStage(const std::string& stage) {
    const int order = stage == "SIGINT" ? 1 : stage == "SIGTERM" ? 2 : 3;
    if (order <= m_stage) return;
    m_stage = order;
    std::lock_guard<std::mutex> lock(m_st.mu);
    m_st.progress.stopStage = stage;
    m_st.progress.state = CommandState::Stopping;
}

void Supervisor::scanFamilies(bool force) {
    const int64_t t = now();
    if (!force && t - m_lastFamilyScan < kFamilyScanNs) return;
    m_lastFamilyScan = t;
    for (Proc& p : m_procs)
        if (!p.done) p.family->refresh();
}

bool Supervisor::familyEnded(Proc& p) {
    const std::vector<pid_t> running = p.family->running();
    if (running.empty()) return true;
    const int64_t t = now();
    if (p.stage > 0) {  // a stop is under way: escalate() goes on with it, up to SIGKILL
        if (p.stage < 3 || t < p.deadline || p.cleanup == 3) return p.cleanup == 3;
        m_leftRunning.insert(m_leftRunning.end(), running.begin(), running.end());
        p.cleanup = 3;
        return true;
    }
    const auto grace = static_cast<int64_t>(m_spec.graceSeconds * 1e9);
    if (p.cleanup == 0 || (p.cleanup < 3 && t >= p.cleanupDeadline)) {
        if (p.cleanup == 2) {  // not even SIGKILL ended them: report, do not wait forever
            m_leftRunning.insert(m_leftRunning.end(), running.begin(), running.end());
            p.cleanup = 3;
            return true;
        }
        p.family->signal(p.cleanup == 0 ? SIGTERM : SIGKILL);
        ++p.cleanup;
        p.cleanupDeadline = t + grace;
    }
    return p.cleanup == 3;
}

void Supervisor::reap() {
    const int64_t t = now();
    scanFamilies(false);
    for (Proc& p : m_procs) {
        if (p.done) continue;
        if (p.child->poll() && p.endedAtNs == 0) {
            p.endedAtNs = t;
            p.family->refresh();
            const bool ok = p.child->exitCode() && *p.child->exitCode() == 0;
            if (!ok && !m_failing && !m_st.stopRequested && !m_runStop && m_spec.nproc > 1) {
                m_failing = true;
                std::lock_guard<std::mutex> lock(m_st.mu);
                m_st.failedRank = std::to_string(p.rank);
            }
        }
        if (p.endedAtNs == 0) continue;
        const bool pipesOpen = p.child->stdoutFd() >= 0 || p.child->stderrFd() >= 0;
        if (pipesOpen && t - p.endedAtNs > kPipeDrainNs) {
            // Something the process started still holds its output: stop listening.
            if (p.child->stdoutFd() >= 0) closeStream(p, *p.out);
            if (p.child->stderrFd() >= 0) closeStream(p, *p.err);
        }
        if (p.child->stdoutFd() < 0 && p.child->stderrFd() < 0 && familyEnded(p)) {
            p.out->tokenizer.finish();
            p.err->tokenizer.finish();
            p.done = true;
        }
    }
}

void Supervisor::end() {
    tailEvents(true);
    for (auto& entry : m_events) {
        EventTail& e = entry.second;
        e.splitter.finish([&](std::string_view line) { onEventLine(e.rank, line); });
    }
    // How it ended.
    CommandResult& r = m_st.result;
    std::lock_guard<std::mutex> lock(m_st.mu);
    r.processes = processStates();
    const Proc* firstBad = nullptr;
    for (const Proc& p : m_procs) {
        const bool ok = p.child->exitCode() && *p.child->exitCode() == 0;
        if (!ok &&
            (!firstBad || (!m_st.failedRank.empty() && std::to_string(p.rank) == m_st.failedRank)))
            firstBad = &p;
    }
    const Proc& lead = firstBad ? *firstBad : m_procs.front();
    r.exitCode = lead.child->exitCode();
    r.signal = lead.child->termSignal();
    const std::string who = m_spec.nproc > 1 ? "rank " + std::to_string(lead.rank) + ": " : "";
    const std::string how = lead.child->describeEnd();
    if (m_st.stopRequested || m_runStop) {
        r.status = store::RunStatus::Stopped;
        std::string why = m_st.stopReason.empty() ? "stopped by the user" : m_st.stopReason;
        if (m_stage == 1) why += " (SIGINT)";
        if (m_stage == 2) why += " (it did not end within " + graceText() + " of SIGINT: SIGTERM)";
        if (m_stage == 3) why += " (SIGINT and SIGTERM did not end it: SIGKILL)";
        r.reason = why;
    } else if (!firstBad) {
        r.status = store::RunStatus::Completed;
        r.reason = m_spec.nproc > 1
                       ? "all " + std::to_string(m_spec.nproc) + " processes exited with code 0"
                       : "exit code 0";
    } else {
        r.status = store::RunStatus::Failed;
        r.reason =
            lead.lastException.empty() ? who + how : who + lead.lastException + " (" + how + ")";
        if (m_spec.nproc > 1) r.reason += "; the other ranks were stopped";
    }
    if (!m_leftRunning.empty()) {
        r.reason += "; " + std::to_string(m_leftRunning.size()) +
                    " process(es) it started did not end even with SIGKILL (pid";
        for (pid_t pid : m_leftRunning) r.reason += " " + std::to_string(pid);
        r.reason += ")";
    }
    r.logLines = m_lines;
    r.durationS = static_cast<double>(now() - m_st.startNs) / 1e9;
    m_st.progress.processes = r.processes;
    m_st.progress.lines = m_lines;
    handOverLocked();
    m_st.supervisorDone = true;
    m_st.cv.notify_all();
}

std::string Supervisor::graceText() const {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g s", m_spec.graceSeconds);
    return buf;
}

}  // namespace ts::run::supervision
