#include "views/dumps/inspector/hdf5_inspector_view.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/common/units_text.h"
#include "views/dumps/common/dataset_panel.h"
#include "views/dumps/common/h5_file_registry.h"
#include "views/dumps/inspector/h5_tree_model.h"

namespace {
struct Opened {
    std::shared_ptr<const ts::h5::File> file;
    QString error;
};
}  // namespace

Hdf5InspectorView::Hdf5InspectorView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_files(new QComboBox(this)),
      m_goto(new QLineEdit(this)),
      m_status(new QLabel(this)),
      m_tree(new QTreeView(this)),
      m_model(new H5TreeModel(ctx->jobs(), this)),
      m_panel(new DatasetPanel(ctx->jobs(), this)) {
    auto* open = new QPushButton(tr("Open…"), this);
    m_files->setMinimumContentsLength(40);
    m_files->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_files->setToolTip(tr("HDF5 files opened in this session"));
    m_goto->setPlaceholderText(tr("Go to path, e.g. Conv2d/1/output/0"));
    m_goto->setClearButtonEnabled(true);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("File:"), this));
    bar->addWidget(m_files, 2);
    bar->addWidget(open);
    bar->addWidget(m_goto, 1);
    bar->addWidget(m_status, 1);

    m_tree->setModel(m_model);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_tree);
    split->addWidget(m_panel);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    split->setSizes({380, 1000});
    auto* lay = new QVBoxLayout(this);
    lay->addLayout(bar);
    lay->addWidget(split, 1);

    connect(open, &QPushButton::clicked, this, [this] {
        const QString p =
            QFileDialog::getOpenFileName(this, tr("Open HDF5 file"), QString(),
                                         tr("HDF5 (*.h5 *.hdf5 *.he5 *.nc);;All files (*)"));
        if (!p.isEmpty()) openFile(p);
    });
    connect(m_files, &QComboBox::activated, this, [this](int i) {
        const QString p = m_files->itemData(i).toString();
        if (p != m_current) openFile(p);
    });
    connect(m_goto, &QLineEdit::returnPressed, this, [this] { selectPath(m_goto->text()); });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &Hdf5InspectorView::onCurrentChanged);
    connect(m_model, &H5TreeModel::childrenLoaded, this, [this] { continueSelect(); });
    connect(m_model, &H5TreeModel::loadFailed, this,
            [this](const QString& msg) { m_status->setText(msg); });
    auto fill = [this] {
        m_files->clear();
        for (const QString& f : H5FileRegistry::instance()->files())
            m_files->addItem(QFileInfo(f).fileName(), f);
        m_files->setCurrentIndex(m_files->findData(m_current));
    };
    connect(H5FileRegistry::instance(), &H5FileRegistry::filesChanged, this, fill);
    fill();
    m_status->setText(tr("Open an HDF5 file (File ▸ Open, or drop it on the window)."));
    // "Show in the HDF5 inspector" from the Overflow and Compare views.
    connect(H5FileRegistry::instance(), &H5FileRegistry::inspectRequested, this,
            &Hdf5InspectorView::takeRequest);
    takeRequest();
}

void Hdf5InspectorView::takeRequest() {
    const auto [file, dataset] = H5FileRegistry::instance()->takeInspectRequest();
    if (!file.isEmpty()) openAt(file, dataset);
}

void Hdf5InspectorView::openAt(const QString& path, const QString& dataset) {
    if (QFileInfo(path).absoluteFilePath() == m_current && m_model->file()) {
        selectPath(dataset);
        return;
    }
    openFile(path);
    m_selectAfterOpen = dataset;
}

