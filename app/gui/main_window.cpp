#include "app/gui/main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>

#include "app/gui/folder_report_dialog.h"
#include "app/gui/onnx_export_action.h"
#include "app/gui/session_document.h"
#include "app/gui/view_list.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/diff/session_registry.h"
#include "views/session/session_sidebar.h"

namespace {
constexpr int kMaxRecent = 10;
const char* kFileFilter =
    "All supported (*.tscope *.json *.gz *.zip *.sqlite *.h5 *.hdf5 *.log *.txt *tfevents* "
    "*.pickle *.pkl);;"
    "Sessions (*.tscope);;Traces (*.json *.json.gz *.gz *.zip *.sqlite);;"
    "PyTorch memory snapshots (*.pickle *.pkl *.pickle.gz);;"
    "HDF5 dumps (*.h5 *.hdf5);;Logs (*.log *.txt);;All files (*)";
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
    resize(1600, 950);

    m_tabs->setDocumentMode(true);
    m_tabs->setTabsClosable(true);
    m_tabs->setMovable(true);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, [this](int i) {
        QWidget* w = m_tabs->widget(i);
        m_tabs->removeTab(i);
        w->deleteLater();
    });
    setCentralWidget(m_tabs);

    auto* dock = new QDockWidget(tr("Session"), this);
    dock->setObjectName(QStringLiteral("sessionDock"));
    dock->setWidget(m_sidebar);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    resizeDocks({dock}, {280}, Qt::Horizontal);

    m_jobLabel = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(240);
    m_progress->setTextVisible(true);
    m_cancel = new QToolButton(this);
    m_cancel->setText(tr("Cancel"));
    connect(m_cancel, &QToolButton::clicked, m_ctx->jobs(), &JobTracker::cancelAll);
    statusBar()->addPermanentWidget(m_jobLabel);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    auto* timer = new QTimer(this);
    connect(timer, &QTimer::timeout, this, &MainWindow::updateProgress);
    timer->start(100);
    updateProgress();

    buildMenus();

    connect(m_ctx, &SessionContext::viewRequested, this, [this](const QString& n) { showView(n); });
    connect(m_ctx, &SessionContext::openRequested, this,
            [this](const QString& path) { openPaths({path}); });
    connect(m_doc, &SessionDocument::sessionOpened, this, [this](const QString& path) {
        setWindowTitle(QStringLiteral("%1 — TrainScope").arg(QFileInfo(path).fileName()));
        addRecent(path);
        openDefaultViews();
        statusBar()->showMessage(tr("Opened %1").arg(path), 5000);
    });
    connect(m_doc, &SessionDocument::failed, this, [this](const QString& msg) {
        statusBar()->showMessage(msg, 15000);
        if (!qApp->property("trainscope_headless").toBool())
            QMessageBox::warning(this, tr("TrainScope"), msg);
    });
    connect(m_doc, &SessionDocument::imported, this,
            [this](const std::vector<ts::importers::ImportReport>& reports) {
                QStringList lines;
                for (const auto& r : reports) {
                    QString line = QStringLiteral("%1: %2").arg(
                        QFileInfo(QString::fromStdString(r.path)).fileName(),
                        QString::fromLatin1(ts::store::statusName(r.status)));
                    if (!r.error.empty()) line += " — " + QString::fromStdString(r.error);
                    lines << line;
                }
                statusBar()->showMessage(lines.join(QStringLiteral("; ")), 15000);
                bool anySlices = false;
                for (const auto& r : reports) anySlices |= r.slices + r.asyncSlices > 0;
                if (anySlices) showView(QStringLiteral("timeline"));
                bool anyFailed = false;
                for (const auto& r : reports)
                    anyFailed |= r.status == ts::store::SourceStatus::Failed;
                if (anyFailed && !qApp->property("trainscope_headless").toBool())
                    QMessageBox::warning(this, tr("Import"), lines.join('\n'));
            });

    connect(
        m_doc, &SessionDocument::folderImported, this,
        [this](const ts::importers::BatchImport& result) {
            QStringList parts, folders;
            for (const auto& [fate, n] : result.fateCounts())
                parts << tr("%1 %2").arg(n).arg(QString::fromLatin1(ts::importers::fateName(fate)));
            for (const auto& f : result.folders) folders << QString::fromStdString(f);
            statusBar()->showMessage(
                tr("Folder %1: %2")
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
}

MainWindow::~MainWindow() {
    m_ctx->jobs()->cancelAll();
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QToolBar* tb = addToolBar(tr("Main"));
    tb->setObjectName(QStringLiteral("mainToolbar"));
    tb->setMovable(false);

    QAction* open = file->addAction(tr("&Open…"), this, [this] {
        const QStringList files =
            QFileDialog::getOpenFileNames(this, tr("Open"), QString(), tr(kFileFilter));
        openPaths(files);
    });
    open->setShortcut(QKeySequence::Open);
    tb->addAction(open);
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
    imp->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    tb->addAction(imp);
    file->addAction(tr("&New Session"), this, [this] { m_doc->newSession(); });
    file->addAction(tr("Open &Demo Session"), this, [this] { openDemo(); });
    file->addSeparator();
    m_onnxExport = new OnnxExportAction(m_ctx, this);
    connect(m_onnxExport, &OnnxExportAction::finished, this, [this](bool ok, const QString& msg) {
        statusBar()->showMessage(msg, 15000);
        if (!ok && !qApp->property("trainscope_headless").toBool())
            QMessageBox::warning(this, tr("Export ONNX"), msg);
    });
    file->addAction(tr("Export &ONNX…"), this, [this] { m_onnxExport->ask(); })
        ->setObjectName(QStringLiteral("exportOnnxAction"));
    file->addSeparator();
    file->addAction(tr("&Quit"), this, &QWidget::close)->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    tb->addSeparator();
    for (const ViewInfo& v : allViews()) {
        QAction* a = view->addAction(v.title, this, [this, name = v.name] { showView(name); });
        tb->addAction(a);
    }

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About TrainScope"), this, [this] {
        QMessageBox::about(
            this, tr("About TrainScope"),
            tr("<h3>TrainScope %1</h3><p>A studio for people who train neural networks: why a "
               "run is slow, why it diverges, why it crashed.</p><p>Timelines of traces, operator "
               "statistics, loss curves, HDF5 tensor dumps with overflow checks and comparison, "
               "crash records and logs over one SQLite session.</p><p>Qt %2</p>")
                .arg(QStringLiteral(TRAINSCOPE_VERSION), QString::fromLatin1(qVersion())));
    });
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

bool MainWindow::openDemo() {
    return m_doc->openDemo();
}

void MainWindow::openPaths(const QStringList& paths) {
    QStringList toImport;
    for (const QString& raw : paths) {
        const QString path = QFileInfo(raw).absoluteFilePath();
        if (!QFileInfo::exists(path)) {
            statusBar()->showMessage(tr("No such file: %1").arg(path), 10000);
            continue;
        }
        if (SessionDocument::isSessionFile(path)) {
            SessionRegistry::instance()->add(path);  // the Diff view lists every one opened
            m_doc->openSession(path);
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

void MainWindow::closeEvent(QCloseEvent* e) {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    m_ctx->jobs()->cancelAll();
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
