// CommandRun's supervisor thread: starts the processes, reads their output, tails the Python
// package's events, stops them, and says how the run ended (command_run.h); its parts are
// listed in command_run_supervisor.h. This file: the loop and the hand-over to the recorder.
#include "core/run/command_run_supervisor.h"

#include <algorithm>

namespace ts::run {
namespace supervision {

void Supervisor::run() {
    if (!prepare()) return;
    loop();
    end();
}

std::vector<ProcessState> Supervisor::processStates() const {
    std::vector<ProcessState> out;
    for (const Proc& p : m_procs) {
        ProcessState s;
        s.rank = p.rank;
        s.pid = p.child->pid();
        s.running = !p.child->ended();
        s.exitCode = p.child->exitCode();
        s.signal = p.child->termSignal();
        out.push_back(s);
    }
    return out;
}

void Supervisor::handOver() {
    std::lock_guard<std::mutex> lock(m_st.mu);
    handOverLocked();
    CommandProgress& pr = m_st.progress;
    pr.lines = m_lines;
    pr.step = m_lastStep;
    if (m_lastLoss) pr.loss = m_lastLoss;
    pr.processes = processStates();
    pr.lastLine = m_lastLine;
    m_st.cv.notify_all();
}

void Supervisor::handOverLocked() {
    // The two streams of each process are read one after the other: in time order (the
    // time a record carries, else when its line was read) they read as they were printed.
    std::stable_sort(m_batch.records.begin(), m_batch.records.end(),
                     [](const log::LogRecord& a, const log::LogRecord& b) {
                         return a.tsNs.value_or(0) < b.tsNs.value_or(0);
                     });
    RunBatch& q = m_st.queue;
    if (m_st.queuedRecords + m_batch.records.size() > kMaxQueuedRecords) {
        m_st.droppedRecords += static_cast<int64_t>(m_batch.records.size());
        m_batch.records.clear();
    }
    m_st.queuedRecords += m_batch.records.size();
    if (q.records.empty())
        q.records.swap(m_batch.records);
    else
        q.records.insert(q.records.end(), std::make_move_iterator(m_batch.records.begin()),
                         std::make_move_iterator(m_batch.records.end()));
    q.scalars.insert(q.scalars.end(), m_batch.scalars.begin(), m_batch.scalars.end());
    q.findings.insert(q.findings.end(), m_batch.findings.begin(), m_batch.findings.end());
    q.dumpFiles.insert(q.dumpFiles.end(), m_batch.dumpFiles.begin(), m_batch.dumpFiles.end());
    q.traces.insert(q.traces.end(), m_batch.traces.begin(), m_batch.traces.end());
    m_batch = RunBatch();
}

bool Supervisor::allDone() const {
    for (const Proc& p : m_procs)
        if (!p.done) return false;
    return true;
}

void Supervisor::loop() {
    while (!allDone()) {
        pollPipes();
        flushIdle();
        tailEvents(false);
        reap();
        followPause();
        escalate();
        handOver();
    }
}

void Supervisor::setUserRegex() {
    if (!m_spec.lossRegex.empty())
        if (auto re = ScalarRegex::compile(m_spec.lossRegex))
            m_scalars = ScalarLineParser(re.value());
}

}  // namespace supervision

void runSupervisor(CommandRun::State& st) {
    supervision::Supervisor s(st);
    s.setUserRegex();
    s.run();
}

}  // namespace ts::run
