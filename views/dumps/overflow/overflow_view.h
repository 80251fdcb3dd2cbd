#pragma once
// OverflowView (view "overflow"): every tensor with NaN/Inf, in execution order, the first
// one highlighted. The source is an HDF5 dump (scanned on a worker, order by global_seq,
// creation order or names — the header says which) or a training run of the session
// (its overflow_findings, refreshed while the run is live). Selecting a row shows that
// tensor's statistics, histogram and values below (a run's tensor when its op was dumped).
#include <QWidget>
#include <vector>

#include "views/common/view_registry.h"
#include "views/dumps/overflow/overflow_source.h"

class DatasetPanel;
class QComboBox;
class QLabel;
class QTableWidget;
class QTimer;
class SessionContext;

class OverflowView : public QWidget, public FileViewer {
    Q_OBJECT
public:
    explicit OverflowView(SessionContext* ctx, QWidget* parent = nullptr);
    /// Scans `path` and shows its findings.
    void openFile(const QString& path) override;
    /// Shows the findings of a run of the open session.
    void showRun(qint64 runId);

    QTableWidget* table() const { return m_table; }
    const std::vector<OverflowRow>& rows() const { return m_rows; }
    QString orderText() const { return m_order; }
    QString lastError() const { return m_error; }
    DatasetPanel* panel() const { return m_panel; }

signals:
    void loaded();

private:
    void fillSources();
    void refreshRuns();
    void activateSource(int index);
    void show(const OverflowListing& l);
    void onRowSelected();

    SessionContext* m_ctx;
    QComboBox* m_source;
    QLabel* m_header;
    QTableWidget* m_table;
    DatasetPanel* m_panel;
    QTimer* m_poll;
    std::vector<OverflowRow> m_rows;
    std::vector<RunChoice> m_runs;
    QString m_order, m_error;
    QString m_currentKey;  // "file:<path>" or "run:<id>"
    quint64 m_generation = 0;
    QString m_panelFile;
    std::shared_ptr<const ts::h5::File> m_panelH5;
};
