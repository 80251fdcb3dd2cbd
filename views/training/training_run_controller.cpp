#include "views/training/training_run_controller.h"

#include <QThread>

#include "core/engine/model/cell.h"

TrainingRunController::TrainingRunController(QObject* parent) : QObject(parent) {
    qRegisterMetaType<ts::engine::TrainProgress>("ts::engine::TrainProgress");
    qRegisterMetaType<ts::engine::TrainResult>("ts::engine::TrainResult");
    m_timer.setInterval(kProgressMs);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        if (m_job && m_announced) emit progress(m_job->trainer().progress());
    });
}

TrainingRunController::~TrainingRunController() {
    if (!m_thread) return;
    m_job->trainer().resume();
    m_job->trainer().requestStop("the Training panel was closed");
    m_thread->wait();
    delete m_thread;
}

bool TrainingRunController::start(ts::run::JobOptions options) {
    if (m_thread) return false;
    m_options = options;
    m_job = std::make_unique<ts::run::TrainingJob>(std::move(options));
    m_runId = 0;
    m_announced = false;
    m_result = {};
    m_summary.clear();
    m_checkpoints.clear();
    ts::run::TrainingJob* job = m_job.get();
    m_thread = QThread::create([this, job] {
        if (auto s = job->prepare(); !s) {
            m_result.status = "failed";
            m_result.reason = s.error();
            return;
        }
        // Announced on the UI thread; the queued call is dropped if the controller is gone.
        const qint64 id = job->runId(), steps = job->trainer().stepsPerEpoch(),
                     params = job->trainer().network()->parameterCount(false);
        QMetaObject::invokeMethod(
            this, [this, id, steps, params] { announce(id, steps, params); }, Qt::QueuedConnection);
        m_result = job->run();
        m_summary = QString::fromStdString(job->summaryJson(m_result));
        for (const auto& c : job->checkpoints()) m_checkpoints << QString::fromStdString(c);
    });
    m_thread->setObjectName(QStringLiteral("training"));
    connect(m_thread, &QThread::finished, this, &TrainingRunController::onThreadFinished);
    m_thread->start();
    m_timer.start();
    return true;
}

void TrainingRunController::announce(qint64 runId, qint64 stepsPerEpoch, qint64 parameters) {
    if (m_announced || !m_job) return;
    m_announced = true;
    m_runId = runId;
    emit started(runId, stepsPerEpoch, parameters);
}

void TrainingRunController::onThreadFinished() {
    m_timer.stop();
    // A prepared run is announced before its end, even if the queued call is still pending.
    const qint64 id = m_job->runId();
    if (id > 0)
        announce(id, m_job->trainer().stepsPerEpoch(),
                 m_job->trainer().network()->parameterCount(false));
    m_runId = id;
    if (id > 0) emit progress(m_job->trainer().progress());
    m_thread->deleteLater();
    m_thread = nullptr;
    auto job = std::move(m_job);
    emit finished(m_runId, m_result, m_summary, m_checkpoints);
}

void TrainingRunController::pause() {
    if (m_job && m_thread) m_job->trainer().pause();
}

void TrainingRunController::resume() {
    if (m_job && m_thread) m_job->trainer().resume();
}

void TrainingRunController::stop() {
    if (!m_job || !m_thread) return;
    m_job->trainer().resume();
    m_job->trainer().requestStop("stopped by the user");
}

bool TrainingRunController::paused() const {
    return m_job && m_thread && m_job->trainer().paused();
}
