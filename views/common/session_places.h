#pragma once
// Where the studio keeps the sessions it makes (issue 26, item 2): beside the trace that was
// opened (trace.tscope next to trace.json), in the data folder
// (~/.local/share/trainscope/sessions), or in a temporary folder removed when the session is
// closed. The choice is a setting (File > New Sessions Are Kept); every new session says
// where it went. Also: the sessions of the data folder with their sizes, to list and clean
// (File > Manage Sessions).
#include <QDateTime>
#include <QString>
#include <QStringList>
#include <vector>

enum class SessionPlace { BesideTrace, DataFolder, Temporary };

/// The setting (QSettings "sessions/place"; the data folder by default).
SessionPlace sessionPlace();
void setSessionPlace(SessionPlace place);
QString sessionPlaceTitle(SessionPlace place);  // "Beside the trace", ...

/// ~/.local/share/trainscope/sessions (created on demand).
QString sessionsFolder();
/// <temp>/trainscope-<user>: sessions removed when closed (created on demand).
QString temporarySessionsFolder();

/// A path for a new session named after `stem` where the setting says: beside `besideFile`
/// (when given and its folder is writable; else the data folder), in the data folder, or
/// in the temporary folder. Never an existing file (a numbered name instead).
QString newSessionPath(const QString& stem, const QString& besideFile = QString());

/// Sessions the studio made (data folder, temporary folder): closing one that holds work
/// asks whether to save it elsewhere.
bool isScratchSession(const QString& path);
bool isTemporarySession(const QString& path);
/// "in the data folder (~/.local/share/...)", "beside the trace (/data/run1)", "in a
/// temporary folder, removed when it is closed".
QString describeSessionPlace(const QString& path);
/// The same in a few words for the status bar: "the data folder", "a temporary folder",
/// or the folder (~/exp/run1).
QString shortSessionPlace(const QString& path);

/// One session file of the data folder.
struct SessionFileEntry {
    QString path;
    qint64 bytes = 0;  // with its -wal and -shm files and its command runs' folder
    QDateTime modified;
};
/// The sessions of the data folder (and the temporary folder), newest first.
std::vector<SessionFileEntry> listStudioSessions();
/// Removes a session and its -wal/-shm files; false when the file remains.
bool removeSessionFiles(const QString& path);
