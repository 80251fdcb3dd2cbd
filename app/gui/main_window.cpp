#include "app/gui/main_window.h"

#include <algorithm>

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextEdit>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <functional>

#include "app/gui/command_palette.h"
#include "app/gui/folder_report_dialog.h"
#include "app/gui/onnx_export_action.h"
#include "app/gui/session_document.h"
#include "app/gui/sessions_dialog.h"
#include "app/gui/shortcut_sheet.h"
#include "app/gui/theme.h"
#include "app/gui/view_list.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/common/session_places.h"
#include "views/diff/session_registry.h"
#include "views/session/session_sidebar.h"
#include "views/training/training_view.h"

namespace {
constexpr int kMaxRecent = 10;
const char* kFileFilter =
    "All supported (*.tscope *.json *.gz *.zip *.sqlite *.h5 *.hdf5 *.log *.txt *tfevents* "
    "*.pickle *.pkl);;"
    "Sessions (*.tscope);;Traces (*.json *.json.gz *.gz *.zip *.sqlite);;"
    "PyTorch memory snapshots (*.pickle *.pkl *.pickle.gz);;"
    "HDF5 dumps (*.h5 *.hdf5);;Logs (*.log *.txt);;All files (*)";

bool headless() {
    return qApp->property("trainscope_headless").toBool();
}

/// A widget where typing '?' means the character, not the shortcut sheet.
bool typesText(QWidget* w) {
    return qobject_cast<QLineEdit*>(w) || qobject_cast<QTextEdit*>(w) ||
           qobject_cast<QPlainTextEdit*>(w) || (w && w->inherits("QAbstractSpinBox"));
}
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_ctx(new SessionContext(this)),
      m_doc(new SessionDocument(m_ctx, this)),
      m_sidebar(new SessionSidebar(m_ctx, this)),
      m_tabs(new QTabWidget(this)) {
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(QStringLiteral("TrainScope"));
    // The installed menu entry and icon (packaging/desktop, packaging/icons): the desktop file
    // name lets Wayland compositors and docks match the window to its entry; the theme icon is
    // absent when running from a build folder, and Qt then keeps its default.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.trainscope.TrainScope"));
    setWindowIcon(QIcon::fromTheme(QStringLiteral("io.github.trainscope.TrainScope")));
    setAcceptDrops(true);
    applyTheme(savedTheme());

    m_tabs->setDocumentMode(true);
    m_tabs->setTabsClosable(true);
    m_tabs->setMovable(true);
    m_tabs->setUsesScrollButtons(true);
    m_tabs->setElideMode(Qt::ElideNone);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, [this](int i) {
        QWidget* w = m_tabs->widget(i);
        m_tabs->removeTab(i);
        w->deleteLater();
    });
    setCentralWidget(m_tabs);

