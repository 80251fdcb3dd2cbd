#include "views/diff/session_registry.h"

#include <QCoreApplication>
#include <QFileInfo>

SessionRegistry* SessionRegistry::instance() {
    static SessionRegistry* r = new SessionRegistry(QCoreApplication::instance());
    return r;
}

void SessionRegistry::add(const QString& path) {
    const QString p = QFileInfo(path).absoluteFilePath();
    m_sessions.removeAll(p);
    m_sessions << p;
    emit sessionsChanged();
}
