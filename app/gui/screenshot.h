#pragma once
// Waits until the studio has nothing left to do (no background job for a moment), then
// saves the main window — or one view's tab — as a PNG. Used by `trainscope --screenshot`.
#include <QObject>
#include <QString>

class MainWindow;

class ScreenshotTaker : public QObject {
    Q_OBJECT
public:
    ScreenshotTaker(MainWindow* window, QString outPath, QString viewName,
                    QObject* parent = nullptr);
    /// Starts polling; emits done(ok) after saving or after `timeoutMs`.
    void start(int timeoutMs = 120000);
    /// Before saving, shows the tab titled `title` (case-insensitive, '&' ignored) of the
    /// first tab widget inside the view that has one (`trainscope --tab`).
    void setTab(QString title) { m_tab = std::move(title); }
    /// Saves no earlier than `ms` after start() (e.g. a training run mid-way), jobs or not.
    void setMinimumDelay(int ms) { m_minDelayMs = ms; }

signals:
    void done(bool ok, const QString& message);

private:
    void poll();
    bool save(QString* message);
    void showTab();

    MainWindow* m_window;
    QString m_out;
    QString m_view;
    QString m_tab;
    bool m_tabShown = false;
    int m_idlePolls = 0;
    int m_elapsedMs = 0;
    int m_timeoutMs = 0;
    int m_minDelayMs = 0;
};