    auto* dock = new QDockWidget(tr("Session"), this);
    dock->setObjectName(QStringLiteral("sessionDock"));
    dock->setWidget(m_sidebar);
    // Closable: on a small screen the panel folds away (View > Session panel brings it back).
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                      QDockWidget::DockWidgetClosable);
    m_sidebar->setMinimumWidth(140);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    resizeDocks({dock}, {240}, Qt::Horizontal);

    m_jobLabel = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(200);
    m_progress->setTextVisible(true);
    m_cancel = new QToolButton(this);
    m_cancel->setText(tr("Cancel"));
    connect(m_cancel, &QToolButton::clicked, m_ctx->jobs(), &JobTracker::cancelAll);
    m_placeLabel = new QLabel(this);
    m_placeLabel->setObjectName(QStringLiteral("sessionPlace"));
    statusBar()->addPermanentWidget(m_jobLabel);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    statusBar()->addPermanentWidget(m_placeLabel);
    connect(statusBar(), &QStatusBar::messageChanged, this, [this](const QString& m) {
        if (!m.isEmpty()) return;
        m_said.clear();  // timed out, or cleared: its whole text goes too
        statusBar()->setToolTip(QString());
    });
    auto* timer = new QTimer(this);
    connect(timer, &QTimer::timeout, this, &MainWindow::updateProgress);
    timer->start(100);
    updateProgress();

    buildMenus();
    buildToolBar();
    qApp->installEventFilter(this);  // '?' for the shortcut sheet

    connect(m_ctx, &SessionContext::viewRequested, this, [this](const QString& n) { showView(n); });
    connect(m_ctx, &SessionContext::openRequested, this,
            [this](const QString& path) { openPaths({path}); });
    connect(m_ctx, &SessionContext::actionRequested, this,
            [this](const QString& a) { runAction(a); });
    connect(m_ctx, &SessionContext::sessionChanged, this, &MainWindow::updatePlaceLabel);
    connect(m_doc, &SessionDocument::sessionOpened, this, [this](const QString& path) {
        setWindowTitle(QStringLiteral("%1 — TrainScope").arg(QFileInfo(path).fileName()));
        addRecent(path);
        openDefaultViews();
        updatePlaceLabel();
        if (statusBar()->currentMessage().isEmpty()) say(tr("Opened %1").arg(path), 5000);
    });
    connect(m_doc, &SessionDocument::sessionCreated, this,
            [this](const QString& path, const QString& where) {
                say(tr("New session %1: %2 (File > New Sessions Are Kept to choose)")
                        .arg(QFileInfo(path).fileName(), where),
                    20000);
            });
    connect(m_doc, &SessionDocument::saved, this, [this](const QString& path) {
        say(tr("Session saved as %1").arg(path), 15000);
        if (m_closeAfterSave) QTimer::singleShot(0, this, &QWidget::close);
    });
    connect(m_doc, &SessionDocument::importCancelled, this, [this](const QString& msg) {
        say(msg, 30000);
        if (!headless()) QMessageBox::information(this, tr("Import cancelled"), msg);
    });
    connect(m_doc, &SessionDocument::failed, this, [this](const QString& msg) {
        m_closeAfterSave = false;
        say(msg, 15000);
        if (!headless()) QMessageBox::warning(this, tr("TrainScope"), msg);
    });
    connect(m_doc, &SessionDocument::imported, this,
            [this](const std::vector<ts::importers::ImportReport>& reports) {
                QStringList lines;
                for (const auto& r : reports) {
                    QString line = QStringLiteral("%1: %2").arg(
                        QFileInfo(QString::fromStdString(r.path)).fileName(),
                        QString::fromLatin1(ts::store::statusName(r.status)));
                    if (r.problems() > 0)
                        line +=
                            tr(", %n import problem(s)", nullptr, static_cast<int>(r.problems()));
                    if (!r.error.empty()) line += " — " + QString::fromStdString(r.error);
                    lines << line;
                }
                say(lines.join(QStringLiteral("; ")), 15000);
                bool anySlices = false;
                for (const auto& r : reports) anySlices |= r.slices + r.asyncSlices > 0;
                if (anySlices) showView(QStringLiteral("timeline"));
                bool anyFailed = false;
                for (const auto& r : reports)
                    anyFailed |= r.status == ts::store::SourceStatus::Failed;
                if (anyFailed && !headless())
                    QMessageBox::warning(this, tr("Import"), lines.join('\n'));
            });

    connect(
        m_doc, &SessionDocument::folderImported, this,
        [this](const ts::importers::BatchImport& result) {
            QStringList parts, folders;
            for (const auto& [fate, n] : result.fateCounts())
                parts << tr("%1 %2").arg(n).arg(QString::fromLatin1(ts::importers::fateName(fate)));
            for (const auto& f : result.folders) folders << QString::fromStdString(f);
            say(tr("Folder %1: %2")
                    .arg(folders.join(QStringLiteral(", ")), parts.join(QStringLiteral(", "))),
                15000);
            for (const auto& r : result.reports)
                if (r.kind == "mindspore_summary" || r.kind == "tfevents") {
                    showView(QStringLiteral("curves"));
                    break;
                }
            if (!qApp->property("trainscope_headless").toBool()) {
                auto* dlg = new FolderReportDialog(result, this);
                dlg->setAttribute(Qt::WA_DeleteOnClose);
                dlg->show();
            }
        });

    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    fitToScreen();
}

