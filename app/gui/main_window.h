#pragma once
// MainWindow: menu, toolbar, session sidebar, a tab per view, and a status bar with the
// progress of background jobs and a Cancel button. Window state is kept with QSettings.
#include <QMainWindow>
#include <QStringList>

class OnnxExportAction;
class QLabel;
class QMenu;
class QProgressBar;
class QTabWidget;
class QToolButton;
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

    /// Opens what the user named: sessions open, files a view reads itself go to that view,
    /// everything else is imported into the session (a new one when none is open).
    void openPaths(const QStringList& paths);
    /// Shows (creating if needed) the tab of the view `name`; nullptr for an unknown name.
    QWidget* showView(const QString& name);
    bool openDemo();

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void buildMenus();
    void openDefaultViews();
    void updateProgress();
    void addRecent(const QString& path);
    void rebuildRecentMenu();

    SessionContext* m_ctx;
    SessionDocument* m_doc;
    SessionSidebar* m_sidebar;
    QTabWidget* m_tabs;
    QMenu* m_recentMenu = nullptr;
    QLabel* m_jobLabel;
    QProgressBar* m_progress;
    QToolButton* m_cancel;
    OnnxExportAction* m_onnxExport = nullptr;
};
