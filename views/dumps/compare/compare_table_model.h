#pragma once
// CompareTableModel: the pairs of a dump comparison (ts::debug::CompareReport) in execution
// order: path, shape and dtype match, cosine, max abs, max rel, mean abs, RMSE, NaN/Inf
// mismatches, pass, the shares within 0.1 % / 0.5 % relative error and B's tensor. Failing
// pairs are tinted, the first divergent one strongly; the root-cause op's pairs (inputs
// agree, an output disagrees) are marked apart in blue.
#include <QAbstractTableModel>

#include "core/debug/dump_scan.h"

class CompareTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Index,
        Path,
        Shape,
        DType,
        Cosine,
        MaxAbs,
        MaxRel,
        MeanAbs,
        Rmse,
        Mismatch,
        Pass,
        Share1e3,
        Share5e3,
        PathB,
        ColumnCount
    };
    using QAbstractTableModel::QAbstractTableModel;

    void setReport(ts::debug::CompareReport report);
    /// Re-evaluates pass flags and the first divergent pair (no re-read).
    void setThresholds(const ts::debug::CompareThresholds& t);
    const ts::debug::CompareReport& report() const { return m_report; }
    /// Row of the first divergent pair, -1 when all pass.
    int firstDivergentRow() const;
    /// Row of the root-cause op's first failing output, -1 when there is no root cause.
    int rootCauseRow() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    ts::debug::CompareReport m_report;
};
