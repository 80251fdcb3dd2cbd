#pragma once
// SessionDocument: the session the main window has open, and the imports into it.
// Every file operation runs as a JobTracker job; results come back as signals.
#include <QObject>
#include <QStringList>

#include <string>
#include <vector>

#include "core/common/job_control.h"
#include "importers/folder/folder_import.h"
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
    /// Imports trace/profile files into the open session (a new one when none is open).
    void importFiles(const QStringList& paths);
    /// Imports everything under `dir` (importers/folder/folder_import.h) into the open session
    /// (a new one named after the folder when none is open); folderImported follows.
    void importFolder(const QString& dir);

    /// The work of importFiles (worker thread): imports `files` into `session` in order,
    /// then labels processes by source. When `jc` is cancelled, every source this call added
    /// is removed again, so the session is as it was before.
    static std::vector<ts::importers::ImportReport> importAll(const std::string& session,
                                                              const std::vector<std::string>& files,
                                                              ts::JobControl& jc);

    static QString sessionsDir();
    static bool isSessionFile(const QString& path);

signals:
    void sessionOpened(const QString& path);
    void imported(const std::vector<ts::importers::ImportReport>& reports);
    /// A folder import finished: every file with its fate.
    void folderImported(const ts::importers::FolderImport& result);
    void failed(const QString& message);

private:
    SessionContext* m_ctx;
};
