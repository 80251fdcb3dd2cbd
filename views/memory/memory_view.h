#pragma once
// MemoryView: the "Memory" tab — memory in use over time with its peak marked, the pool
// (reserved) size, the other devices' curves, the step starts, a table of the largest
// allocations live at the peak (op, shape, bytes, tensor) and the memory by op (allocated,
// freed, net per op, or per op and input shape: core/memory/op_memory). The profile is the
// newest of the session unless another is chosen; analysed on jobs. Double-clicking an
// allocation zooms the timeline to the time from its allocation to the peak.
#include <QWidget>
#include <optional>

#include "core/analysis/profile/memory_analysis.h"
#include "core/memory/op_memory.h"
#include "views/common/empty_state.h"

class QCheckBox;
class QCustomPlot;
class QLabel;
class QTabWidget;
class QTableWidget;
class ProfileSourceBox;
class SessionContext;

class MemoryView : public QWidget {
    Q_OBJECT
public:
    /// The page shown when the session has no profile (what to do, with buttons).
    EmptyState* emptyState() const { return m_pages.empty; }
    explicit MemoryView(SessionContext* ctx, QWidget* parent = nullptr);

    QCustomPlot* plot() const { return m_plot; }
    QTableWidget* table() const { return m_table; }
    ProfileSourceBox* sourceBox() const { return m_sources; }
    QLabel* summaryLabel() const { return m_summary; }
    QTableWidget* opTable() const { return m_opTable; }
    QCheckBox* byShapeBox() const { return m_byShape; }
    const std::optional<ts::analysis::MemoryAnalysis>& memory() const { return m_memory; }
    const std::optional<ts::memory::OpMemory>& opMemory() const { return m_opMemory; }

    enum Column { Op, Shape, Bytes, Tensor, AllocatedAt, ColumnCount };
    enum OpColumn { OpName, OpShapes, OpAllocations, OpAllocated, OpFreed, OpNet, OpColumnCount };

private:
    void reload(qint64 sourceId);
    void show(const ts::analysis::MemoryAnalysis& m, const QString& sourceLabel);
    void showError(const QString& message);
    void showOps();

    SessionContext* m_ctx;
    ProfileSourceBox* m_sources;
    QLabel* m_summary;
    EmptyStatePages m_pages;  // the empty state when there is no profile
    QCustomPlot* m_plot;
    QTableWidget* m_table;
    QTableWidget* m_opTable;
    QCheckBox* m_byShape;
    std::optional<ts::analysis::MemoryAnalysis> m_memory;
    std::optional<ts::memory::OpMemory> m_opMemory;
    std::vector<std::pair<int64_t, int64_t>> m_stepStarts;  // (step number, ts) of the profile
};
