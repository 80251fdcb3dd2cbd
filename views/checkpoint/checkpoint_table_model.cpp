#include "views/checkpoint/checkpoint_table_model.h"

#include <QLocale>
#include <QStringList>

CheckpointTableModel::CheckpointTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void CheckpointTableModel::setInfo(ts::checkpoint_info::CheckpointInfo info) {
    beginResetModel();
    m_info = std::move(info);
    endResetModel();
}

int CheckpointTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_info.params.size());
}

int CheckpointTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CheckpointTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const auto& p = m_info.params[static_cast<size_t>(index.row())];
    if (role == Qt::TextAlignmentRole && index.column() == CountCol)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != SortRole) return {};
    switch (index.column()) {
        case NameCol:
            return QString::fromStdString(p.name);
        case ShapeCol: {
            QStringList dims;
            for (int64_t d : p.dims) dims << QString::number(d);
            return QStringLiteral("[%1]").arg(dims.join(QStringLiteral(", ")));
        }
        case DtypeCol:
            return QString::fromStdString(p.dtype);
        case CountCol:
            if (role == SortRole) return QVariant::fromValue<qlonglong>(p.elements);
            return QLocale().toString(static_cast<qlonglong>(p.elements));
        case TrainableCol:
            return p.trainable ? tr("yes") : tr("no");
        default:
            return {};
    }
}

QVariant CheckpointTableModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case NameCol:
            return tr("Name");
        case ShapeCol:
            return tr("Shape");
        case DtypeCol:
            return tr("Dtype");
        case CountCol:
            return tr("Count");
        case TrainableCol:
            return tr("Trainable");
        default:
            return {};
    }
}
