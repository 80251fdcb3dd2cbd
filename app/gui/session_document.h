#pragma once
// SessionDocument: the session the main window has open, and the imports into it.
// Every file operation runs as a JobTracker job; results come back as signals.
// Sessions the studio makes go where the user chose (views/common/session_places.h) and
// say where; the demo is never written: it opens as a working copy made once (again only
// when the user asks for a fresh demo); Save Session As copies the open session elsewhere.
#include <QObject>
#include <QSet>
#include <QStringList>

#include <string>
#include <vector>

#include "core/common/job_control.h"
#include "importers/batch_import.h"
#include "importers/import_report.h"

class SessionContext;

class SessionDocument : public QObject {
    Q_OBJECT
public:
    explicit SessionDocument(SessionContext* ctx, QObject* parent = nullptr);

    /// Opens an existing *.tscope (checked on a job; sessionOpened or failed follows).
    void openSession(const QString& path);
    /// Creates a new empty session named after `stem` where the setting says (beside
    /// `besideFile` when that is the choice) and opens it; sessionCreated says where.
    QString newSession(const QString& stem = QStringLiteral("session"),
                       const QString& besideFile = QString());
    /// Opens the demo's working copy, made from the bundled demo when there is none yet
    /// (`fresh`: a new copy, the old one left as it is).
    bool openDemo(bool fresh = false);
    /// Imports trace/profile files and folders (everything under them:
    /// importers/folder/folder_import.h) into the open session (a new one named after the
    /// first path when none is open); imported follows, and folderImported when there were
    /// folders.
    void importFiles(const QStringList& paths);
    /// Copies the open session to `target` (replacing it) on a job and opens the copy;
    /// saved or failed follows.
    void saveSessionAs(const QString& target);

    /// The work of importFiles (worker thread): imports `files` into `session`
    /// (importers/batch_import.h). When `jc` is cancelled, everything this call added is
    /// removed again, so the session is as it was before.
    static ts::importers::BatchImport importAll(const std::string& session,
                                                const std::vector<std::string>& files,
                                                ts::JobControl& jc);

    static bool isSessionFile(const QString& path);
    /// The bundled demo ("" when not found) and its current working copy ("" when none).
    static QString demoPath();
    static QString demoCopyPath();
    /// Why closing `path` would leave work behind where the user may not look for it ("" when
    /// it would not): a session the studio made (scratch) that holds sources or runs, beyond
    /// the demo's own for the demo's copy. Reads the session (small queries).
    static QString unsavedWork(const QString& path);
    /// Temporary sessions this document made (removed when the window closes).
    const QSet<QString>& temporarySessions() const { return m_temporary; }
    /// Removes the temporary sessions made here, except `keep`.
    void removeTemporarySessions(const QString& keep = QString());

signals:
    void sessionOpened(const QString& path);
    /// A session was made by the studio: `where` says where it is kept.
    void sessionCreated(const QString& path, const QString& where);
    void imported(const std::vector<ts::importers::ImportReport>& reports);
    /// An import was cancelled: `message` says what was undone and what the session keeps.
    void importCancelled(const QString& message);
    void saved(const QString& path);
    /// An import of folders finished: every file of them with its fate.
    void folderImported(const ts::importers::BatchImport& result);
    void failed(const QString& message);

private:
    SessionContext* m_ctx;
    QSet<QString> m_temporary;
};
