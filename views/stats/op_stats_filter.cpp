#include "views/stats/op_stats_filter.h"

#include "views/stats/op_stats_table_model.h"

OpStatsFilter::OpStatsFilter(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(OpStatsTableModel::SortRole);
    setFilterKeyColumn(-1);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
}

void OpStatsFilter::setCategory(const QString& category) {
    if (category == m_category) return;
    m_category = category;
    invalidateFilter();
}

bool OpStatsFilter::filterAcceptsRow(int row, const QModelIndex& parent) const {
    if (!m_category.isEmpty()) {
        const QModelIndex cat = sourceModel()->index(row, OpStatsTableModel::Category, parent);
        if (sourceModel()->data(cat, Qt::DisplayRole).toString() != m_category) return false;
    }
    return QSortFilterProxyModel::filterAcceptsRow(row, parent);
}
