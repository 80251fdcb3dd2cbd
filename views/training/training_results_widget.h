#pragma once
// TrainingResultsWidget: the outcome of one run: how it ended, the test-split evaluation
// (accuracy, loss, macro precision/recall/F1), per-class precision/recall/F1 beside the
// confusion matrix (cells shaded by count), memory peak, overflowed steps, warnings and the
// checkpoints it kept (double-click one to open it). A command run shows how its processes
// ended, what it printed and what it left: imported traces, dumps and crash records
// (double-click one to open it).
#include <QWidget>

#include "core/run/run_summary.h"

class QLabel;
class QListWidget;
class QTabWidget;
class QTableWidget;

class TrainingResultsWidget : public QWidget {
    Q_OBJECT
public:
    explicit TrainingResultsWidget(QWidget* parent = nullptr);

    void showRun(const ts::run::RunSummary& run);
    void clear(const QString& message);

    QTableWidget* perClassTable() const { return m_perClass; }
    QTableWidget* confusionTable() const { return m_confusion; }
    QListWidget* checkpointList() const { return m_checkpoints; }
    QString headline() const;

    /// Class names for a dataset ("T-shirt/top", ... for fashion-mnist; "0", "1", ... else).
    static QStringList classNames(const std::string& dataset, int classes);

signals:
    void openCheckpoint(const QString& path);

private:
    QLabel* m_head;
    QLabel* m_detail;
    QTableWidget* m_perClass;
    QTableWidget* m_confusion;
    QListWidget* m_checkpoints;
    QTabWidget* m_tables;

    void showCommandRun(const ts::run::RunSummary& run);
};
