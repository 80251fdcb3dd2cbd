#pragma once
// DiffTableModel: the op table of a run diff (ts::analysis::RunDiff::ops) as an item model —
// class, op (and shapes), calls, self, total and avg of A and B, the change and the ratio.
// Rows are tinted by class (slower red, faster green, added purple, removed blue-grey).
// Display role: readable text; SortRole: the raw value (numbers as doubles, |change| for the
// change column so a sort puts the biggest changes first).
#include <QAbstractTableModel>
#include <QColor>

#include "core/analysis/diff/run_diff.h"

class DiffTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Class,
        Op,
        CallsA,
        CallsB,
        SelfA,
        SelfB,
        Delta,
        Ratio,
        TotalA,
        TotalB,
        AvgA,
        AvgB,
        Category,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;

    explicit DiffTableModel(QObject* parent = nullptr);
    void setRows(std::vector<ts::analysis::OpDiffRow> rows);
    const std::vector<ts::analysis::OpDiffRow>& rows() const { return m_rows; }
    /// The colour of a class (tints the row; the split plot and links use it too).
    static QColor classColour(ts::analysis::OpChange c);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::vector<ts::analysis::OpDiffRow> m_rows;
};
