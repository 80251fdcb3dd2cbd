#pragma once
// QueryView: the "SQL" tab — one read-only statement over the session (store::UserQuery:
// writes, ATTACH, VACUUM INTO, writable_schema, load_extension and a second statement are
// refused with the reason), run on a job with Cancel: the statement stops within
// milliseconds (SQLite's progress handler), however long it would have run. At most
// kMaxRows rows are shown.
#include <QWidget>
#include <atomic>
#include <memory>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;
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
    bool running() const { return m_job != 0; }

    /// Runs the text of the editor (Ctrl+Return); a query still running is cancelled.
    void run();
    /// Stops the running query.
    void cancel();

signals:
    /// A query ended: with rows, an error, or cancelled.
    void finished();

private:
    void setRunning(bool running);

    SessionContext* m_ctx;
    QPlainTextEdit* m_sql;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QTableView* m_table;
    QueryResultModel* m_model;
    QLabel* m_status;
    quint64 m_job = 0;
    std::shared_ptr<std::atomic<bool>> m_stop;  // the running query's cancel flag
};
