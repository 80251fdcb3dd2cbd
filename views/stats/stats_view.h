#pragma once
// StatsView: the "Op statistics" tab — the key_averages() table over the whole session, the
// last time range selected (timeline area selection, step click, ...) or one ProfilerStep#N,
// grouped by op name or by category, optionally split by input shapes; sortable, filterable
// (name text, and one category: CPU ops, kernels, runtime, memcpy, ...), exportable as CSV.
// Computed on a job when the session or the scope changes, once the tab is visible. Double-clicking
// a row selects its longest call and asks for the timeline view. Its second mode, "Stack
// samples", is the bottom-up table of a CPU profiler's samples (self and total samples per
// function, ts::timeline::computeSampleStats) over the same scopes.
#include <QWidget>
#include <optional>
#include <utility>
#include <vector>

#include "core/timeline/op_stats.h"
#include "core/timeline/sample_stats.h"
#include "views/common/empty_state.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;
class OpStatsFilter;
class OpStatsTableModel;
class SampleStatsTableModel;
class SessionContext;

class StatsView : public QWidget {
    Q_OBJECT
public:
    explicit StatsView(SessionContext* ctx, QWidget* parent = nullptr);

    OpStatsTableModel* tableModel() const { return m_model; }
    OpStatsFilter* proxy() const { return m_proxy; }
    /// "Ops" (0) or "Stack samples" (1).
    QComboBox* modeBox() const { return m_mode; }
    SampleStatsTableModel* samplesModel() const { return m_samplesModel; }
    OpStatsFilter* samplesProxy() const { return m_samplesProxy; }
    QTableView* table() const { return m_table; }
    QComboBox* scopeBox() const { return m_scope; }
    QComboBox* groupBox() const { return m_group; }
    /// "All categories", then each category of the current rows.
    QComboBox* categoryBox() const { return m_category; }
    QCheckBox* shapesBox() const { return m_shapes; }
    /// Lists trace-span annotations too (left out by default, OpStatsOptions).
    QCheckBox* traceSpansBox() const { return m_spans; }
    QLineEdit* filterBox() const { return m_filter; }
    QLabel* summaryLabel() const { return m_summary; }
    /// The page shown when the session holds no op to count (what to do, with buttons).
    EmptyState* emptyState() const { return m_pages.empty; }
    /// Writes the table (all rows, unfiltered) as CSV; false with a message on failure.
    bool exportCsv(const QString& path, QString* error = nullptr) const;

protected:
    void showEvent(QShowEvent* e) override;

private:
    void reload();
    void loadSteps();
    void recompute();
    void updateCategories();
    void recomputeSamples(ts::timeline::SampleStatsOptions o);
    bool samplesMode() const;

    SessionContext* m_ctx;
    OpStatsTableModel* m_model;
    OpStatsFilter* m_proxy;
    SampleStatsTableModel* m_samplesModel;
    OpStatsFilter* m_samplesProxy;
    QTableView* m_table;
    QComboBox* m_mode;
    QComboBox* m_scope;
    QComboBox* m_group;
    QComboBox* m_category;
    QCheckBox* m_shapes;
    QCheckBox* m_spans;
    QLineEdit* m_filter;
    QLabel* m_summary;
    std::vector<ts::timeline::ProfilerStep> m_steps;
    std::optional<std::pair<int64_t, int64_t>> m_range;  // last requested time range
    bool m_stale = false;                                // a recompute was skipped while hidden
    EmptyStatePages m_pages;

public slots:
    /// Puts the cursor in the filter box (Edit > Find).
    void focusSearch();
};
