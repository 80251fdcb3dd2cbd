#include "views/dumps/compare/compare_table_model.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QStringList>

namespace {
QString shapeText(const std::vector<uint64_t>& s) {
    QStringList d;
    for (auto v : s) d << QString::number(v);
    return QStringLiteral("(%1)").arg(d.join(QStringLiteral(", ")));
}
QString fig(double v, bool valid) {
    return valid ? QString::number(v, 'g', 6) : QStringLiteral("—");
}
}  // namespace

void CompareTableModel::setReport(ts::debug::CompareReport report) {
    beginResetModel();
    m_report = std::move(report);
    endResetModel();
}

void CompareTableModel::setThresholds(const ts::debug::CompareThresholds& t) {
    ts::debug::applyThresholds(m_report, t);
    if (!m_report.pairs.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int CompareTableModel::firstDivergentRow() const {
    return m_report.firstDivergent ? static_cast<int>(*m_report.firstDivergent) : -1;
}

int CompareTableModel::rootCauseRow() const {
    const auto& rc = m_report.rootCause;
    if (!rc.unit) return -1;
    for (size_t i = 0; i < m_report.pairs.size(); ++i) {
        const auto& p = m_report.pairs[i];
        if (p.unit == *rc.unit && p.tensor.io != "input" && !p.pass) return static_cast<int>(i);
    }
    return -1;
}

int CompareTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_report.pairs.size());
}

int CompareTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CompareTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const auto& p = m_report.pairs[static_cast<size_t>(index.row())];
    const auto& f = p.figures;
    const bool first = index.row() == firstDivergentRow();
    const bool root = m_report.rootCause.unit && p.unit == *m_report.rootCause.unit;
    const bool rootRow = index.row() == rootCauseRow();
    const bool valid = p.error.empty() && f.finitePairs > 0;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case Index:
                if (first && rootRow) return tr("%1 ◀ first, root cause").arg(index.row() + 1);
                if (rootRow) return tr("%1 ◀ root cause").arg(index.row() + 1);
                return first ? QStringLiteral("%1 ◀ first").arg(index.row() + 1)
                             : QString::number(index.row() + 1);
            case Path:
                return QString::fromStdString(p.tensor.path);
            case Shape:
                return p.shapeMatch ? shapeText(p.shapeA)
                                    : QStringLiteral("%1 ≠ %2").arg(shapeText(p.shapeA),
                                                                    shapeText(p.shapeB));
            case DType:
                return p.dtypeMatch
                           ? QString::fromStdString(p.dtypeA)
                           : QStringLiteral("%1 ≠ %2").arg(QString::fromStdString(p.dtypeA),
                                                           QString::fromStdString(p.dtypeB));
            case Cosine:
                return valid ? QString::number(f.cosine, 'f', 6) : QStringLiteral("—");
            case MaxAbs:
                return fig(f.maxAbs, valid);
            case MaxRel:
                return fig(f.maxRel, valid);
            case MeanAbs:
                return fig(f.meanAbs, valid);
            case Rmse:
                return fig(f.rmse, valid);
            case Mismatch:
                return QString::number(f.nonfiniteMismatch);
            case Pass:
                return !p.error.empty() ? QString::fromStdString(p.error)
                       : p.pass         ? tr("pass")
                                        : tr("FAIL");
            case Share1e3:
                return valid ? QStringLiteral("%1%").arg(100.0 * f.share1e3(), 0, 'f', 2)
                             : QStringLiteral("—");
            case Share5e3:
                return valid ? QStringLiteral("%1%").arg(100.0 * f.share5e3(), 0, 'f', 2)
                             : QStringLiteral("—");
            case PathB:
                return p.pathB == p.tensor.path ? QStringLiteral("=")
                                                : QString::fromStdString(p.pathB);
        }
    } else if (role == Qt::TextAlignmentRole) {
        if ((index.column() >= Cosine && index.column() <= Mismatch) ||
            index.column() == Share1e3 || index.column() == Share5e3)
            return int(Qt::AlignRight | Qt::AlignVCenter);
    } else if (role == Qt::BackgroundRole) {
        if (rootRow) return QBrush(QColor(179, 215, 243));
        if (first) return QBrush(QColor(255, 205, 210));
        if (root) return QBrush(QColor(227, 240, 250));
        if (!p.pass) return QBrush(QColor(255, 243, 224));
    } else if (role == Qt::ForegroundRole) {
        // Dark text on the light tints, whatever the theme (a dark theme's light text would
        // not read on them).
        if (rootRow || first || root || !p.pass) return QBrush(QColor(Qt::black));
    } else if (role == Qt::FontRole && (first || rootRow)) {
        QFont b;
        b.setBold(true);
        return b;
    } else if (role == Qt::ToolTipRole && index.column() == Path) {
        QString tip = tr("%1 finite pairs of %2 positions").arg(f.finitePairs).arg(f.count);
        if (p.unit < m_report.unitNamesA.size())
            tip += tr("\nop: %1").arg(QString::fromStdString(m_report.unitNamesA[p.unit]));
        if (root) tip += tr("\nthe root-cause op: its inputs agree, an output disagrees");
        return tip;
    }
    return {};
}

QVariant CompareTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"#",       "Tensor",  "Shape",    "DType",   "Cosine",
                                  "Max abs", "Max rel", "Mean abs", "RMSE",    "NaN/Inf mismatch",
                                  "Result",  "≤0.1 %",  "≤0.5 %",   "B tensor"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}
