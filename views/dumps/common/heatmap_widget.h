#pragma once
// HeatmapWidget: a 2-D slice of a numeric dataset as a QCPColorMap with a colour scale.
// Slices larger than kMaxCells per side are shown by every k-th row/column (said in the
// caption). NaN cells are drawn magenta; ±Inf take the colour of the scale's ends (which
// span the finite values) and carry a cyan triangle, up for +Inf, down for -Inf. Read on a
// JobTracker worker.
// On large maps NaN cells are also circled, or a single one would be invisible.
#include <QWidget>
#include <memory>

#include "core/hdf5/h5_file.h"
#include "views/dumps/common/slice_spec.h"

class JobTracker;
class QCPColorMap;
class QCPColorScale;
class QCPGraph;
class QCustomPlot;
class QLabel;

class HeatmapWidget : public QWidget {
    Q_OBJECT
public:
    static constexpr uint64_t kMaxCells = 1024;
    HeatmapWidget(JobTracker* jobs, QWidget* parent = nullptr);
    void setSlice(std::shared_ptr<const ts::h5::File> file, const QString& path,
                  const SliceSpec& spec);
    void clear(const QString& message = {});
    QCustomPlot* plot() const { return m_plot; }
    /// Cells shown (rows x columns) after the last load.
    QSize cells() const { return m_cells; }

signals:
    void loaded();

private:
    JobTracker* m_jobs;
    QCustomPlot* m_plot;
    QCPColorMap* m_map;
    QCPColorScale* m_scale;
    QCPGraph* m_posInf;
    QCPGraph* m_negInf;
    QCPGraph* m_nan;
    QLabel* m_caption;
    quint64 m_generation = 0;
    QSize m_cells;
};
