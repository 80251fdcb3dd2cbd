#pragma once
// ClusterView: the "Cluster" tab — every rank of a data-parallel job side by side. A rank x
// step heatmap (step time, work, wait or idle per cell; click a cell: that rank's timeline
// zoomed to that step), per-rank bars of compute / wait / idle lined up with the heatmap's
// rows, and below: the stragglers with their evidence, the ranks' figures, and one rank's
// op statistics against the median rank. Shows the ranks of the open session (sources with
// a rank; else the session is one rank) or, once opened, a folder of rank_<r>.tscope files
// (FileViewer::openFile), whose ranks are sessions of their own: a click opens that rank's
// session in the studio first. Analysed on a job (core/analysis/cluster_analysis.h) when
// the tab is visible and the session or its data change.
#include <QWidget>
#include <memory>
#include <optional>

#include "core/analysis/cluster/cluster_matrix.h"
#include "core/analysis/cluster/cluster_summary.h"
#include "views/cluster/heatmap_viewport.h"
#include "views/common/view_registry.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class ClusterHeatmap;
class FigureTableModel;
class RankBars;
class SessionContext;

class ClusterView : public QWidget, public FileViewer {
    Q_OBJECT
public:
    explicit ClusterView(SessionContext* ctx, QWidget* parent = nullptr);

    /// Shows the ranks of a folder of rank_<r>.tscope files (or of a session file).
    void openFile(const QString& path) override;
    /// Back to the ranks of the open session.
    void followSession();

    ClusterHeatmap* heatmap() const { return m_heatmap; }
    RankBars* bars() const { return m_bars; }
    HeatmapViewport* viewport() { return &m_viewport; }
    QComboBox* metricBox() const { return m_metric; }
    QComboBox* rankBox() const { return m_rankBox; }
    QLabel* summaryLabel() const { return m_summaryLabel; }
    /// "Ops vs. median rank": sorted by the Δ column, largest difference first.
    QTableView* opsTable() const { return m_opsTable; }
    QLabel* opsLabel() const { return m_opsLabel; }
    QTabWidget* tabs() const { return m_tabs; }
    FigureTableModel* stragglerModel() const { return m_stragglers; }
    FigureTableModel* rankModel() const { return m_ranks; }
    FigureTableModel* opModel() const { return m_ops; }
    /// The summary shown (nullptr before the first load or after an error).
    std::shared_ptr<const ts::analysis::ClusterSummary> summary() const { return m_summary; }
    /// Shows `summary` (what the load job delivers; benchmarks and tests hand one in).
    void setSummary(std::shared_ptr<const ts::analysis::ClusterSummary> summary,
                    std::shared_ptr<const ts::analysis::ClusterMatrix> matrix);
    /// Opens rank `row`'s timeline at step column `col` (a heatmap click).
    void activateCell(int row, int col);
    /// Compares rank `row`'s ops with the median rank's (the ops tab).
    void compareOps(int row);

protected:
    void showEvent(QShowEvent* e) override;

private:
    void reload();
    void showError(const QString& message);
    void onSessionChanged(const QString& path);
    QStringList inputPaths() const;

    SessionContext* m_ctx;
    QString m_folder;  // non-empty: the ranks of this folder, not of the open session
    QLabel* m_inputLabel;
    QPushButton* m_sessionButton;
    QComboBox* m_metric;
    QLabel* m_summaryLabel;
    HeatmapViewport m_viewport;
    ClusterHeatmap* m_heatmap;
    RankBars* m_bars;
    QTabWidget* m_tabs;
    FigureTableModel* m_stragglers;
    FigureTableModel* m_ranks;
    FigureTableModel* m_ops;
    QComboBox* m_rankBox;
    QLabel* m_opsLabel;
    QTableView* m_opsTable = nullptr;
    std::shared_ptr<const ts::analysis::ClusterSummary> m_summary;
    bool m_stale = true;
    /// A click on a rank of another session: open it, then show the step there.
    struct PendingStep {
        QString session;
        int64_t sliceId = 0, ts = 0, end = 0;
    };
    std::optional<PendingStep> m_pending;
};
