#include "views/common/session_places.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <algorithm>

namespace {

const char* kPlaceKey = "sessions/place";

bool under(const QString& path, const QString& folder) {
    const QString p = QFileInfo(path).absoluteFilePath();
    const QString f = QDir(folder).absolutePath() + '/';
    return p.startsWith(f);
}

QString unique(const QString& folder, const QString& stem) {
    const QString safe = stem.isEmpty() ? QStringLiteral("session") : stem;
    QString path = folder + '/' + safe + ".tscope";
    for (int n = 2; QFileInfo::exists(path); ++n)
        path = folder + '/' + safe + '-' + QString::number(n) + ".tscope";
    return path;
}

QString home(const QString& path) {
    const QString h = QDir::homePath();
    return path.startsWith(h + '/') ? '~' + path.mid(h.size()) : path;
}

}  // namespace

SessionPlace sessionPlace() {
    const QString v = QSettings().value(kPlaceKey, QStringLiteral("data")).toString();
    if (v == QLatin1String("beside")) return SessionPlace::BesideTrace;
    if (v == QLatin1String("temporary")) return SessionPlace::Temporary;
    return SessionPlace::DataFolder;
}

void setSessionPlace(SessionPlace place) {
    QSettings().setValue(kPlaceKey, place == SessionPlace::BesideTrace ? QStringLiteral("beside")
                                    : place == SessionPlace::Temporary ? QStringLiteral("temporary")
                                                                       : QStringLiteral("data"));
}

QString sessionPlaceTitle(SessionPlace place) {
    switch (place) {
        case SessionPlace::BesideTrace:
            return QObject::tr("Beside the trace");
        case SessionPlace::DataFolder:
            return QObject::tr("In the data folder");
        case SessionPlace::Temporary:
            return QObject::tr("In a temporary folder (removed on close)");
    }
    return {};
}

QString sessionsFolder() {
    // ~/.local/share/trainscope/sessions (AppDataLocation would repeat the organisation and
    // application names, both "TrainScope").
    QString dir = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    dir = dir.isEmpty() ? QDir::tempPath() + "/trainscope" : dir + "/trainscope";
    dir += "/sessions";
    QDir().mkpath(dir);
    return dir;
}

QString temporarySessionsFolder() {
    QString user = qEnvironmentVariable("USER");
    if (user.isEmpty()) user = QStringLiteral("user");
    const QString dir = QDir::tempPath() + "/trainscope-" + user;
    QDir().mkpath(dir);
    return dir;
}

QString newSessionPath(const QString& stem, const QString& besideFile) {
    switch (sessionPlace()) {
        case SessionPlace::BesideTrace:
            if (!besideFile.isEmpty()) {
                const QFileInfo f(besideFile);
                const QString folder = f.isDir() ? f.absoluteFilePath() : f.absolutePath();
                if (QFileInfo(folder).isWritable()) return unique(folder, stem);
            }
            break;
        case SessionPlace::Temporary:
            return unique(temporarySessionsFolder(), stem);
        case SessionPlace::DataFolder:
            break;
    }
    return unique(sessionsFolder(), stem);
}

bool isTemporarySession(const QString& path) {
    return under(path, temporarySessionsFolder());
}

bool isScratchSession(const QString& path) {
    return under(path, sessionsFolder()) || isTemporarySession(path);
}

QString describeSessionPlace(const QString& path) {
    if (isTemporarySession(path))
        return QObject::tr("in a temporary folder, removed when it is closed (%1)")
            .arg(home(QFileInfo(path).absolutePath()));
    if (under(path, sessionsFolder()))
        return QObject::tr("in the data folder (%1)").arg(home(sessionsFolder()));
    return QObject::tr("in %1").arg(home(QFileInfo(path).absolutePath()));
}

QString shortSessionPlace(const QString& path) {
    if (isTemporarySession(path)) return QObject::tr("a temporary folder (removed on close)");
    if (under(path, sessionsFolder())) return QObject::tr("the data folder");
    return home(QFileInfo(path).absolutePath());
}

std::vector<SessionFileEntry> listStudioSessions() {
    std::vector<SessionFileEntry> out;
    for (const QString& folder : {sessionsFolder(), temporarySessionsFolder()}) {
        QDirIterator it(folder, {QStringLiteral("*.tscope")}, QDir::Files);
        while (it.hasNext()) {
            const QFileInfo f(it.next());
            SessionFileEntry e;
            e.path = f.absoluteFilePath();
            e.bytes = f.size();
            for (const char* ext : {"-wal", "-shm"}) e.bytes += QFileInfo(e.path + ext).size();
            QDirIterator runs(f.absolutePath() + '/' + f.completeBaseName() + "-runs",
                              QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
            while (runs.hasNext()) e.bytes += QFileInfo(runs.next()).size();
            e.modified = f.lastModified();
            out.push_back(e);
        }
    }
    std::sort(out.begin(), out.end(), [](const SessionFileEntry& a, const SessionFileEntry& b) {
        return a.modified > b.modified;
    });
    return out;
}

bool removeSessionFiles(const QString& path) {
    for (const char* ext : {"-wal", "-shm"}) QFile::remove(path + ext);
    QFile::remove(path);
    // Its command runs' folder beside it ("<stem>-runs", core/run/launch_env.cpp) goes too.
    const QFileInfo f(path);
    QDir runs(f.absolutePath() + '/' + f.completeBaseName() + QStringLiteral("-runs"));
    if (runs.exists()) runs.removeRecursively();
    return !QFileInfo::exists(path);
}