MainWindow::~MainWindow() {
    qApp->removeEventFilter(this);
    m_ctx->jobs()->cancelAll();
}

void MainWindow::fitToScreen() {
    // Opens at a size that fits the screen it is on (1600x950 where there is room), never
    // larger than the screen even when the saved geometry came from a bigger one.
    const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen();
    const QRect avail = s ? s->availableGeometry() : QRect(0, 0, 1600, 950);
    const bool saved = QSettings().contains("window/geometry");
    QSize want = saved ? size() : QSize(1600, 950);
    want = want.boundedTo(avail.size() - QSize(16, 48)).expandedTo(QSize(800, 500));
    resize(want);
    if (!avail.contains(frameGeometry())) move(avail.topLeft() + QPoint(8, 8));
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, [this] {
        const QStringList files =
            QFileDialog::getOpenFileNames(this, tr("Open"), QString(), tr(kFileFilter));
        openPaths(files);
    });
    open->setObjectName(QStringLiteral("openAction"));
    open->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open &Folder…"), this,
                    [this] {
                        const QString dir = QFileDialog::getExistingDirectory(
                            this,
                            tr("Open a folder: summaries, lineage, TensorBoard, traces, profiler "
                               "folders, logs, dumps, RDR"));
                        if (!dir.isEmpty()) m_doc->importFiles({dir});
                    })
        ->setObjectName(QStringLiteral("openFolderAction"));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    QAction* imp = file->addAction(tr("&Import into Session…"), this, [this] {
        const QStringList files =
            QFileDialog::getOpenFileNames(this, tr("Import"), QString(), tr(kFileFilter));
        m_doc->importFiles(files);
    });
    imp->setObjectName(QStringLiteral("importAction"));
    imp->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    file->addAction(tr("&New Session"), this, [this] { m_doc->newSession(); });
    file->addAction(tr("Open &Demo Session"), this, [this] { openDemo(); });
    file->addAction(tr("Open a Fresh Copy of the Demo"), this, [this] { openDemo(true); })
        ->setToolTip(tr("A new working copy of the demo; your copy so far stays as it is"));
    QAction* saveAs =
        file->addAction(tr("&Save Session As…"), this, &MainWindow::saveSessionAsDialog);
    saveAs->setObjectName(QStringLiteral("saveAsAction"));
    saveAs->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    file->addSeparator();
    QMenu* place = file->addMenu(tr("New Sessions Are &Kept"));
    place->setObjectName(QStringLiteral("sessionPlaceMenu"));
    auto* places = new QActionGroup(this);
    for (SessionPlace p :
         {SessionPlace::BesideTrace, SessionPlace::DataFolder, SessionPlace::Temporary}) {
        QAction* a = place->addAction(sessionPlaceTitle(p), this, [p] { setSessionPlace(p); });
        a->setCheckable(true);
        a->setChecked(sessionPlace() == p);
        places->addAction(a);
    }
    file->addAction(tr("&Manage Sessions…"), this, &MainWindow::showSessionsDialog)
        ->setObjectName(QStringLiteral("manageSessionsAction"));
    file->addSeparator();
    m_onnxExport = new OnnxExportAction(m_ctx, this);
    connect(m_onnxExport, &OnnxExportAction::finished, this, [this](bool ok, const QString& msg) {
        say(msg, 15000);
        if (headless()) return;
        if (ok)
            QMessageBox::information(this, tr("Export ONNX"), msg);
        else
            QMessageBox::warning(this, tr("Export ONNX"), msg);
    });
    file->addAction(tr("Export &ONNX…"), this, [this] { m_onnxExport->ask(); })
        ->setObjectName(QStringLiteral("exportOnnxAction"));
    file->addSeparator();
    file->addAction(tr("&Quit"), this, &QWidget::close)->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(tr("&Find"), this, &MainWindow::find)->setShortcut(QKeySequence::Find);
    QAction* palette =
        edit->addAction(tr("Go to View, Action or File…"), this, &MainWindow::showPalette);
    palette->setObjectName(QStringLiteral("paletteAction"));
    palette->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P), QKeySequence(Qt::CTRL | Qt::Key_K)});

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (const ViewInfo& v : allViews())
        view->addAction(v.title, this, [this, name = v.name] { showView(name); });
    view->addSeparator();
    QAction* panel = findChild<QDockWidget*>(QStringLiteral("sessionDock"))->toggleViewAction();
    panel->setText(tr("Session Panel"));
    view->addAction(panel);
    QMenu* theme = view->addMenu(tr("&Theme"));
    theme->setObjectName(QStringLiteral("themeMenu"));
    auto* themes = new QActionGroup(this);
    const std::pair<Theme, QString> choices[] = {{Theme::System, tr("Follow the Desktop")},
                                                 {Theme::Light, tr("Light")},
                                                 {Theme::Dark, tr("Dark")}};
    for (const auto& [t, title] : choices) {
        QAction* a = theme->addAction(title, this, [t = t] {
            saveTheme(t);
            applyTheme(t);
        });
        a->setCheckable(true);
        a->setChecked(savedTheme() == t);
        themes->addAction(a);
    }

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcutSheet)
        ->setShortcut(QKeySequence(Qt::Key_F1));
    help->addAction(tr("&About TrainScope"), this, [this] {
        QMessageBox::about(
            this, tr("About TrainScope"),
            tr("<h3>TrainScope %1</h3><p>A studio for people who train neural networks: why a "
               "run is slow, why it diverges, why it crashed.</p><p>Timelines of traces, operator "
               "statistics, loss curves, HDF5 tensor dumps with overflow checks and comparison, "
               "crash records and logs over one SQLite session.</p><p>Qt %2</p>")
                .arg(QStringLiteral(TRAINSCOPE_VERSION), QString::fromLatin1(qVersion())));
    });
    m_menus = {file, edit, view, help};
}

