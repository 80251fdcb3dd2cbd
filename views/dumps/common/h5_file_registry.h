#pragma once
// H5FileRegistry: the HDF5 files opened in this studio session, most recent last. The
// inspector adds every file it opens; the Overflow and Compare views pre-fill their inputs
// from it (so `trainscope a.h5 b.h5 --view compare` compares a with b), without the views
// calling each other.
#include <QObject>
#include <QPair>
#include <QStringList>

class H5FileRegistry : public QObject {
    Q_OBJECT
public:
    static H5FileRegistry* instance();
    /// Adds (or moves to the end) an absolute path.
    void add(const QString& path);
    QStringList files() const { return m_files; }
    /// Asks the HDF5 inspector to open `file` at `dataset` (kept until an inspector takes it,
    /// so a view can ask before the inspector exists; see takeInspectRequest()).
    void requestInspect(const QString& file, const QString& dataset);
    /// The pending request (file, dataset), cleared; empty file when none.
    QPair<QString, QString> takeInspectRequest();

signals:
    void filesChanged();
    void inspectRequested();

private:
    using QObject::QObject;
    QStringList m_files;
    QPair<QString, QString> m_inspect;
};
