#pragma once
// SessionSummaryView: the "Session" tab — every source with its status, counts, time range
// and error, every run, and the import problems grouped by kind (Perfetto's stats table).
#include <QWidget>

#include "core/session/session_overview.h"
#include "views/common/view_registry.h"

class QLabel;
class QTableWidget;
class SessionContext;

class SessionSummaryView : public QWidget {
    Q_OBJECT
public:
    explicit SessionSummaryView(SessionContext* ctx, QWidget* parent = nullptr);

    QTableWidget* sourcesTable() const { return m_sources; }

private:
    void reload();
    void show(const ts::session::SessionOverview& ov);

    SessionContext* m_ctx;
    QLabel* m_header;
    QTableWidget* m_sources;
    QTableWidget* m_runs;
    QTableWidget* m_problems;
};

ViewInfo summaryViewInfo();