void MainWindow::buildToolBar() {
    // The common actions only; every view is in the View menu, its tab and the palette.
    m_toolbar = addToolBar(tr("Main"));
    m_toolbar->setObjectName(QStringLiteral("mainToolbar"));
    m_toolbar->setMovable(false);
    m_toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    for (const char* name : {"openAction", "importAction", "saveAsAction"})
        m_toolbar->addAction(findChild<QAction*>(QLatin1String(name)));
    m_toolbar->addSeparator();
    m_toolbar->addAction(tr("Launch a Script…"), this, [this] { runAction("launch-profiled"); })
        ->setToolTip(tr("Run your training script with the profiler on (Training panel)"));
    m_toolbar->addAction(tr("Timeline"), this, [this] { showView(QStringLiteral("timeline")); });
    m_toolbar->addAction(tr("Op Statistics"), this, [this] { showView(QStringLiteral("stats")); });
    m_toolbar->addSeparator();
    QAction* go = m_toolbar->addAction(tr("Go to… (Ctrl+K)"), this, &MainWindow::showPalette);
    go->setToolTip(tr("Find any view, action or recent file by name (Ctrl+Shift+P, Ctrl+K)"));
    m_toolbar->addAction(tr("Keys (F1)"), this, &MainWindow::showShortcutSheet);
}

QList<QAction*> MainWindow::menuActions() const {
    QList<QAction*> out;
    std::function<void(QMenu*)> walk = [&](QMenu* m) {
        for (QAction* a : m->actions()) {
            if (a->isSeparator()) continue;
            if (a->menu()) {
                if (a->menu() != m_recentMenu) walk(a->menu());
                continue;
            }
            out << a;
        }
    };
    for (QMenu* m : m_menus) walk(m);
    return out;
}

