#include "views/common/session_context.h"

#include "views/common/job_tracker.h"

SessionContext::SessionContext(QObject* parent) : QObject(parent), m_jobs(new JobTracker(this)) {}

void SessionContext::setSessionPath(const QString& path) {
    m_sessionPath = path;
    emit sessionChanged(path);
    emit dataChanged();
}

void SessionContext::requestTimeRange(int64_t startNs, int64_t endNs) {
    emit timeRangeRequested(startNs, endNs);
}
void SessionContext::selectSlice(int64_t sliceId) {
    emit sliceSelected(sliceId);
}
void SessionContext::requestView(const QString& name) {
    emit viewRequested(name);
}
void SessionContext::notifyDataChanged() {
    emit dataChanged();
}
void SessionContext::requestOpen(const QString& path) {
    emit openRequested(path);
}
void SessionContext::requestAction(const QString& action) {
    emit actionRequested(action);
}
