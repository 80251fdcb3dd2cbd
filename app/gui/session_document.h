#pragma once
// SessionDocument: the session the main window has open, and the imports into it.
// Every file operation runs as a JobTracker job; results come back as signals.
#include <QObject>
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
    /// Creates a new empty session under the user's data folder and opens it.
    QString newSession(const QString& stem = QStringLiteral("session"));
    /// Opens the bundled demo session (a writable copy of the one built with the studio).
    bool openDemo();
    /// Imports trace/profile files and folders (everything under them:
    /// importers/folder/folder_import.h) into the open session (a new one named after the
    /// first path when none is open); imported follows, and folderImported when there were
    /// folders.
    void importFiles(const QStringList& paths);

    /// The work of importFiles (worker thread): imports `files` into `session`
    /// (importers/batch_import.h). When `jc` is cancelled, everything this call added is
    /// removed again, so the session is as it was before.
    static ts::importers::BatchImport importAll(const std::string& session,
                                                const std::vector<std::string>& files,
                                                ts::JobControl& jc);

    static QString sessionsDir();
    static bool isSessionFile(const QString& path);

signals:
    void sessionOpened(const QString& path);
    void imported(const std::vector<ts::importers::ImportReport>& reports);
    /// An import of folders finished: every file of them with its fate.
    void folderImported(const ts::importers::BatchImport& result);
    void failed(const QString& message);

private:
    SessionContext* m_ctx;
};
