#pragma once
// DiffView (view "diff"): run against run. Pick A and B (a profile of any known session, the
// steady steps or one step each), optionally a name map and grouping by input shapes; the
// diff runs on a job (ts::analysis::diffRuns) with progress and Cancel, a newer request
// superseding an older one. Shows the sentence that explains the change, the op table (A, B,
// change and class, sortable, tinted by class, filterable), the step split as paired bars,
// and below, for the op double-clicked (at first the largest change), both timelines zoomed
// to it in the aligned steps on one time scale with the aligned pairs linked.
#include <QWidget>
#include <memory>

#include "core/analysis/diff/run_diff.h"

class DiffMemoryPanel;
class DiffSidePicker;
class DiffSplitPlot;
class DiffTableModel;
class DiffTimelines;
class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class SessionContext;

class DiffView : public QWidget {
    Q_OBJECT
public:
    explicit DiffView(SessionContext* ctx, QWidget* parent = nullptr);

    /// Runs the diff of the sides picked now.
    void compare();
    /// Shows op row `row` (of the model, not the proxy) in the timelines.
    void showRow(int row);

    DiffSidePicker* picker() const { return m_picker; }
    DiffTableModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* table() const { return m_table; }
    DiffSplitPlot* splitPlot() const { return m_split; }
    DiffTimelines* timelines() const { return m_timelines; }
    DiffMemoryPanel* memoryPanel() const { return m_memory; }
    QLabel* summary() const { return m_summary; }
    /// The diff shown (null before the first one or after an error).
    std::shared_ptr<const ts::analysis::RunDiff> diff() const { return m_diff; }
    QString lastError() const { return m_error; }

signals:
    /// A diff finished (or failed: lastError()).
    void compared();

private:
    void showDiff(std::shared_ptr<const ts::analysis::RunDiff> d);
    void showError(const QString& message);

    SessionContext* m_ctx;
    DiffSidePicker* m_picker;
    DiffMemoryPanel* m_memory;
    QComboBox* m_by;
    QLineEdit* m_map;
    QLabel* m_summary;
    QLineEdit* m_filter;
    DiffTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    DiffSplitPlot* m_split;
    DiffTimelines* m_timelines;
    std::shared_ptr<const ts::analysis::RunDiff> m_diff;
    QString m_error;
    quint64 m_generation = 0;
};
