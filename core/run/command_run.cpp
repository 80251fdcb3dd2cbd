#include "core/run/command_run.h"

#include "core/common/clock.h"
#include "core/common/data_paths.h"
#include "core/run/command_run_state.h"

namespace ts::run {

CommandRun::CommandRun(CommandRunOptions options) : m_options(std::move(options)) {
    if (m_options.pythonDir.empty()) m_options.pythonDir = pythonHooksDir();
    m_state = std::make_shared<State>(m_options);
}

CommandRun::~CommandRun() {
    if (m_started) {
        requestStop();
        m_state->importControl.cancel();  // closing: do not wait for a big import
        wait();
    }
}

bool CommandRun::start() {
    if (m_started) return false;
    m_started = true;
    State& st = *m_state;
    st.startNs = nowNs();
    if (auto s = validateLaunchSpec(m_options.spec); !s) {
        st.result.status = store::RunStatus::Failed;
        st.result.reason = s.error();
        st.finishStart(s);
        {
            std::lock_guard<std::mutex> lock(st.mu);
            st.progress.state = CommandState::Ended;
        }
        m_finished = true;
        return false;
    }
    st.supervisor = std::thread([&st] { runSupervisor(st); });
    return true;
}

Status CommandRun::waitStarted() {
    State& st = *m_state;
    std::unique_lock<std::mutex> lock(st.mu);
    if (!m_started) return Error{"the run was not started"};
    st.cv.wait(lock, [&] { return st.startDone; });
    return st.startStatus;
}

void CommandRun::requestStop() {
    m_state->stopRequested = true;
}

void CommandRun::pause() {
    m_state->pauseWanted = true;
}

void CommandRun::resume() {
    m_state->pauseWanted = false;
}

const CommandResult& CommandRun::wait() {
    State& st = *m_state;
    if (st.supervisor.joinable()) st.supervisor.join();
    if (st.recorder.joinable()) st.recorder.join();
    m_finished = true;
    return st.result;
}

CommandProgress CommandRun::progress() const {
    State& st = *m_state;
    std::lock_guard<std::mutex> lock(st.mu);
    CommandProgress p = st.progress;
    if (p.state != CommandState::Ended && st.startNs > 0)
        p.elapsedS = static_cast<double>(nowNs() - st.startNs) / 1e9;
    return p;
}

}  // namespace ts::run
