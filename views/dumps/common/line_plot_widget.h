#pragma once
// LinePlotWidget: a 1-D numeric dataset (or the first row of a slice) as a line, index on
// x. Long series are shown by every k-th value (at most kMaxPoints, said in the caption);
// NaN leaves a gap and ±Inf is marked with a red tick at the plot's edge.
#include <QWidget>
#include <memory>

#include "core/hdf5/h5_file.h"
#include "views/dumps/common/slice_spec.h"

class JobTracker;
class QCustomPlot;
class QLabel;

class LinePlotWidget : public QWidget {
    Q_OBJECT
public:
    static constexpr uint64_t kMaxPoints = 200000;
    LinePlotWidget(JobTracker* jobs, QWidget* parent = nullptr);
    void setSeries(std::shared_ptr<const ts::h5::File> file, const QString& path,
                   const SliceSpec& spec);
    void clear(const QString& message = {});
    QCustomPlot* plot() const { return m_plot; }
    int points() const { return m_points; }

signals:
    void loaded();

private:
    JobTracker* m_jobs;
    QCustomPlot* m_plot;
    QLabel* m_caption;
    quint64 m_generation = 0;
    int m_points = 0;
};
