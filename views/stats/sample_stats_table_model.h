#pragma once
// SampleStatsTableModel: the bottom-up table of stack samples (ts::timeline::SampleStats) as
// an item model, in the op table's style: display text, and Qt::UserRole (SortRole) values
// to sort by. Columns Name and Module stand where the op table has Name and Category, so
// OpStatsFilter filters both tables.
#include <QAbstractTableModel>

#include "core/timeline/sample_stats.h"

class SampleStatsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Module, Self, SelfPercent, Total, TotalPercent, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;

    explicit SampleStatsTableModel(QObject* parent = nullptr);
    void setStats(ts::timeline::SampleStats stats);
    const ts::timeline::SampleStats& stats() const { return m_stats; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    ts::timeline::SampleStats m_stats;
};
