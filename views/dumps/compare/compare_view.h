#pragma once
// CompareView (view "compare"): msaccucmp-like comparison of two dumps, A (checked, -m) and
// B (golden, -g). Tensors are matched by op name, seqid and slot; each pair gets shape and
// dtype match, cosine similarity, max absolute / relative error, mean absolute error, RMSE
// and NaN/Inf disagreement (NaN/Inf at the same positions agree; figures are over positions
// finite in both). Pairs come in A's execution order; the first one past the thresholds is
// highlighted and scrolled to; thresholds re-apply at once without re-reading. Unmatched
// tensors are listed; the table exports as CSV. The comparison runs on a worker with
// progress and Cancel. With no inputs chosen, A and B are the last two HDF5 files opened.
// Beside the first failing tensor the summary names the root cause (the first op whose
// inputs agree while an output disagrees; its rows in blue). The rule (cosine or combined
// with the shares within 0.1/0.5 %) re-applies at once; the pairing (by path, or ops aligned
// by name or by the layer of their scope, for dumps of two frameworks) compares again.
// The summary's "First divergent" is a link that selects that pair and opens A's tensor;
// "Failures only" hides the pairs that pass; the A−B tab plots A minus B of the selected
// pair by element (core/debug/tensor_difference.h) and says where they differ most.
#include <QWidget>

#include "core/debug/dump_scan.h"

class CompareTableModel;
class QCustomPlot;
class QTabWidget;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QTableView;
class SessionContext;

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(SessionContext* ctx, QWidget* parent = nullptr);
    /// Compares `a` (checked) with `b` (golden).
    void compare(const QString& a, const QString& b);
    void setThresholds(const ts::debug::CompareThresholds& t);
    ts::debug::CompareThresholds thresholds() const;
    /// How tensors are paired (changing it compares again).
    void setPairing(const ts::debug::DumpPairOptions& how);
    ts::debug::DumpPairOptions pairing() const;
    /// Writes the table as CSV; false (and `error`) on failure.
    bool exportCsv(const QString& path, QString* error = nullptr) const;

    CompareTableModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QListWidget* unmatched() const { return m_unmatched; }
    QString lastError() const { return m_error; }
    QLabel* summaryLabel() const { return m_summary; }
    QCheckBox* failuresOnlyBox() const { return m_failuresOnly; }
    QCustomPlot* differencePlot() const { return m_diffPlot; }
    QLabel* differenceLabel() const { return m_diffLabel; }
    /// Selects pair `row` and plots its A − B (a job; differenceShown follows).
    void showDifference(int row);
    /// What the summary's "First divergent" link does: selects that pair, shows its A − B,
    /// and opens A's tensor in the HDF5 view; false when every pair passes.
    bool openFirstDivergent();

signals:
    void compared();
    void differenceShown();

private:
    void applyThresholds();
    void updateSummary();
    void applyFailuresOnly();

    SessionContext* m_ctx;
    QLineEdit* m_a;
    QLineEdit* m_b;
    QDoubleSpinBox* m_cos;
    QCheckBox* m_useRel;
    QDoubleSpinBox* m_rel;
    QCheckBox* m_useAbs;
    QDoubleSpinBox* m_abs;
    QComboBox* m_rule;
    QComboBox* m_pairing;
    QPushButton* m_run;
    QPushButton* m_csv;
    QLabel* m_summary;
    QTableView* m_table;
    QListWidget* m_unmatched;
    QCheckBox* m_failuresOnly;
    QTabWidget* m_bottom;
    QCustomPlot* m_diffPlot;
    QLabel* m_diffLabel;
    CompareTableModel* m_model;
    QString m_error;
    quint64 m_generation = 0;
    bool m_running = false;
};
