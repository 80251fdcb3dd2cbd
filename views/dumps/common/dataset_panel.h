#pragma once
// DatasetPanel: everything about one HDF5 object, used by the inspector, the Overflow and
// the Compare views. Top: its description (path, shape, dtype with compound fields,
// layout, chunking, compression and filters, storage) beside its attributes; middle: the
// statistics and histogram (StatsWidget); bottom: its values as a paged table, a heatmap of
// a 2-D slice, or a line plot for 1-D, with a slice selector for the dimensions not shown.
// Groups show their description and attributes only.
#include <QWidget>
#include <memory>

#include "core/hdf5/h5_file.h"
#include "views/dumps/common/slice_spec.h"

class HeatmapWidget;
class JobTracker;
class LinePlotWidget;
class QLabel;
class QTabWidget;
class QTableView;
class QTableWidget;
class SliceSelector;
class StatsWidget;
class ValuesTableModel;

class DatasetPanel : public QWidget {
    Q_OBJECT
public:
    DatasetPanel(JobTracker* jobs, QWidget* parent = nullptr);
    /// Shows the object at `path` of `file` (empty path: nothing).
    void showObject(std::shared_ptr<const ts::h5::File> file, const QString& path);
    /// Shows nothing but `message` (e.g. why a finding has no tensor to show).
    void showMessage(const QString& message);
    QString path() const { return m_path; }
    StatsWidget* stats() const { return m_stats; }
    HeatmapWidget* heatmap() const { return m_heatmap; }
    LinePlotWidget* linePlot() const { return m_line; }
    ValuesTableModel* values() const { return m_values; }
    QTabWidget* tabs() const { return m_tabs; }
    SliceSelector* sliceSelector() const { return m_slice; }
    QTableWidget* attributes() const { return m_attrs; }
    /// Index of the tabs: values, heatmap, plot.
    enum Tab { ValuesTab = 0, HeatmapTab = 1, PlotTab = 2 };

private:
    void onSlice(const SliceSpec& spec);
    void refreshVisibleTab();

    JobTracker* m_jobs;
    std::shared_ptr<const ts::h5::File> m_file;
    QString m_path;
    ts::h5::DatasetInfo m_info;
    bool m_isDataset = false;
    QLabel* m_desc;
    QTableWidget* m_attrs;
    StatsWidget* m_stats;
    SliceSelector* m_slice;
    QTabWidget* m_tabs;
    QTableView* m_table;
    ValuesTableModel* m_values;
    HeatmapWidget* m_heatmap;
    LinePlotWidget* m_line;
    quint64 m_generation = 0;
    bool m_heatmapStale = true, m_lineStale = true;
};
