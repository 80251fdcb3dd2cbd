#pragma once
// SessionsDialog (File > Manage Sessions…): the sessions the studio made — in the data
// folder and the temporary folder — with their sizes (with their command runs' folders)
// and dates, the total, and buttons to open one, remove the selected ones or all those
// older than a month. The open session is marked and never removed.
#include <QDialog>

#include "views/common/session_places.h"

class QLabel;
class QTableWidget;

class SessionsDialog : public QDialog {
    Q_OBJECT
public:
    SessionsDialog(const QString& openSession, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }
    QLabel* totalLabel() const { return m_total; }
    /// Removes the sessions of these rows (not the open one); returns how many went.
    int removeRows(const QList<int>& rows);
    /// Removes every session not modified for `days` days (not the open one).
    int removeOlderThan(int days);
    void refresh();

signals:
    void openRequested(const QString& path);

private:
    QString m_open;
    QTableWidget* m_table;
    QLabel* m_total;
    std::vector<SessionFileEntry> m_entries;
};
