#include "app/gui/session_document.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>

#include "core/common/data_paths.h"
#include "core/session/session_copy.h"
#include "core/store/trace_store.h"
#include "importers/batch_import.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/common/session_places.h"

using ts::store::TraceStore;

namespace {

const char* kDemoCopyKey = "demo/copy";

/// What an import job hands back: the reports, and for a cancelled one what it undid.
struct ImportOutcome {
    ts::importers::BatchImport batch;
    bool cancelled = false;
    int files = 0;             // files asked for
    int64_t sourcesKept = -1;  // sources of the session after a cancel (-1: unknown)
};

}  // namespace

SessionDocument::SessionDocument(SessionContext* ctx, QObject* parent)
    : QObject(parent), m_ctx(ctx) {}

bool SessionDocument::isSessionFile(const QString& path) {
    if (path.endsWith(QStringLiteral(".tscope"), Qt::CaseInsensitive)) return true;
    return ts::store::isSqliteFile(QFile::encodeName(path).toStdString()) &&
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

QString SessionDocument::newSession(const QString& stem, const QString& besideFile) {
    const QString path = newSessionPath(stem, besideFile);
    auto s = TraceStore::open(path.toStdString(), TraceStore::Mode::Create);
    if (!s) {
        emit failed(QString::fromStdString(s.error()));
        return {};
    }
    s.value().reset();
    if (isTemporarySession(path)) m_temporary.insert(path);
    m_ctx->setSessionPath(path);
    emit sessionCreated(path, tr("kept %1").arg(describeSessionPlace(path)));
    emit sessionOpened(path);
    return path;
}

QString SessionDocument::demoPath() {
    // Installed as <prefix>/share/trainscope/demo.tscope; in a build folder, the build's
    // resources/demo.tscope. $TRAINSCOPE_DEMO_SESSION overrides both.
    return QString::fromStdString(ts::findDataPath("demo.tscope", "TRAINSCOPE_DEMO_SESSION"));
}

QString SessionDocument::demoCopyPath() {
    const QString copy = QSettings().value(kDemoCopyKey).toString();
    return !copy.isEmpty() && QFileInfo::exists(copy) ? copy : QString();
}

bool SessionDocument::openDemo(bool fresh) {
    const QString existing = demoCopyPath();
    if (!fresh && !existing.isEmpty()) {
        // The user's work in the demo stays: the copy made before is opened as it is.
        openSession(existing);
        return true;
    }
    const QString demo = demoPath();
    if (demo.isEmpty()) {
        emit failed(
            tr("The demo session was not found: it is installed as "
               "share/trainscope/demo.tscope, or built by the 'demo_session' target (or "
               "set TRAINSCOPE_DEMO_SESSION)."));
        return false;
    }
    // A new file every time: a copy another window may have open is never overwritten.
    QString copy = sessionsFolder() + QStringLiteral("/demo.tscope");
    for (int n = 2; QFileInfo::exists(copy); ++n)
        copy = sessionsFolder() + QStringLiteral("/demo-%1.tscope").arg(n);
    if (!QFile::copy(demo, copy)) {
        emit failed(tr("Cannot copy the demo session to %1").arg(copy));
        return false;
    }
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup);
    QSettings().setValue(kDemoCopyKey, copy);
    emit sessionCreated(copy, tr("your working copy of the demo, kept %1; the demo itself "
                                 "never changes")
                                  .arg(describeSessionPlace(copy)));
    openSession(copy);
    return true;
}

