#include "views/cluster/figure_table_model.h"

#include <cmath>

FigureTableModel::FigureTableModel(std::vector<Column> columns, QObject* parent)
    : QAbstractTableModel(parent), m_columns(std::move(columns)) {}

void FigureTableModel::setRows(std::vector<std::vector<QVariant>> rows, std::vector<int> tags) {
    beginResetModel();
    m_rows = std::move(rows);
    m_tags = std::move(tags);
    m_tags.resize(m_rows.size(), -1);
    endResetModel();
}

int FigureTableModel::tagOf(int row) const {
    return row >= 0 && row < static_cast<int>(m_tags.size()) ? m_tags[static_cast<size_t>(row)]
                                                             : -1;
}

int FigureTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int FigureTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_columns.size());
}

QVariant FigureTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const auto& row = m_rows[static_cast<size_t>(index.row())];
    const QVariant v = index.column() < static_cast<int>(row.size())
                           ? row[static_cast<size_t>(index.column())]
                           : QVariant();
    const Column& c = m_columns[static_cast<size_t>(index.column())];
    switch (role) {
        case Qt::DisplayRole:
            if (v.typeId() == QMetaType::Double) {
                const double d = v.toDouble();
                if (!std::isfinite(d)) return QStringLiteral("—");
                return QString::number(d, 'f', std::max(0, c.decimals));
            }
            return v;
        case SortRole:
            return v;
        case TagRole:
            return tagOf(index.row());
        case Qt::TextAlignmentRole:
            return v.typeId() == QMetaType::QString ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                    : QVariant(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return {};
    }
}

QVariant FigureTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || section < 0 || section >= columnCount()) return {};
    const Column& c = m_columns[static_cast<size_t>(section)];
    if (role == Qt::DisplayRole) return c.header;
    if (role == Qt::ToolTipRole && !c.toolTip.isEmpty()) return c.toolTip;
    return {};
}
