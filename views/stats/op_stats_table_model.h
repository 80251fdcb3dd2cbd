#pragma once
// OpStatsTableModel: the op statistics table (ts::timeline::OpStats) as an item model.
// Display role: readable text ("1.25 ms"); Qt::UserRole: the raw value to sort by
// (numbers as doubles, text as strings) — use it as the proxy's sort role.
#include <QAbstractTableModel>

#include "core/timeline/op_stats.h"

class OpStatsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Name,
        Category,
        InputShapes,
        Calls,
        Self,
        Total,
        Avg,
        Min,
        Max,
        SelfPercent,   // of the self time of every row: the column sums to 100 %
        TotalPercent,  // of the range
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;

    explicit OpStatsTableModel(QObject* parent = nullptr);
    void setStats(ts::timeline::OpStats stats);
    const ts::timeline::OpStats& stats() const { return m_stats; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    ts::timeline::OpStats m_stats;
};
