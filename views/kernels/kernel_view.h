#pragma once
// KernelView: the "Kernels" tab — the device kernels of a trace in one table: grouped by
// name or by name + launch configuration (grid, block, registers, shared memory), with
// calls, total, mean, min, max, share of kernel time, est. achieved and theoretical
// occupancy and what limits it, blocks per SM, the Tensor Core flag, and the op that
// launched them with its input shapes (Ascend kernels with their AI Core / AI Vector pipeline
// ratios). Sortable, filterable by name or op; double-click a row to see its longest call in
// the timeline; "Export CSV…" writes every row. The trace is the newest source with device
// work unless another is chosen; read on a job when the session or its data change.
#include <QWidget>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/gpu/device_properties.h"
#include "core/analysis/gpu/kernel_table.h"
#include "core/common/job_control.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class KernelTableModel;
class SessionContext;

/// What the view's job reads: the sources with device work and the chosen one's tables.
struct KernelViewData {
    std::vector<std::pair<int64_t, std::string>> sources;  // id, label; newest first
    int64_t sourceId = -1;
    std::string vendor;
    std::vector<ts::analysis::gpu::DeviceProperties> devices;
    ts::analysis::gpu::KernelTable byName, byConfig;
    std::string error;
};

/// Reads `sourceId` (-1: the newest with device work) of the session at `path`.
KernelViewData loadKernelViewData(const std::string& path, int64_t sourceId, ts::JobControl& job);

class KernelView : public QWidget {
    Q_OBJECT
public:
    explicit KernelView(SessionContext* ctx, QWidget* parent = nullptr);

    QTableView* table() const { return m_table; }
    KernelTableModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QComboBox* groupBox() const { return m_group; }
    QComboBox* sourceBox() const { return m_sources; }
    QLineEdit* filterEdit() const { return m_filter; }
    QLabel* summaryLabel() const { return m_summary; }
    /// Writes the table as shown (the grouping chosen, every row) to `path` on a job;
    /// `done(error)` on the UI thread ("" when written).
    void exportCsv(const QString& path, std::function<void(const QString&)> done = {});

private:
    void reload(qint64 sourceId);
    void show(KernelViewData data);
    void applyGrouping();
    void activateRow(const QModelIndex& index);

    SessionContext* m_ctx;
    QComboBox* m_sources;
    QComboBox* m_group;
    QLineEdit* m_filter;
    QPushButton* m_export;
    QLabel* m_summary;
    QTableView* m_table;
    KernelTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    std::optional<KernelViewData> m_data;
};