void Hdf5InspectorView::openFile(const QString& path) {
    const quint64 gen = ++m_generation;
    m_selectAfterOpen.clear();
    // Registered at once, in the order files are given (the Compare view pairs the last two).
    H5FileRegistry::instance()->add(QFileInfo(path).absoluteFilePath());
    m_status->setText(tr("Opening %1…").arg(path));
    m_error.clear();
    m_ctx->jobs()->run<Opened>(
        this, QStringLiteral("h5open:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Opening %1").arg(QFileInfo(path).fileName()),
        [path](ts::JobControl&) {
            Opened o;
            auto f = ts::h5::File::open(path.toStdString());
            if (f)
                o.file = std::make_shared<const ts::h5::File>(std::move(f.value()));
            else
                o.error = QString::fromStdString(f.error());
            return o;
        },
        [this, gen, path](Opened o) {
            if (gen != m_generation) return;
            if (!o.file) {
                m_error = o.error;
                m_status->setText(QStringLiteral("<span style='color:#c0392b'>%1</span>")
                                      .arg(o.error.toHtmlEscaped()));
                emit openFailed(o.error);
                return;
            }
            m_current = QFileInfo(path).absoluteFilePath();
            m_files->setCurrentIndex(m_files->findData(m_current));
            m_model->setFile(o.file);
            m_panel->showObject(nullptr, {});
            m_status->setText(
                tr("%1 on disk").arg(bytesText(static_cast<double>(QFileInfo(path).size()))));
            m_status->setToolTip(m_current);
            const QByteArray env = qgetenv("TRAINSCOPE_H5_PATH");
            m_target = m_selectAfterOpen.isEmpty() ? QString::fromUtf8(env) : m_selectAfterOpen;
            m_selectAfterOpen.clear();
            m_autoSelect = m_target.isEmpty();
            emit fileOpened(m_current);
        });
}

void Hdf5InspectorView::selectPath(const QString& path) {
    QString p = path.trimmed();
    while (p.startsWith('/')) p.remove(0, 1);
    m_target = p;
    m_autoSelect = false;
    continueSelect();
}

void Hdf5InspectorView::continueSelect() {
    if (!m_model->file()) return;
    if (m_autoSelect) {
        // Descend through the first link of each group to the first dataset.
        QModelIndex at;
        for (int depth = 0; depth < 16; ++depth) {
            if (m_model->canFetchMore(at)) {
                m_model->fetchMore(at);
                return;  // continues when the children arrive
            }
            if (m_model->rowCount(at) == 0) break;
            QModelIndex first;
            for (int r = 0; r < m_model->rowCount(at); ++r) {
                const QModelIndex c = m_model->index(r, 0, at);
                if (c.data(H5TreeModel::KindRole).toInt() ==
                    static_cast<int>(ts::h5::NodeKind::Dataset)) {
                    first = c;
                    break;
                }
                if (!first.isValid() && c.data(H5TreeModel::KindRole).toInt() ==
                                            static_cast<int>(ts::h5::NodeKind::Group))
                    first = c;
            }
            if (!first.isValid()) break;
            if (first.data(H5TreeModel::KindRole).toInt() ==
                static_cast<int>(ts::h5::NodeKind::Dataset)) {
                m_autoSelect = false;
                m_tree->expand(at);
                m_tree->setCurrentIndex(first);
                return;
            }
            m_tree->expand(first);
            at = first;
        }
        m_autoSelect = false;
        return;
    }
    if (m_target.isEmpty()) return;
    const QStringList parts = m_target.split('/', Qt::SkipEmptyParts);
    QString prefix;
    QModelIndex parent;
    for (const QString& part : parts) {
        prefix = prefix.isEmpty() ? part : prefix + '/' + part;
        const QModelIndex idx = m_model->indexOfPath(prefix);
        if (!idx.isValid()) {
            if (m_model->canFetchMore(parent)) {
                m_model->fetchMore(parent);
                return;  // continues on childrenLoaded
            }
            if (m_model->pendingFetches() == 0) {
                m_status->setText(tr("No object /%1 in this file").arg(m_target));
                m_target.clear();
            }
            return;
        }
        if (prefix != m_target) m_tree->expand(idx);
        parent = idx;
    }
    m_target.clear();
    m_tree->setCurrentIndex(parent);
    m_tree->scrollTo(parent);
}

void Hdf5InspectorView::onCurrentChanged() {
    const QModelIndex idx = m_tree->currentIndex();
    if (!idx.isValid()) return;
    m_panel->showObject(m_model->file(), idx.data(H5TreeModel::PathRole).toString());
}
