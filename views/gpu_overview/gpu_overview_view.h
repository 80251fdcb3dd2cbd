#pragma once
// GpuOverviewView: the "GPU" tab — the device side of a profile. At the top the TensorBoard
// profiler plugin's GPU summary (GPU utilisation, est. SM efficiency, est. achieved
// occupancy, Tensor Core share, the device); then the plugin's step split as stacked bars,
// one per step (kernel, memcpy, memset, communication, runtime, data loading, CPU
// execution, other) with the split explained under it; then two tables side by side, named
// apart: HTA's figures under HTA's definitions (temporal breakdown, comm-comp overlap, idle
// time causes per stream, kernel launch statistics, memory bandwidth, queue length, user
// annotations) and the studio's own per-step figures (every joined step, the last one too);
// and communication per collective when the trace has any; for Ascend sessions, msprof's step
// trace and communication (wait / transit / bandwidth per link type) from the profiler folder.
// Hovering a bar shows its figures; clicking it zooms the timeline to the step. Analysed on a job.
#include <QWidget>
#include <optional>
#include <vector>

#include "core/analysis/profile/profile_report.h"

class QCPBars;
class QCustomPlot;
class QLabel;
class QTableWidget;
class ProfileSourceBox;
class SessionContext;

class GpuOverviewView : public QWidget {
    Q_OBJECT
public:
    explicit GpuOverviewView(SessionContext* ctx, QWidget* parent = nullptr);

    QLabel* summaryLabel() const { return m_summary; }
    QLabel* splitHelpLabel() const { return m_splitHelp; }
    QCustomPlot* plot() const { return m_plot; }
    const std::vector<QCPBars*>& bars() const { return m_bars; }
    QTableWidget* htaTable() const { return m_hta; }
    QTableWidget* studioTable() const { return m_studio; }
    QTableWidget* commTable() const { return m_comm; }
    QTableWidget* ascendTable() const { return m_ascend; }
    const std::optional<ts::analysis::gpu::GpuReport>& report() const { return m_report; }
    /// Index of the step bar under `pos` (plot coordinates), -1 when none.
    int stepAt(const QPoint& pos) const;
    QString stepToolTip(int index) const;

private:
    void reload(qint64 sourceId);
    void show(const ts::analysis::ProfileReport& report);
    void showError(const QString& message);
    void fillTables(const ts::analysis::gpu::GpuReport& g);
    void fillAscend(const ts::analysis::gpu::AscendTables& t);

    SessionContext* m_ctx;
    ProfileSourceBox* m_sources;
    QLabel* m_summary;
    QCustomPlot* m_plot;
    QLabel* m_splitHelp;
    QTableWidget* m_hta;
    QTableWidget* m_studio;
    QTableWidget* m_comm;
    QTableWidget* m_ascend;
    std::vector<QCPBars*> m_bars;
    std::optional<ts::analysis::gpu::GpuReport> m_report;
};
