#include "views/query/query_result_model.h"

QueryResultModel::QueryResultModel(QObject* parent) : QAbstractTableModel(parent) {}

void QueryResultModel::setRows(QueryRows rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int QueryResultModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.rows.size());
}

int QueryResultModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.columns.size());
}

QVariant QueryResultModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const QVariant& v =
        m_rows.rows[static_cast<size_t>(index.row())][static_cast<size_t>(index.column())];
    if (role == Qt::DisplayRole) {
        if (v.isNull()) return QStringLiteral("NULL");
        if (v.typeId() == QMetaType::QByteArray)
            return tr("<%n bytes>", nullptr, static_cast<int>(v.toByteArray().size()));
        return v;
    }
    if (role == Qt::TextAlignmentRole && !v.isNull() &&
        (v.typeId() == QMetaType::LongLong || v.typeId() == QMetaType::Double))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && v.isNull()) return QVariant::fromValue(QColor(Qt::gray));
    return {};
}

QVariant QueryResultModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Horizontal)
        return section >= 0 && section < m_rows.columns.size() ? m_rows.columns[section]
                                                               : QVariant();
    return section + 1;
}
