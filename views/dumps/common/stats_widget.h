#pragma once
// StatsWidget: statistics of one numeric dataset (count, min, max, mean, std over finite
// values; NaN, +Inf, -Inf and zero counts) and its histogram (QCustomPlot) with linear or
// logarithmic (|x| by binary magnitude) bins and optionally log counts. The passes run on a
// JobTracker worker with progress and Cancel; a newer dataset supersedes a running one.
#include <QWidget>
#include <memory>

#include "views/dumps/common/dataset_stats_job.h"

class JobTracker;
class QCheckBox;
class QCustomPlot;
class QLabel;
class QProgressBar;
class QSpinBox;
class QToolButton;

class StatsWidget : public QWidget {
    Q_OBJECT
public:
    StatsWidget(JobTracker* jobs, QWidget* parent = nullptr);

    /// Computes the statistics of `path` in `file` (empty path: clears).
    void setDataset(std::shared_ptr<const ts::h5::File> file, const QString& path);
    void setLogBins(bool on);
    void setBins(int bins);
    /// The last result (ok() false while running or on error).
    const DatasetStatsResult& result() const { return m_result; }
    bool running() const { return m_running; }
    QCustomPlot* plot() const { return m_plot; }

signals:
    /// Statistics (and histogram) of the current dataset are shown.
    void statsReady(const DatasetStatsResult& result);

private:
    void start();
    void rebin();
    void show(const DatasetStatsResult& r);
    void drawHistogram();
    void setRunning(bool on);

    JobTracker* m_jobs;
    std::shared_ptr<const ts::h5::File> m_file;
    QString m_path;
    DatasetStatsResult m_result;
    QLabel* m_grid;
    QLabel* m_note;
    QCustomPlot* m_plot;
    QSpinBox* m_bins;
    QCheckBox* m_logBins;
    QCheckBox* m_logCounts;
    QProgressBar* m_progress;
    QToolButton* m_cancel;
    quint64 m_job = 0;
    bool m_running = false;
    quint64 m_generation = 0;
};