void SessionDocument::importFiles(const QStringList& paths) {
    if (paths.isEmpty()) return;
    const QFileInfo first(paths.first());
    if (m_ctx->sessionPath().isEmpty())
        newSession(first.isDir() ? first.fileName() : first.completeBaseName(), paths.first());
    const QString session = m_ctx->sessionPath();
    if (session.isEmpty()) return;
    std::vector<std::string> files;
    for (const QString& p : paths) files.push_back(p.toStdString());
    const QString title = paths.size() == 1 ? tr("Importing %1").arg(first.fileName())
                                            : tr("Importing %1 files").arg(paths.size());
    m_ctx->jobs()->runToEnd<ImportOutcome>(
        this, QString(), title,
        [files, s = session.toStdString()](ts::JobControl& jc) {
            ImportOutcome out;
            out.files = static_cast<int>(files.size());
            out.batch = importAll(s, files, jc);
            out.cancelled = out.batch.cancelled || jc.cancelled();
            if (out.cancelled) {
                if (auto opened = TraceStore::open(s, TraceStore::Mode::ReadOnly))
                    if (auto n = opened.value()->db().queryInt("SELECT count(*) FROM sources"))
                        out.sourcesKept = n.value();
            }
            return out;
        },
        [this, title, paths](ImportOutcome o) {
            if (o.cancelled) {
                // Say what the cancel undid and what the session still holds.
                const int started = static_cast<int>(o.batch.reports.size());
                QString what = paths.size() == 1
                                   ? tr("the import of %1").arg(QFileInfo(paths[0]).fileName())
                                   : tr("the import of %1 files").arg(paths.size());
                QString undone = started > 1 ? tr("what it had read (%n file(s)) was removed "
                                                  "again",
                                                  nullptr, started - 1)
                                             : tr("nothing of it was kept");
                QString kept = o.sourcesKept >= 0
                                   ? tr("the session is as it was (%n source(s) kept)", nullptr,
                                        static_cast<int>(o.sourcesKept))
                                   : tr("the session is as it was");
                emit importCancelled(tr("Cancelled %1: %2; %3.").arg(what, undone, kept));
                return;
            }
            m_ctx->notifyDataChanged();
            if (!o.batch.folders.empty()) emit folderImported(o.batch);
            emit imported(o.batch.reports);
        });
}

void SessionDocument::saveSessionAs(const QString& target) {
    const QString from = m_ctx->sessionPath();
    if (from.isEmpty()) {
        emit failed(tr("No session is open."));
        return;
    }
    const QString to = QFileInfo(target).absoluteFilePath();
    if (to == QFileInfo(from).absoluteFilePath()) {
        emit saved(to);  // it is there already
        return;
    }
    m_ctx->jobs()->run<QString>(
        this, QStringLiteral("save-session"), tr("Saving %1").arg(QFileInfo(to).fileName()),
        [f = from.toStdString(), t = to.toStdString(), to](ts::JobControl&) {
            for (const char* ext : {"", "-wal", "-shm"}) QFile::remove(to + ext);
            auto s = ts::session::copySession(f, t);
            return s ? QString() : QString::fromStdString(s.error());
        },
        [this, from, to](QString error) {
            if (!error.isEmpty()) {
                emit failed(tr("Save Session As: %1").arg(error));
                return;
            }
            if (from == demoCopyPath()) QSettings().remove(kDemoCopyKey);  // saved: not the demo's
            m_ctx->setSessionPath(to);
            emit saved(to);
            emit sessionOpened(to);
            if (m_temporary.remove(from)) removeSessionFiles(from);
        });
}

QString SessionDocument::unsavedWork(const QString& path) {
    if (path.isEmpty() || !isScratchSession(path)) return {};
    auto work = ts::session::readSessionWork(path.toStdString());
    if (!work) return {};
    ts::session::SessionWork base;
    const bool demo = path == demoCopyPath();
    if (demo) {
        auto d = ts::session::readSessionWork(demoPath().toStdString());
        if (d) base = d.value();
    }
    const int64_t sources = work->sources - base.sources, runs = work->runs - base.runs;
    if (sources <= 0 && runs <= 0) return {};
    QStringList held;
    if (runs > 0) held << tr("%n run(s)", nullptr, static_cast<int>(runs));
    if (sources > 0) held << tr("%n imported source(s)", nullptr, static_cast<int>(sources));
    const QString what =
        demo ? tr("Your copy of the demo holds %1 of your own") : tr("This session holds %1");
    return tr("%1. It is kept %2.")
        .arg(what.arg(held.join(tr(" and "))), describeSessionPlace(path));
}

void SessionDocument::removeTemporarySessions(const QString& keep) {
    for (const QString& p : std::as_const(m_temporary))
        if (p != keep) removeSessionFiles(p);
    m_temporary.clear();
    if (!keep.isEmpty() && isTemporarySession(keep)) m_temporary.insert(keep);
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
