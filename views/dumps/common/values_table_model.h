#pragma once
// ValuesTableModel: the values of one 2-D slice of a dataset of any type and rank, read in
// blocks of kBlockRows x kBlockCols on JobTracker workers the first time a block is shown
// (a page at a time, never the whole dataset). Cells not loaded yet show "…"; NaN and ±Inf
// cells are tinted. Headers are the indices along the shown dimensions.
#include <QAbstractTableModel>
#include <QHash>
#include <QSet>
#include <memory>
#include <vector>

#include "core/hdf5/h5_file.h"
#include "views/dumps/common/slice_spec.h"

class JobTracker;

class ValuesTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int kBlockRows = 256;
    static constexpr int kBlockCols = 32;
    static constexpr uint64_t kMaxColumns = 1u << 20;  // columns beyond are not shown

    ValuesTableModel(JobTracker* jobs, QObject* parent = nullptr);
    void setDataset(std::shared_ptr<const ts::h5::File> file, const QString& path,
                    const SliceSpec& spec);
    void setSlice(const SliceSpec& spec);
    const SliceSpec& slice() const { return m_spec; }
    /// Blocks requested and not delivered yet.
    int pendingBlocks() const { return m_pending.size(); }
    QString lastError() const { return m_error; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

signals:
    void blockLoaded();

private:
    struct Block {
        uint64_t nr = 0, nc = 0;
        std::vector<QString> cells;  // nr x nc, row-major
    };
    static quint64 key(uint64_t br, uint64_t bc) { return (br << 24) | bc; }
    void request(uint64_t br, uint64_t bc) const;

    JobTracker* m_jobs;
    std::shared_ptr<const ts::h5::File> m_file;
    QString m_path;
    SliceSpec m_spec;
    quint64 m_generation = 0;
    mutable QHash<quint64, Block> m_blocks;
    mutable QSet<quint64> m_pending;
    mutable QString m_error;
};
