#pragma once
// ProblemsView: the "Import problems" tab — what the importers could not read, by reason and
// file position (issue 26, item 10). One row per source and reason with its count and what
// the reason means; selecting it lists its records in file order (byte offset, phase,
// message). Expected skips (Kineto's flow ends whose start fell before the profiler's window:
// normal, nothing lost) are counted quietly and hidden unless asked for.
#include <QWidget>

#include "core/session/session_overview.h"
#include "views/common/view_registry.h"

class QCheckBox;
class QLabel;
class QTableWidget;
class QTreeWidget;
class SessionContext;

class ProblemsView : public QWidget {
    Q_OBJECT
public:
    explicit ProblemsView(SessionContext* ctx, QWidget* parent = nullptr);

    QLabel* summaryLabel() const { return m_summary; }
    QTreeWidget* groups() const { return m_groups; }
    QTableWidget* records() const { return m_records; }
    QCheckBox* expectedBox() const { return m_showExpected; }
    /// Lists the records of group `row` of the tree (a job); what selecting it does.
    void showGroup(int row);

signals:
    void recordsLoaded();

private:
    void reload();
    void fill();

    SessionContext* m_ctx;
    QLabel* m_summary;
    QCheckBox* m_showExpected;
    QTreeWidget* m_groups;
    QTableWidget* m_records;
    ts::session::SessionOverview m_overview;
};

/// name "problems", title "Import problems"; opened from the session panel.
ViewInfo problemsViewInfo();
