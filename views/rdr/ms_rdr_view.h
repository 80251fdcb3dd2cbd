#pragma once
// MsRdrView (view "msrdr"): a MindSpore RDR export folder (rank_<id>/rdr/, written by
// MindSpore's Running Data Recorder; core/debug/rdr/ms_rdr_reader.h) as MindSpore wrote it:
// a summary (folder, rank, the failing op where MindSpore's task-failure lines name it),
// then tabs: every file with its kind (none left out); the graph IR files with syntax
// colouring and search; the execution order of each graph with the failing op marked red
// (selecting a row finds the op in the IR); the stream execution order; the kernels'
// memory addresses; the Ascend task list; the graph protobufs' nodes; other text records.
// The studio's own RDR format stays in the "rdr" view; both open from the same places.
#include <QWidget>

#include "core/debug/rdr/ms_rdr_reader.h"
#include "views/common/view_registry.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTableWidget;
class QTabWidget;
class SessionContext;

class MsRdrView : public QWidget, public FileViewer {
    Q_OBJECT
public:
    explicit MsRdrView(SessionContext* ctx, QWidget* parent = nullptr);
    void openFile(const QString& path) override;
    const ts::rdr::MsRdrExport& exportData() const { return m_export; }
    QTabWidget* tabs() const { return m_tabs; }
    QTableWidget* filesTable() const { return m_files; }
    QTableWidget* execTable() const { return m_exec; }
    QPlainTextEdit* irText() const { return m_ir; }
    QComboBox* irFile() const { return m_irFile; }
    QLabel* summary() const { return m_summary; }
    /// Finds `text` in the shown IR file after the cursor (wrapping).
    bool findInIr(const QString& text);

signals:
    void loaded(const QString& error);

private:
    void showExport(ts::rdr::MsRdrExport e);
    void showIrFile(int index);
    void showExecOrder(int index);
    void fillTables();

    SessionContext* m_ctx;
    ts::rdr::MsRdrExport m_export;
    QLabel* m_summary;
    QTabWidget* m_tabs;
    QTableWidget* m_files;
    QComboBox* m_irFile;
    QLineEdit* m_irSearch;
    QLabel* m_irStatus;
    QPlainTextEdit* m_ir;
    QComboBox* m_execFile;
    QTableWidget* m_exec;
    QTableWidget* m_stream;
    QTableWidget* m_memory;
    QTableWidget* m_tasks;
    QTableWidget* m_graphNodes;
    QComboBox* m_textFile;
    QPlainTextEdit* m_text;
    std::vector<size_t> m_irFiles, m_textFiles;  // indexes into m_export.files
};
