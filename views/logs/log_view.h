#pragma once
// LogView: the live log view. Shows the session's `logs` table (re-read on a timer by a
// background job, only rows newer than the last seen) and this process's own records
// (a QueueSink on the logger, drained every 500 ms). Filters by level, sub-module,
// text or regex and time range (the timeline's last requested range, or typed bounds);
// follows the tail;
// clicking a record shows it in full below the table and, when it has a time, asks
// SessionContext to show that moment. Opening a log
// file imports it into the session (or, with no session, shows it directly).
#include <QPointer>
#include <QWidget>
#include <deque>
#include <memory>
#include <vector>

#include "core/log/log_record.h"

#include "views/common/view_registry.h"

class SessionContext;
class LogTableModel;
class LogLevelPanel;
class QTableView;
class QComboBox;
class QLineEdit;
class QCheckBox;
class QLabel;
class QTimer;
class QToolButton;
class QPlainTextEdit;
namespace ts::log {
class QueueSink;
}

class LogView : public QWidget, public FileViewer {
    Q_OBJECT
public:
    explicit LogView(SessionContext* ctx, QWidget* parent = nullptr);
    ~LogView() override;

    void openFile(const QString& path) override;

    LogTableModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    LogLevelPanel* levelPanel() const { return m_levels; }
    /// The timer's work: drains the in-process queue; every 4th call (2 s) also starts a
    /// read of the session's rows newer than the last seen (dataChanged starts one at once).
    void poll();
    /// Applies the filter controls; shows a bad regex in the status line.
    void applyFilter();
    /// Emits the time jump for the record in `row` (when it has a time).
    void jumpToRow(int row);

    QComboBox* levelCombo() const { return m_levelCombo; }
    QComboBox* moduleCombo() const { return m_moduleCombo; }
    QLineEdit* textEdit() const { return m_text; }
    QCheckBox* regexCheck() const { return m_regex; }
    /// 0 all times, 1 the timeline's last requested range, 2 the from/to fields.
    QComboBox* timeCombo() const { return m_timeCombo; }
    QLineEdit* fromEdit() const { return m_fromEdit; }
    QLineEdit* toEdit() const { return m_toEdit; }
    QLabel* statusLabel() const { return m_status; }
    /// The whole selected record (tracebacks and multi-line messages in full).
    QPlainTextEdit* detail() const { return m_detail; }

private:
    void onSessionChanged();
    void startTail();
    void refreshModules();
    void updateStatus();
    /// Appends the next slice of a tail read; the rest on later event-loop turns.
    void drainTail(quint64 generation);

    SessionContext* m_ctx;
    LogTableModel* m_model;
    QTableView* m_table;
    LogLevelPanel* m_levels;
    QComboBox* m_levelCombo;
    QComboBox* m_moduleCombo;
    QLineEdit* m_text;
    QCheckBox* m_regex;
    QComboBox* m_timeCombo;
    QLineEdit* m_fromEdit;
    QLineEdit* m_toEdit;
    QCheckBox* m_follow;
    QToolButton* m_levelsButton;
    QLabel* m_status;
    QPlainTextEdit* m_detail;
    QTimer* m_timer;
    std::shared_ptr<ts::log::QueueSink> m_live;
    int64_t m_liveSinceNs = 0;
    int64_t m_lastId = 0;
    int m_ticks = 0;
    bool m_tailRunning = false;
    quint64 m_generation = 0;
    bool m_emittingJump = false;
    qint64 m_rangeStart = 0, m_rangeEnd = 0;
    bool m_haveRange = false;
    QString m_filterError;
    std::deque<std::vector<ts::log::LogRecord>> m_tailSlices;  // read, not yet in the model
    bool m_tailMore = false;
    QString m_fileNote;
};