CommandPalette* MainWindow::preparePalette() {
    if (!m_palette) m_palette = new CommandPalette(this);
    std::vector<CommandPalette::Entry> entries;
    for (const ViewInfo& v : allViews())
        entries.push_back({tr("View"), v.title, QString(), [this, n = v.name] { showView(n); }});
    QStringList viewTitles;
    for (const ViewInfo& v : allViews()) viewTitles << v.title;
    for (QAction* a : menuActions()) {
        if (!a->isEnabled() || viewTitles.contains(a->text())) continue;  // listed as views
        QString text = a->text();
        if (auto* m = qobject_cast<QMenu*>(a->parent()); m && m->title().contains(tr("Kept")))
            text = tr("Keep new sessions: %1").arg(text);
        if (auto* m = qobject_cast<QMenu*>(a->parent()); m && m->objectName() == "themeMenu")
            text = tr("Theme: %1").arg(text);
        entries.push_back({tr("Action"), text, a->shortcut().toString(QKeySequence::NativeText),
                           [a] { a->trigger(); }});
    }
    for (const QString& p : QSettings().value("recentFiles").toStringList())
        entries.push_back({tr("Recent file"), QFileInfo(p).fileName() + QStringLiteral(" — ") + p,
                           QString(), [this, p] { openPaths({p}); }});
    m_palette->setEntries(std::move(entries));
    return m_palette;
}

void MainWindow::showPalette() {
    CommandPalette* p = preparePalette();
    p->move(geometry().center() - QPoint(p->width() / 2, geometry().height() / 3));
    p->open();
    p->queryBox()->setFocus();
}

