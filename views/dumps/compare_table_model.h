#pragma once
// CompareTableModel: the pairs of a dump comparison (ts::h5::CompareReport) in execution
// order: path, shape and dtype match, cosine, max abs, max rel, mean abs, RMSE, NaN/Inf
// mismatches, pass. Failing pairs are tinted, the first divergent one strongly.
#include <QAbstractTableModel>

#include "importers/hdf5/dump_scan.h"

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
        ColumnCount
    };
    using QAbstractTableModel::QAbstractTableModel;

    void setReport(ts::h5::CompareReport report);
    /// Re-evaluates pass flags and the first divergent pair (no re-read).
    void setThresholds(const ts::h5::CompareThresholds& t);
    const ts::h5::CompareReport& report() const { return m_report; }
    /// Row of the first divergent pair, -1 when all pass.
    int firstDivergentRow() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    ts::h5::CompareReport m_report;
};
