#include "views/common/job_tracker.h"

#include <QCoreApplication>
#include <QThread>
#include <algorithm>

JobTracker::JobTracker(QObject* parent) : QObject(parent) {
    m_pool.setMaxThreadCount(std::max(4, QThread::idealThreadCount()));
}

JobTracker::~JobTracker() {
    cancelAll();
    m_pool.waitForDone();
}

quint64 JobTracker::start(const QString& tag, const QString& title,
                          std::shared_ptr<ts::JobControl> control) {
    const quint64 id = m_next++;
    if (!tag.isEmpty()) {
        if (auto it = m_latestByTag.find(tag); it != m_latestByTag.end()) cancel(it->second);
        m_latestByTag[tag] = id;
    }
    const bool wasIdle = m_active.empty();
    m_active[id] = JobInfo{id, tag, title, std::move(control)};
    emit jobStarted(id, title);
    if (wasIdle) emit idleChanged(false);
    return id;
}

bool JobTracker::finish(quint64 id) {
    auto it = m_active.find(id);
    if (it == m_active.end()) return false;
    bool current = true;
    if (!it->second.tag.isEmpty()) {
        auto t = m_latestByTag.find(it->second.tag);
        current = t != m_latestByTag.end() && t->second == id;
        if (current) m_latestByTag.erase(t);
    }
    m_active.erase(it);
    emit jobFinished(id);
    if (m_active.empty()) emit idleChanged(true);
    return current;
}

void JobTracker::cancel(quint64 id) {
    if (auto it = m_active.find(id); it != m_active.end()) it->second.control->cancel();
}

void JobTracker::cancelAll() {
    for (auto& [id, job] : m_active) job.control->cancel();
}
