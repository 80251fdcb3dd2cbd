#pragma once
// CheckpointTableModel: the tensors of one checkpoint as a table (name, shape, dtype,
// count, trainable). SortRole gives numbers for the count column so a proxy sorts them.
#include <QAbstractTableModel>

#include "core/checkpoint_info/checkpoint_info.h"

class CheckpointTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameCol, ShapeCol, DtypeCol, CountCol, TrainableCol, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit CheckpointTableModel(QObject* parent = nullptr);

    void setInfo(ts::checkpoint_info::CheckpointInfo info);
    const ts::checkpoint_info::CheckpointInfo& info() const { return m_info; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    ts::checkpoint_info::CheckpointInfo m_info;
};
