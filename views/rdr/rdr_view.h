#pragma once
// RdrView: one Running Data Recorder export. A summary of what failed and where (reason,
// failing op, epoch/step, the error text), then tabs: graph IR (coloured, searchable),
// execution order of the previous and current step (failing op highlighted; selecting a
// row finds the op in the IR; "Show in IR" jumps there), memory in use over time (ms since
// the first recorded event) with failed allocations marked, plus the allocation table, the
// last log lines (coloured by level) and the run state. The folder is read by core
// (ts::rdr::readRdrExport) on a background job.
#include <QWidget>

#include "core/debug/rdr/rdr_reader.h"
#include "views/common/view_registry.h"

class QCustomPlot;
class QLabel;
class QPushButton;
class QLineEdit;
class QPlainTextEdit;
class QTableWidget;
class QTabWidget;
class SessionContext;

class RdrView : public QWidget, public FileViewer {
    Q_OBJECT
public:
    explicit RdrView(SessionContext* ctx, QWidget* parent = nullptr);

    /// Loads the export under `path` (folder, parent of rank_*/rdr, or rdr_index.json).
    void openFile(const QString& path) override;
    /// The export shown (empty until a load succeeded).
    const ts::rdr::RdrExport& exportData() const { return m_export; }
    /// Finds `text` in the IR after the cursor (wrapping); false when absent.
    bool findInIr(const QString& text);

signals:
    /// Emitted after a load finished; `error` is empty on success.
    void loaded(const QString& error);

private:
    void showExport(ts::rdr::RdrExport e);
    void showError(const QString& message);
    void fillExecTable();
    void fillMemory();
    void onExecRowSelected();
    void markFailingRow(int row);

    SessionContext* m_ctx;
    ts::rdr::RdrExport m_export;
    QLabel* m_summary;
    QTabWidget* m_tabs;
    QLineEdit* m_irSearch;
    QLabel* m_irStatus;
    QLabel* m_memSummary;
    QPushButton* m_showInIr;
    QPlainTextEdit* m_ir;
    QTableWidget* m_exec;
    QCustomPlot* m_memPlot;
    QTableWidget* m_memTable;
    QPlainTextEdit* m_logs;
    QPlainTextEdit* m_runState;
};
