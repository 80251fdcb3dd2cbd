#pragma once
// OpStatsFilter: the stats table's proxy. Sorts by OpStatsTableModel::SortRole, keeps rows
// whose name or category contains the filter text (case-insensitive) and, when a category
// is chosen, only the rows of that category ("CPU ops only", "kernels only", ...).
#include <QSortFilterProxyModel>

class OpStatsFilter : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit OpStatsFilter(QObject* parent = nullptr);
    /// Only rows of this category ("" = all).
    void setCategory(const QString& category);
    const QString& category() const { return m_category; }

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

private:
    QString m_category;
};
