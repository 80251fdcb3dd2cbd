#include "views/stats/op_stats_table_model.h"

#include "core/timeline/time_axis.h"

using ts::timeline::formatDuration;

OpStatsTableModel::OpStatsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void OpStatsTableModel::setStats(ts::timeline::OpStats stats) {
    beginResetModel();
    m_stats = std::move(stats);
    endResetModel();
}

int OpStatsTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_stats.rows.size());
}

int OpStatsTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OpStatsTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const auto& r = m_stats.rows[static_cast<size_t>(index.row())];
    const int c = index.column();
    if (role == Qt::TextAlignmentRole)
        return c >= Calls ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole) return {};
    auto text = [&](const std::string& s) { return QVariant(QString::fromStdString(s)); };
    auto time = [&](double ns) {
        return role == SortRole ? QVariant(ns)
                                : QVariant(QString::fromStdString(formatDuration(ns)));
    };
    switch (c) {
        case Name:
            return text(r.name);
        case Category:
            return text(r.category);
        case InputShapes:
            return text(r.inputShapes);
        case Calls:
            return role == SortRole ? QVariant(static_cast<double>(r.calls))
                                    : QVariant(QString::number(r.calls));
        case Self:
            return time(static_cast<double>(r.selfNs));
        case Total:
            return time(static_cast<double>(r.totalNs));
        case Avg:
            return time(r.avgNs);
        case Min:
            return time(static_cast<double>(r.minNs));
        case Max:
            return time(static_cast<double>(r.maxNs));
        case SelfPercent:
        case TotalPercent: {
            const double p = c == SelfPercent ? r.selfPercent : r.totalPercent;
            return role == SortRole ? QVariant(p)
                                    : QVariant(QStringLiteral("%1 %").arg(p, 0, 'f', 2));
        }
        default:
            return {};
    }
}

QVariant OpStatsTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o == Qt::Horizontal && role == Qt::ToolTipRole && section == SelfPercent)
        return tr("Self time as a share of the self time of every row: the column sums to 100 %.");
    if (o == Qt::Horizontal && role == Qt::ToolTipRole && section == TotalPercent)
        return tr(
            "Total time (self and nested calls) as a share of the range: nested and "
            "parallel calls make the column sum past 100 %.");
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    switch (section) {
        case Name:
            return tr("Name");
        case Category:
            return tr("Category");
        case InputShapes:
            return tr("Input shapes");
        case Calls:
            return tr("Calls");
        case Self:
            return tr("Self");
        case Total:
            return tr("Total");
        case Avg:
            return tr("Avg");
        case Min:
            return tr("Min");
        case Max:
            return tr("Max");
        case SelfPercent:
            return tr("Self %");
        case TotalPercent:
            return tr("Total % of range");
        default:
            return {};
    }
}
