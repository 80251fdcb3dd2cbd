#pragma once
// H5TreeModel: the groups and datasets of one HDF5 file, loaded lazily. Only the root's
// links are listed when a file is set; a group's children are listed (on a JobTracker
// worker, never on the UI thread) the first time the view expands it, so files with
// thousands of datasets open at once; the datasets' types and shapes follow in a second job.
// Columns: name, type ("float32", "group (12)"), shape.
// Qt::UserRole holds the object's path (no leading slash), UserRole+1 its NodeKind.
#include <QAbstractItemModel>
#include <memory>
#include <vector>

#include "core/hdf5/h5_file.h"

class JobTracker;

class H5TreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Role { PathRole = Qt::UserRole, KindRole };
    H5TreeModel(JobTracker* jobs, QObject* parent = nullptr);
    ~H5TreeModel() override;

    /// Shows `file` (nullptr: empty) and starts listing its root.
    void setFile(std::shared_ptr<const ts::h5::File> file);
    std::shared_ptr<const ts::h5::File> file() const { return m_file; }
    /// Index of an already listed object (invalid when its group was not listed yet).
    QModelIndex indexOfPath(const QString& path) const;
    /// Groups whose listing is running.
    int pendingFetches() const { return m_pending; }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;

signals:
    /// A group's children were inserted (root: invalid index).
    void childrenLoaded(const QModelIndex& parent);
    void loadFailed(const QString& message);

public:
    /// One object as listed (public for the loader job).
    struct Entry {
        QString name, path, type, shape;
        ts::h5::NodeKind kind = ts::h5::NodeKind::Other;
        quint64 childCount = 0;
    };

private:
    struct Item;
    Item* itemOf(const QModelIndex& index) const;
    QModelIndex indexOf(Item* item) const;
    void startFetch(Item* item);
    void describe(Item* item);

    JobTracker* m_jobs;
    std::shared_ptr<const ts::h5::File> m_file;
    std::unique_ptr<Item> m_root;
    quint64 m_generation = 0;
    int m_pending = 0;
};
