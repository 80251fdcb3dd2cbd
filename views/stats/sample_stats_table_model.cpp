#include "views/stats/sample_stats_table_model.h"

SampleStatsTableModel::SampleStatsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void SampleStatsTableModel::setStats(ts::timeline::SampleStats stats) {
    beginResetModel();
    m_stats = std::move(stats);
    endResetModel();
}

int SampleStatsTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_stats.rows.size());
}

int SampleStatsTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SampleStatsTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const auto& r = m_stats.rows[static_cast<size_t>(index.row())];
    const int c = index.column();
    if (role == Qt::TextAlignmentRole)
        return c >= Self ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole) return {};
    auto count = [&](int64_t n) {
        return role == SortRole ? QVariant(static_cast<double>(n)) : QVariant(QString::number(n));
    };
    auto percent = [&](double p) {
        return role == SortRole ? QVariant(p) : QVariant(QStringLiteral("%1%").arg(p, 0, 'f', 2));
    };
    switch (c) {
        case Name:
            return QString::fromStdString(r.name);
        case Module:
            return QString::fromStdString(r.category);
        case Self:
            return count(r.self);
        case SelfPercent:
            return percent(r.selfPercent);
        case Total:
            return count(r.total);
        case TotalPercent:
            return percent(r.totalPercent);
        default:
            return {};
    }
}

QVariant SampleStatsTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    switch (section) {
        case Name:
            return tr("Function");
        case Module:
            return tr("Module");
        case Self:
            return tr("Self samples");
        case SelfPercent:
            return tr("Self %");
        case Total:
            return tr("Total samples");
        case TotalPercent:
            return tr("Total %");
        default:
            return {};
    }
}
