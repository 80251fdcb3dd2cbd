#pragma once
// SessionRegistry: the session files opened in this studio window, oldest first. Opening
// several sessions at once (`trainscope a.tscope b.tscope`) leaves the last one open; the Diff
// view lists them all, so `trainscope a.tscope b.tscope --view diff` compares a with b —
// without the main window and the view calling each other (H5FileRegistry does the same for
// HDF5 files and the Compare view).
#include <QObject>
#include <QStringList>

class SessionRegistry : public QObject {
    Q_OBJECT
public:
    static SessionRegistry* instance();
    /// Adds (or moves to the end) a path, made absolute.
    void add(const QString& path);
    QStringList sessions() const { return m_sessions; }

signals:
    void sessionsChanged();

private:
    using QObject::QObject;
    QStringList m_sessions;
};
