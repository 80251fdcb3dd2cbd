#pragma once
// MsDumpView (view "msdump"): a MindSpore dump tree (rank_<id>/<net>/<graph_id>/<iteration>,
// sync and async layouts, .npy files and statistic.csv: core/debug/msdump/ms_dump.h). An
// iteration picker; the op list in execution order (timestamp, then the execution order
// file): op type, full scope name, input/output and slot, dtype and shape, where the data
// is (.npy, statistics only); each tensor in the tensor inspector (views/dumps/
// dataset_panel.h) or, for a statistics-only dump, its statistic.csv row. "Find NaN/Inf"
// (at once for an iteration of at most 256 MiB of .npy) scans the tensors in order (the
// statistics where there is no file) and marks every finding, the first one strongly, as
// the Overflow view does for the studio's own dumps.
// Files skipped (Ascend's device-format "bin" files, names of no known form) are listed
// with their reasons. Compare dumps of any formats in the Compare view.
#include <QTemporaryDir>
#include <QWidget>

#include "core/debug/msdump/ms_dump.h"
#include "views/common/view_registry.h"

class DatasetPanel;
class QComboBox;
class QLabel;
class QPushButton;
class QStackedWidget;
class QTableWidget;
class QTextBrowser;
class SessionContext;

class MsDumpView : public QWidget, public FileViewer {
    Q_OBJECT
public:
    enum Col { Order, OpType, Op, IO, Slot, DType, Shape, Data, NonFinite, ColCount };
    explicit MsDumpView(SessionContext* ctx, QWidget* parent = nullptr);
    void openFile(const QString& path) override;
    /// Shows iteration `index` of the tree.
    void showIteration(int index);
    /// Scans the shown iteration for NaN/Inf (a job); `overflowScanned` follows.
    void scanOverflow();

    const ts::debug::msdump::Tree& tree() const { return m_tree; }
    const ts::debug::msdump::Iteration& iteration() const { return m_it; }
    QTableWidget* table() const { return m_table; }
    QComboBox* iterations() const { return m_iterations; }
    DatasetPanel* panel() const { return m_panel; }
    QTextBrowser* statistics() const { return m_stats; }
    QLabel* summary() const { return m_summary; }
    /// Row of the first tensor holding NaN/Inf after a scan, -1 when none.
    int firstFindingRow() const { return m_firstFinding; }

signals:
    void treeLoaded(const QString& error);
    void iterationShown();
    void overflowScanned(int findings);
    void tensorShown();

private:
    void showTensor(int row);
    void fillSummary();

    SessionContext* m_ctx;
    QLabel* m_summary;
    QComboBox* m_iterations;
    QPushButton* m_scan;
    QTableWidget* m_table;
    QStackedWidget* m_right;
    DatasetPanel* m_panel;
    QTextBrowser* m_stats;
    QTemporaryDir m_scratch;
    ts::debug::msdump::Tree m_tree;
    ts::debug::msdump::Iteration m_it;
    int m_firstFinding = -1, m_findings = 0;
    quint64 m_files = 0;
};
