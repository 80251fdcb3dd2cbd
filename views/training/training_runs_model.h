#pragma once
// TrainingRunsModel: the session's training runs as a table (run, status, model, dataset,
// epochs, steps, test accuracy, eval loss, samples/s, started), newest first. Qt::UserRole on
// any cell gives the run id; SortRole gives sortable numbers.
#include <QAbstractTableModel>
#include <vector>

#include "core/run/run_summary.h"

class TrainingRunsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        RunCol,
        StatusCol,
        ModelCol,
        DatasetCol,
        EpochsCol,
        StepsCol,
        AccuracyCol,
        LossCol,
        RateCol,
        StartedCol,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit TrainingRunsModel(QObject* parent = nullptr);

    void setRuns(std::vector<ts::run::RunSummary> runs);
    /// The run with this id, or nullptr.
    const ts::run::RunSummary* run(qint64 id) const;
    /// The row of a run id, or -1.
    int rowOf(qint64 id) const;
    const ts::run::RunSummary& at(int row) const { return m_runs[static_cast<size_t>(row)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<ts::run::RunSummary> m_runs;  // newest first
};
