#include "app/gui/session_document.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include "core/common/data_paths.h"
#include "core/store/trace_store.h"
#include "importers/batch_import.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"

using ts::store::TraceStore;

SessionDocument::SessionDocument(SessionContext* ctx, QObject* parent)
    : QObject(parent), m_ctx(ctx) {}

QString SessionDocument::sessionsDir() {
    // ~/.local/share/trainscope/sessions (AppDataLocation would repeat the organisation
    // and application names, both "TrainScope").
    QString dir = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    dir = dir.isEmpty() ? QDir::tempPath() + "/trainscope" : dir + "/trainscope";
    dir += "/sessions";
    QDir().mkpath(dir);
    return dir;
}

bool SessionDocument::isSessionFile(const QString& path) {
    if (path.endsWith(QStringLiteral(".tscope"), Qt::CaseInsensitive)) return true;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return false;
    return f.read(16) == QByteArray("SQLite format 3\0", 16) &&
           !path.endsWith(QStringLiteral(".sqlite"), Qt::CaseInsensitive);
}

void SessionDocument::openSession(const QString& path) {
    m_ctx->jobs()->run<QString>(
        this, QStringLiteral("open-session"), tr("Opening %1").arg(QFileInfo(path).fileName()),
        [p = path.toStdString()](ts::JobControl&) {
            auto s = TraceStore::open(p, TraceStore::Mode::ReadWrite);
            return s ? QString() : QString::fromStdString(s.error());
        },
        [this, path](QString error) {
            if (!error.isEmpty()) {
                emit failed(error);
                return;
            }
            m_ctx->setSessionPath(QFileInfo(path).absoluteFilePath());
            emit sessionOpened(path);
        });
}

QString SessionDocument::newSession(const QString& stem) {
    const QString path = sessionsDir() + "/" + stem + "-" +
                         QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss-zzz") + ".tscope";
    auto s = TraceStore::open(path.toStdString(), TraceStore::Mode::Create);
    if (!s) {
        emit failed(QString::fromStdString(s.error()));
        return {};
    }
    s.value().reset();
    m_ctx->setSessionPath(path);
    emit sessionOpened(path);
    return path;
}

bool SessionDocument::openDemo() {
    // Installed as <prefix>/share/trainscope/demo.tscope; in a build folder, the build's
    // resources/demo.tscope. $TRAINSCOPE_DEMO_SESSION overrides both.
    const QString demo =
        QString::fromStdString(ts::findDataPath("demo.tscope", "TRAINSCOPE_DEMO_SESSION"));
    if (demo.isEmpty()) {
        emit failed(
            tr("The demo session was not found: it is installed as "
               "share/trainscope/demo.tscope, or built by the 'demo_session' target (or "
               "set TRAINSCOPE_DEMO_SESSION)."));
        return false;
    }
    const QString copy = sessionsDir() + "/demo.tscope";
    for (const char* ext : {"", "-wal", "-shm"}) QFile::remove(copy + ext);
    if (!QFile::copy(demo, copy)) {
        emit failed(tr("Cannot copy the demo session to %1").arg(copy));
        return false;
    }
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup);
    openSession(copy);
    return true;
}

void SessionDocument::importFiles(const QStringList& paths) {
    if (paths.isEmpty()) return;
    const QFileInfo first(paths.first());
    if (m_ctx->sessionPath().isEmpty())
        newSession(first.isDir() ? first.fileName() : first.completeBaseName());
    const QString session = m_ctx->sessionPath();
    if (session.isEmpty()) return;
    std::vector<std::string> files;
    for (const QString& p : paths) files.push_back(p.toStdString());
    const QString title = paths.size() == 1 ? tr("Importing %1").arg(first.fileName())
                                            : tr("Importing %1 files").arg(paths.size());
    m_ctx->jobs()->run<ts::importers::BatchImport>(
        this, QString(), title,
        [files, s = session.toStdString()](ts::JobControl& jc) { return importAll(s, files, jc); },
        [this](ts::importers::BatchImport batch) {
            m_ctx->notifyDataChanged();
            if (!batch.folders.empty()) emit folderImported(batch);
            emit imported(batch.reports);
        });
}

ts::importers::BatchImport SessionDocument::importAll(const std::string& session,
                                                      const std::vector<std::string>& files,
                                                      ts::JobControl& jc) {
    auto opened = TraceStore::open(session, TraceStore::Mode::ReadWrite);
    if (!opened) {
        ts::importers::BatchImport batch;
        ts::importers::ImportReport r;
        r.error = opened.error();
        batch.reports.push_back(r);
        return batch;
    }
    return ts::importers::importFiles(files, *opened.value(), jc);
}
