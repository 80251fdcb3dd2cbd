#include "views/diff/diff_table_model.h"

#include <cmath>

#include "core/timeline/time_axis.h"

using ts::analysis::OpChange;
using ts::analysis::OpDiffRow;
using ts::timeline::formatDuration;

DiffTableModel::DiffTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiffTableModel::setRows(std::vector<OpDiffRow> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

QColor DiffTableModel::classColour(OpChange c) {
    switch (c) {
        case OpChange::Slower:
            return QColor(213, 94, 0);
        case OpChange::Faster:
            return QColor(0, 158, 115);
        case OpChange::Added:
            return QColor(160, 90, 200);
        case OpChange::Removed:
            return QColor(86, 120, 160);
        case OpChange::Unchanged:
            break;
    }
    return QColor(150, 150, 150);
}

int DiffTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int DiffTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiffTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const OpDiffRow& r = m_rows[static_cast<size_t>(index.row())];
    const int c = index.column();
    if (role == Qt::BackgroundRole) {
        if (r.change == OpChange::Unchanged) return {};
        QColor tint = classColour(r.change);
        tint.setAlpha(c == Class || c == Delta ? 90 : 35);
        return tint;
    }
    if (role == Qt::TextAlignmentRole)
        return c >= CallsA && c <= AvgB ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role == Qt::ToolTipRole && c == Op) {
        QString tip = QString::fromStdString(r.name);
        if (!r.shapes.empty()) tip += QStringLiteral("\n") + QString::fromStdString(r.shapes);
        auto names = [&](const char* side, const std::vector<std::string>& v) {
            if (v.empty()) return;
            tip += QStringLiteral("\n%1: ").arg(QLatin1String(side));
            for (size_t i = 0; i < v.size(); ++i)
                tip += (i ? QStringLiteral(", ") : QString()) + QString::fromStdString(v[i]);
        };
        names("A", r.namesA);
        names("B", r.namesB);
        if (r.fuzzy) tip += tr("\n(joined by name without numbering)");
        return tip;
    }
    if (role != Qt::DisplayRole && role != SortRole) return {};
    const bool sort = role == SortRole;
    auto time = [&](double ns) {
        return sort ? QVariant(ns) : QVariant(QString::fromStdString(formatDuration(ns)));
    };
    auto count = [&](double n) {
        return sort ? QVariant(n) : QVariant(QString::number(n, 'g', 6));
    };
    switch (c) {
        case Class:
            return QString::fromLatin1(ts::analysis::opChangeKey(r.change));
        case Op:
            return QString::fromStdString(r.shapes.empty() ? r.name : r.name + " " + r.shapes);
        case CallsA:
            return count(r.calls[0]);
        case CallsB:
            return count(r.calls[1]);
        case SelfA:
            return time(r.selfNs[0]);
        case SelfB:
            return time(r.selfNs[1]);
        case Delta:
            if (sort) return std::fabs(r.deltaNs);
            return QString::fromStdString((r.deltaNs >= 0 ? "+" : "-") +
                                          formatDuration(std::fabs(r.deltaNs)));
        case Ratio:
            if (sort) return std::isfinite(r.ratio) ? r.ratio : 1e300;
            return std::isfinite(r.ratio) ? QStringLiteral("×%1").arg(r.ratio, 0, 'f', 2)
                                          : QStringLiteral("—");
        case TotalA:
            return time(r.totalNs[0]);
        case TotalB:
            return time(r.totalNs[1]);
        case AvgA:
            return time(r.avgNs[0]);
        case AvgB:
            return time(r.avgNs[1]);
        case Category:
            return QString::fromStdString(r.category);
        default:
            return {};
    }
}

QVariant DiffTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    static const char* kNames[] = {"Class",  "Op",     "Calls A", "Calls B", "Self A",
                                   "Self B", "Δ self", "Ratio",   "Total A", "Total B",
                                   "Avg A",  "Avg B",  "Category"};
    return section >= 0 && section < ColumnCount ? tr(kNames[section]) : QVariant();
}
