#pragma once
// MainWindow: menus, a short toolbar of the common actions, the session sidebar, a tab per
// view, a command palette (Ctrl+Shift+P / Ctrl+K) that finds any view, action or recent
// file, the sheet of every key (F1, ?), and a status bar with the progress of background
// jobs, a Cancel button and where the open session is kept. It opens at a size that fits
// the screen (down to 1280x720) and keeps its geometry and the theme with QSettings.
// Closing a session the studio made that holds work asks before it is left behind.
#include <QDeadlineTimer>
#include <QMainWindow>
#include <QStringList>

class OnnxExportAction;
class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QTabWidget;
class QToolBar;
class QToolButton;
class CommandPalette;
class SessionContext;
class SessionDocument;
class SessionSidebar;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    SessionContext* context() const { return m_ctx; }
    SessionDocument* document() const { return m_doc; }
    SessionSidebar* sidebar() const { return m_sidebar; }
    QTabWidget* tabs() const { return m_tabs; }
    /// File > Export ONNX… (its dialogs, and the export job the tests start directly).
    OnnxExportAction* onnxExport() const { return m_onnxExport; }
    QToolBar* mainToolBar() const { return m_toolbar; }
    /// Where the open session is kept, as the status bar says it.
    QLabel* sessionPlaceLabel() const { return m_placeLabel; }

    /// Opens what the user named: sessions open, files a view reads itself go to that view,
    /// everything else is imported into the session (a new one when none is open).
    void openPaths(const QStringList& paths);
    /// Shows (creating if needed) the tab of the view `name`; nullptr for an unknown name.
    QWidget* showView(const QString& name);
    bool openDemo(bool fresh = false);

    /// The command palette, filled with every view, action and recent file (not shown).
    CommandPalette* preparePalette();
    void showPalette();
    void showShortcutSheet();
    /// File > Manage Sessions… (not modal: `--open-dialog sessions` shows it for screenshots).
    void showSessionsDialog();
    /// Runs an action a view asked for (SessionContext::requestAction); false if unknown.
    bool runAction(const QString& action);
    /// Every action of the menus (the palette lists them), by text without '&'.
    QList<QAction*> menuActions() const;
    /// What closing would leave behind ("" when nothing): SessionDocument::unsavedWork of
    /// the open session and the temporary sessions made here.
    QString closeQuestion() const;

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void buildMenus();
    void buildToolBar();
    void openDefaultViews();
    void updateProgress();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void fitToScreen();
    void saveSessionAsDialog();
    void find();
    void updatePlaceLabel();
    /// A status-bar message elided to the room left of the permanent widgets (Qt cuts it
    /// mid-word at the first of them); the whole text is the status bar's tooltip. Elided
    /// again when the window or the place label changes size.
    void say(const QString& message, int timeoutMs);
    void showSaid();
    void resizeEvent(QResizeEvent* event) override;

    SessionContext* m_ctx;
    SessionDocument* m_doc;
    SessionSidebar* m_sidebar;
    QTabWidget* m_tabs;
    QToolBar* m_toolbar = nullptr;
    QMenu* m_recentMenu = nullptr;
    QLabel* m_jobLabel;
    QProgressBar* m_progress;
    QToolButton* m_cancel;
    QLabel* m_placeLabel;
    QString m_said;              // the whole text of the last say()
    QDeadlineTimer m_saidUntil;  // when it goes
    OnnxExportAction* m_onnxExport = nullptr;
    CommandPalette* m_palette = nullptr;
    QList<QMenu*> m_menus;
    bool m_closeAfterSave = false;  // the close prompt's Save As: close once it is saved
};
