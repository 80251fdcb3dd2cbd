#pragma once
// SnapshotView: the "Memory snapshot" tab — a PyTorch CUDA memory snapshot (*.pickle, opened
// with File > Open, `trainscope FILE.pickle` or its Open button) as memory_viz shows it, and
// answered: the active-memory timeline (hover: size, address, stream, frames), the
// allocator's state at any moment (the peak, the end, each OOM, or any event) with its
// segments and fragmentation, the allocations alive at the peak grouped by site, and the
// answers (peak, leaks, OOM causes). Read on a job; "Import into session" puts it beside the
// session's traces (importers/torch_memory).
#include <QWidget>
#include <memory>

#include "core/memory/allocator_state.h"
#include "views/common/view_registry.h"
#include "views/memory/snapshot_data.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QSpinBox;
class QTabWidget;
class QTableWidget;
class QTextBrowser;
class QToolButton;
class QTreeWidget;
class SegmentMapWidget;
class SessionContext;
class SnapshotTimelineWidget;

class SnapshotView : public QWidget, public FileViewer {
    Q_OBJECT
public:
    explicit SnapshotView(SessionContext* ctx, QWidget* parent = nullptr);
    void openFile(const QString& path) override;

    const std::shared_ptr<const SnapshotData>& data() const { return m_data; }
    QLabel* summaryLabel() const { return m_summary; }
    QTabWidget* tabs() const { return m_tabs; }
    SnapshotTimelineWidget* timeline() const { return m_timeline; }
    SegmentMapWidget* segmentMap() const { return m_segments; }
    QTableWidget* segmentTable() const { return m_segmentTable; }
    QTreeWidget* peakTree() const { return m_peak; }
    QTextBrowser* answers() const { return m_answers; }
    QPlainTextEdit* details() const { return m_details; }
    QComboBox* momentBox() const { return m_moment; }
    QToolButton* importButton() const { return m_import; }
    /// Shows the allocator state after `event` of the current device (the peak and the end at
    /// once, other moments when a job has replayed the trace back to them).
    void showStateAt(int event);

signals:
    void loaded();

private:
    void showData(std::shared_ptr<const SnapshotData> d);
    void showDevice(int device);
    void fillPeakTree();
    void showState(ts::memory::AllocatorState st);
    void importIntoSession();

    SessionContext* m_ctx;
    QString m_path;
    std::shared_ptr<const SnapshotData> m_data;
    int m_device = 0;
    QLabel* m_summary;
    QComboBox* m_deviceBox;
    QToolButton* m_import;
    QTabWidget* m_tabs;
    SnapshotTimelineWidget* m_timeline;
    QComboBox* m_moment;
    QSpinBox* m_event;
    SegmentMapWidget* m_segments;
    QTableWidget* m_segmentTable;
    QLabel* m_stateLine;
    QTreeWidget* m_peak;
    QTextBrowser* m_answers;
    QPlainTextEdit* m_details;
};
