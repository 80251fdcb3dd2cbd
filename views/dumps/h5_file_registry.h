#pragma once
// H5FileRegistry: the HDF5 files opened in this studio session, most recent last. The
// inspector adds every file it opens; the Overflow and Compare views pre-fill their inputs
// from it (so `trainscope a.h5 b.h5 --view compare` compares a with b), without the views
// calling each other.
#include <QObject>
#include <QStringList>

class H5FileRegistry : public QObject {
    Q_OBJECT
public:
    static H5FileRegistry* instance();
    /// Adds (or moves to the end) an absolute path.
    void add(const QString& path);
    QStringList files() const { return m_files; }

signals:
    void filesChanged();

private:
    using QObject::QObject;
    QStringList m_files;
};
