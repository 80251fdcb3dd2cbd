#include "views/training/command_run_controller.h"

CommandRunController::CommandRunController(QObject* parent) : QObject(parent) {
    m_timer.setInterval(kProgressMs);
    connect(&m_timer, &QTimer::timeout, this, &CommandRunController::poll);
}

CommandRunController::~CommandRunController() = default;  // ~CommandRun stops and waits

bool CommandRunController::start(ts::run::CommandRunOptions options) {
    if (m_run) return false;
    m_run = std::make_unique<ts::run::CommandRun>(std::move(options));
    m_runId = 0;
    m_paused = false;
    m_last = {};
    m_run->start();
    m_timer.start();
    return true;
}

void CommandRunController::pause() {
    if (!m_run) return;
    m_run->pause();
    m_paused = true;
}

void CommandRunController::resume() {
    if (!m_run) return;
    m_run->resume();
    m_paused = false;
}

void CommandRunController::stop() {
    if (m_run) m_run->requestStop();
}

void CommandRunController::poll() {
    if (!m_run) return;
    ts::run::CommandProgress p = m_run->progress();
    const bool more = p.traces != m_last.traces || p.dumpFiles != m_last.dumpFiles ||
                      p.overflowFindings != m_last.overflowFindings ||
                      p.rdrRecords != m_last.rdrRecords;
    m_last = p;
    if (m_runId == 0 && p.runId > 0 && p.state != ts::run::CommandState::Starting) {
        m_runId = p.runId;
        emit started(m_runId);
    }
    if (m_runId > 0) emit progress(p);
    if (more) emit artifactsChanged();
    if (p.state != ts::run::CommandState::Ended) return;
    m_timer.stop();
    auto run = std::move(m_run);
    const ts::run::CommandResult result = run->wait();
    m_runId = result.runId;
    m_paused = false;
    emit finished(result);
}