void MainWindow::showSessionsDialog() {
    auto* d = new SessionsDialog(m_ctx->sessionPath(), this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    connect(d, &SessionsDialog::openRequested, this, [this](const QString& p) { openPaths({p}); });
    d->show();
}

void MainWindow::showShortcutSheet() {
    auto* sheet = findChild<ShortcutSheet*>();
    if (!sheet) sheet = new ShortcutSheet(this);
    sheet->show();
    sheet->raise();
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::KeyPress && isActiveWindow()) {
        auto* k = static_cast<QKeyEvent*>(event);
        if (k->text() == QLatin1String("?") && !typesText(QApplication::focusWidget()) &&
            qobject_cast<QWidget*>(watched) && static_cast<QWidget*>(watched)->window() == this) {
            showShortcutSheet();
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::find() {
    QWidget* w = m_tabs->currentWidget();
    if (!w || w->metaObject()->indexOfSlot("focusSearch()") < 0)
        w = showView(QStringLiteral("timeline"));
    if (w) QMetaObject::invokeMethod(w, "focusSearch");
}

bool MainWindow::runAction(const QString& action) {
    if (action == QLatin1String("open")) {
        findChild<QAction*>(QStringLiteral("openAction"))->trigger();
    } else if (action == QLatin1String("demo")) {
        openDemo();
    } else if (action == QLatin1String("launch-profiled") ||
               action == QLatin1String("train-profiled")) {
        if (auto* t = qobject_cast<TrainingView*>(showView(QStringLiteral("training"))))
            t->offerProfiledRun(action == QLatin1String("launch-profiled"));
    } else if (action == QLatin1String("import-problems")) {
        showView(QStringLiteral("problems"));
    } else {
        return false;
    }
    return true;
}

void MainWindow::saveSessionAsDialog() {
    if (m_ctx->sessionPath().isEmpty()) {
        say(tr("No session is open: nothing to save."), 10000);
        return;
    }
    const QString target = QFileDialog::getSaveFileName(
        this, tr("Save Session As"),
        QDir::home().filePath(QFileInfo(m_ctx->sessionPath()).fileName()),
        tr("Sessions (*.tscope)"));
    if (target.isEmpty()) return;
    m_doc->saveSessionAs(target.endsWith(QLatin1String(".tscope")) ? target : target + ".tscope");
}

void MainWindow::updatePlaceLabel() {
    const QString path = m_ctx->sessionPath();
    m_placeLabel->setText(
        path.isEmpty()
            ? QString()
            : tr("%1 · kept in %2").arg(QFileInfo(path).fileName(), shortSessionPlace(path)));
    m_placeLabel->setToolTip(
        path.isEmpty()
            ? QString()
            : tr("The open session, kept %1:\n%2").arg(describeSessionPlace(path), path));
    showSaid();
}

void MainWindow::openDefaultViews() {
    for (const ViewInfo& v : allViews())
        if (v.openByDefault) showView(v.name);
    if (m_tabs->count() > 0) m_tabs->setCurrentIndex(0);
}

QWidget* MainWindow::showView(const QString& name) {
    for (int i = 0; i < m_tabs->count(); ++i) {
        if (m_tabs->widget(i)->property("viewName").toString() == name) {
            m_tabs->setCurrentIndex(i);
            return m_tabs->widget(i);
        }
    }
    for (const ViewInfo& v : allViews()) {
        if (v.name != name) continue;
        QWidget* w = v.create(m_ctx, m_tabs);
        w->setProperty("viewName", v.name);
        m_tabs->setCurrentIndex(m_tabs->addTab(w, v.title));
        return w;
    }
    return nullptr;
}

bool MainWindow::openDemo(bool fresh) {
    if (fresh && !headless()) {
        const QString work = SessionDocument::unsavedWork(SessionDocument::demoCopyPath());
        if (!work.isEmpty() &&
            QMessageBox::question(this, tr("Fresh demo"),
                                  work + tr("\nA fresh copy leaves it as it is (File > Manage "
                                            "Sessions lists both). Make a fresh copy?")) !=
                QMessageBox::Yes)
            return false;
    }
    return m_doc->openDemo(fresh);
}

void MainWindow::openPaths(const QStringList& paths) {
    QStringList toImport;
    bool openingSession = false;
    for (const QString& raw : paths) {
        const QString path = QFileInfo(raw).absoluteFilePath();
        if (!QFileInfo::exists(path)) {
            say(tr("No such file: %1").arg(path), 10000);
            continue;
        }
        if (SessionDocument::isSessionFile(path)) {
            SessionRegistry::instance()->add(path);  // the Diff view lists every one opened
            m_doc->openSession(path);
            openingSession = true;
            continue;
        }
        bool handled = false;
        for (const ViewInfo& v : allViews()) {
            if (v.accepts && v.accepts(path)) {
                if (auto* viewer = dynamic_cast<FileViewer*>(showView(v.name))) {
                    viewer->openFile(path);
                    addRecent(path);
                    handled = true;
                    break;
                }
            }
        }
        if (!handled) {
            toImport << path;
            addRecent(path);
        }
    }
    if (openingSession && !toImport.isEmpty()) {
        // `trainscope s.tscope trace.json`: the traces go into that session once it is open
        // (it opens on a job), not into a new one made meanwhile.
        connect(
            m_doc, &SessionDocument::sessionOpened, this,
            [this, toImport] { m_doc->importFiles(toImport); }, Qt::SingleShotConnection);
        return;
    }
    m_doc->importFiles(toImport);
}

void MainWindow::updateProgress() {
    const auto& active = m_ctx->jobs()->active();
    const bool busy = !active.empty();
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    m_jobLabel->setVisible(busy);
    if (!busy) return;
    const auto& job = active.begin()->second;
    m_jobLabel->setText(
        active.size() > 1 ? tr("%1 (+%2 more)").arg(job.title).arg(active.size() - 1) : job.title);
    const double f = job.control->fraction();
    if (f < 0) {
        m_progress->setRange(0, 0);
    } else {
        m_progress->setRange(0, 1000);
        m_progress->setValue(static_cast<int>(std::min(1.0, f) * 1000));
    }
}

void MainWindow::addRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value("recentFiles").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent) recent.removeLast();
    settings.setValue("recentFiles", recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    if (!m_recentMenu) return;
    m_recentMenu->clear();
    const QStringList recent = QSettings().value("recentFiles").toStringList();
    for (const QString& p : recent)
        m_recentMenu->addAction(QFileInfo(p).fileName(), this, [this, p] { openPaths({p}); })
            ->setToolTip(p);
    m_recentMenu->setEnabled(!recent.isEmpty());
}

QString MainWindow::closeQuestion() const {
    QStringList parts;
    const QString open = m_ctx->sessionPath();
    const QString work = SessionDocument::unsavedWork(open);
    if (!work.isEmpty()) parts << work;
    for (const QString& t : m_doc->temporarySessions())
        if (t != open && !SessionDocument::unsavedWork(t).isEmpty())
            parts << tr("%1 (temporary) holds work too and is removed now.")
                         .arg(QFileInfo(t).fileName());
    return parts.join(QStringLiteral("\n"));
}

void MainWindow::closeEvent(QCloseEvent* e) {
    const QString question = headless() ? QString() : closeQuestion();
    if (!question.isEmpty()) {
        const bool temporary = isTemporarySession(m_ctx->sessionPath());
        QMessageBox box(QMessageBox::Question, tr("Keep your work?"), question,
                        QMessageBox::NoButton, this);
        QPushButton* save = box.addButton(tr("Save As…"), QMessageBox::AcceptRole);
        box.addButton(temporary ? tr("Discard It") : tr("Leave It There"),
                      QMessageBox::DestructiveRole);
        QPushButton* cancel = box.addButton(QMessageBox::Cancel);
        box.setDefaultButton(save);
        box.exec();
        if (box.clickedButton() == cancel) {
            e->ignore();
            return;
        }
        if (box.clickedButton() == save) {
            const QString target = QFileDialog::getSaveFileName(
                this, tr("Save Session As"),
                QDir::home().filePath(QFileInfo(m_ctx->sessionPath()).fileName()),
                tr("Sessions (*.tscope)"));
            if (target.isEmpty()) {
                e->ignore();
                return;
            }
            // Copied on a job; the window closes when the copy is there (the saved
            // session is the user's own: no question then).
            m_closeAfterSave = true;
            m_doc->saveSessionAs(target.endsWith(QLatin1String(".tscope"))
                                     ? target
                                     : target + QStringLiteral(".tscope"));
            e->ignore();
            return;
        }
    }
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    m_ctx->jobs()->cancelAll();
    m_doc->removeTemporarySessions();
    e->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    QStringList paths;
    for (const QUrl& u : e->mimeData()->urls())
        if (u.isLocalFile()) paths << u.toLocalFile();
    openPaths(paths);
    e->acceptProposedAction();
}

void MainWindow::say(const QString& message, int timeoutMs) {
    m_said = message;
    m_saidUntil = QDeadlineTimer(timeoutMs);
    statusBar()->setToolTip(message);
    showSaid();
    QTimer::singleShot(0, this, &MainWindow::showSaid);  // once the labels hold their text
}

void MainWindow::showSaid() {
    if (m_said.isEmpty() || m_saidUntil.hasExpired()) return;
    int used = 0;
    for (QWidget* w : {static_cast<QWidget*>(m_jobLabel), static_cast<QWidget*>(m_progress),
                       static_cast<QWidget*>(m_cancel), static_cast<QWidget*>(m_placeLabel)})
        if (!w->isHidden()) used += w->sizeHint().width() + 8;
    const int room = std::max(120, statusBar()->width() - used - 24);
    statusBar()->showMessage(statusBar()->fontMetrics().elidedText(m_said, Qt::ElideRight, room),
                             static_cast<int>(std::max<qint64>(1, m_saidUntil.remainingTime())));
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    showSaid();
}
