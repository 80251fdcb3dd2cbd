#pragma once
// SessionSidebar: a tree listing what the open session holds — sources (with status and
// counts), runs, dumps, crash records and logs. Rebuilt on a background job whenever the
// session's data changes; double-clicking an item asks for the view that shows it.
#include <QTreeWidget>

#include "core/session/session_overview.h"

class SessionContext;

class SessionSidebar : public QTreeWidget {
    Q_OBJECT
public:
    explicit SessionSidebar(SessionContext* ctx, QWidget* parent = nullptr);

    /// Top-level section titles and their children's texts, for tests.
    QStringList sourceLabels() const;

signals:
    void overviewLoaded();

private:
    void reload();
    void show(const ts::session::SessionOverview& ov);
    void showError(const QString& message);

    SessionContext* m_ctx;
};
