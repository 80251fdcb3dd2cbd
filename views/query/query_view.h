#pragma once
// QueryView: the "SQL" tab — one read-only statement over the session (store::UserQuery:
// writes, ATTACH, VACUUM INTO, writable_schema, load_extension and a second statement are
// refused with the reason), run on a job with Cancel: the statement stops within
// milliseconds (SQLite's progress handler), however long it would have run. At most
// kMaxRows rows are shown. Run with an empty editor runs the example shown in it. At the left,
// a table browser lists the session's tables and their columns: double-click a table for
// its first rows, a column to insert its name.
#include <QWidget>
#include <atomic>
#include <memory>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;
class QTreeWidget;
class QueryResultModel;
class SessionContext;

class QueryView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxRows = 100000;

    explicit QueryView(SessionContext* ctx, QWidget* parent = nullptr);

    QPlainTextEdit* sqlEdit() const { return m_sql; }
    QPushButton* runButton() const { return m_run; }
    QPushButton* cancelButton() const { return m_cancel; }
    QueryResultModel* resultModel() const { return m_model; }
    QLabel* statusLabel() const { return m_status; }
    /// The table browser: one item per table (its columns as children).
    QTreeWidget* tableBrowser() const { return m_tables; }
    /// Lists the tables again (a job; tablesLoaded follows).
    void loadTables();
    bool running() const { return m_job != 0; }

    /// Runs the text of the editor (Ctrl+Return); a query still running is cancelled.
    void run();
    /// Stops the running query.
    void cancel();

signals:
    /// A query ended: with rows, an error, or cancelled.
    void finished();
    void tablesLoaded();

private:
    void setRunning(bool running);

    SessionContext* m_ctx;
    QPlainTextEdit* m_sql;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QTableView* m_table;
    QueryResultModel* m_model;
    QLabel* m_status;
    QTreeWidget* m_tables;
    quint64 m_job = 0;
    std::shared_ptr<std::atomic<bool>> m_stop;  // the running query's cancel flag
};
