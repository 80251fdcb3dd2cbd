#pragma once
// DiffMemoryPanel: the Diff view's "Memory" tab — the two sides' peak memory and, per op (or
// op and input shapes), the bytes allocated and still held, per step, A beside B with the
// change, largest change first (core/memory/memory_diff). Computed on a job when the view
// compares.
#include <QWidget>
#include <optional>

#include "core/analysis/diff/memory_diff.h"

class QLabel;
class QTableWidget;
class SessionContext;

class DiffMemoryPanel : public QWidget {
    Q_OBJECT
public:
    explicit DiffMemoryPanel(SessionContext* ctx, QWidget* parent = nullptr);
    void compare(const ts::analysis::DiffSideSpec& a, const ts::analysis::DiffSideSpec& b,
                 bool byShape);
    QLabel* summary() const { return m_summary; }
    QTableWidget* table() const { return m_table; }
    const std::optional<ts::memory::MemoryDiff>& diff() const { return m_diff; }

    enum Column { Op, Shapes, AllocatedA, AllocatedB, Change, NetA, NetB, ColumnCount };

signals:
    void compared();

private:
    void show(const ts::memory::MemoryDiff& d);

    SessionContext* m_ctx;
    QLabel* m_summary;
    QTableWidget* m_table;
    std::optional<ts::memory::MemoryDiff> m_diff;
};
