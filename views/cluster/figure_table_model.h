#pragma once
// FigureTableModel: a read-only table of figures for the Cluster view's lists (stragglers,
// ranks, ops against the median rank). Cells are numbers (shown with the column's decimals,
// NaN as "—") or text; Qt::UserRole gives the raw value to sort by (use it as the proxy's
// sort role). Qt::UserRole + 1 on any cell gives the row's tag (e.g. the summary row).
#include <QAbstractTableModel>
#include <QStringList>
#include <QVariant>
#include <vector>

class FigureTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int SortRole = Qt::UserRole;
    static constexpr int TagRole = Qt::UserRole + 1;

    struct Column {
        QString header;
        int decimals = -1;  // -1: text or integer as it is
        QString toolTip;
    };
    explicit FigureTableModel(std::vector<Column> columns, QObject* parent = nullptr);
    /// Replaces the rows; each row holds one value per column (double, qlonglong or QString)
    /// and `tags` one tag per row.
    void setRows(std::vector<std::vector<QVariant>> rows, std::vector<int> tags);
    int tagOf(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::vector<Column> m_columns;
    std::vector<std::vector<QVariant>> m_rows;
    std::vector<int> m_tags;
};
