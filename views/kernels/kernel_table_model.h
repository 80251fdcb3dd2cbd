#pragma once
// KernelTableModel: the Kernel view's table (ts::analysis::gpu::KernelTable) as an item
// model. Display role: readable text ("1.25 ms", "48.0%"); SortRole: the raw value (numbers
// as doubles, text as strings); ToolTipRole: what a column means (the Tensor Core rule, the
// occupancy definitions) or the full kernel name. Ascend tables get their AI Core / AI
// Vector ratio columns after the fixed ones.
#include <QAbstractTableModel>

#include "core/analysis/gpu/kernel_table.h"

class KernelTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Name,
        Kind,
        Calls,
        Total,
        Mean,
        Min,
        Max,
        Share,
        Occupancy,
        Theoretical,
        LimitedBy,
        BlocksPerSm,
        TensorCores,
        Grid,
        Block,
        Registers,
        SharedMemory,
        Op,
        InputShapes,
        CoreType,
        BlockDim,
        Bound,
        FixedColumns
    };
    static constexpr int SortRole = Qt::UserRole;
    /// Slice ids of a row's longest calls (QVariant of QList<qint64>), any column.
    static constexpr int SlicesRole = Qt::UserRole + 1;

    explicit KernelTableModel(QObject* parent = nullptr);
    void setTable(ts::analysis::gpu::KernelTable table);
    const ts::analysis::gpu::KernelTable& table() const { return m_table; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    ts::analysis::gpu::KernelTable m_table;
};
