#pragma once
// StepsView: the "Steps" tab — one stacked bar per ProfilerStep#N of a profile (iteration
// gap, forward, backward, optimizer, tail = callbacks and the rest; or data loading / CPU
// ops / other for an imported trace without phases), slow steps and a warm-up first step
// flagged in red with a label, and a legend. Hovering a bar shows all its figures; clicking
// it shows the timeline zoomed to that step. The profile
// is the newest one of the session unless another is chosen in the combo box; analysed on
// a job when the session or its data change.
#include <QWidget>
#include <optional>
#include <vector>

#include "core/analysis/profile/profile_report.h"
#include "views/common/empty_state.h"

class QCPBars;
class QCustomPlot;
class QLabel;
class ProfileSourceBox;
class SessionContext;

class StepsView : public QWidget {
    Q_OBJECT
public:
    /// The page shown when the session has no profile (what to do, with buttons).
    EmptyState* emptyState() const { return m_pages.empty; }
    explicit StepsView(SessionContext* ctx, QWidget* parent = nullptr);

    QCustomPlot* plot() const { return m_plot; }
    /// The stacked bar series, bottom first.
    const std::vector<QCPBars*>& bars() const { return m_bars; }
    ProfileSourceBox* sourceBox() const { return m_sources; }
    QLabel* summaryLabel() const { return m_summary; }
    /// The analysis shown, nullopt before the first load or after an error.
    const std::optional<ts::analysis::StepAnalysis>& steps() const { return m_steps; }
    /// Zooms the timeline to step `index` (position in steps()) and shows the timeline.
    void activateStep(int index);

    /// Index (in steps()) of the bar under `pos` in plot coordinates, -1 when none.
    int stepAt(const QPoint& pos) const;
    /// The figures of step `index` as rich text (the bar's tooltip).
    QString stepToolTip(int index) const;

private:
    void reload(qint64 sourceId);
    void show(const ts::analysis::ProfileReport& report);
    void showError(const QString& message);

    SessionContext* m_ctx;
    ProfileSourceBox* m_sources;
    QLabel* m_summary;
    EmptyStatePages m_pages;  // the empty state when there is no profile
    QCustomPlot* m_plot;
    std::vector<QCPBars*> m_bars;
    std::optional<ts::analysis::StepAnalysis> m_steps;
};
