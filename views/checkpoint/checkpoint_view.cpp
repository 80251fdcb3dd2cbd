#include "views/checkpoint/checkpoint_view.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "views/checkpoint/checkpoint_table_model.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"

namespace {

struct LoadResult {
    bool ok = false;
    ts::checkpoint_info::CheckpointInfo info;
    QString error;
};

}  // namespace

CheckpointView::CheckpointView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_model(new CheckpointTableModel(this)),
      m_proxy(new QSortFilterProxyModel(this)),
      m_table(new QTableView(this)),
      m_filter(new QLineEdit(this)),
      m_summary(new QLabel(tr("Open a checkpoint (*.ckpt) to list its parameters."), this)) {
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(CheckpointTableModel::SortRole);
    m_proxy->setFilterKeyColumn(CheckpointTableModel::NameCol);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder);  // file order until a header is clicked
    m_table->horizontalHeader()->setSectionResizeMode(CheckpointTableModel::NameCol,
                                                      QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_filter->setPlaceholderText(tr("Filter by name"));
    m_filter->setClearButtonEnabled(true);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);

    auto* open = new QToolButton(this);
    open->setText(tr("Open…"));
    open->setToolTip(tr("List the parameters of a checkpoint file"));
    connect(open, &QToolButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open checkpoint"), QFileInfo(m_path).absolutePath(),
            tr("Checkpoints (*.ckpt);;All files (*)"));
        if (!path.isEmpty()) openFile(path);
    });
    auto* row = new QHBoxLayout;
    row->addWidget(m_filter, 1);
    row->addWidget(open);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addLayout(row);
    layout->addWidget(m_table, 1);
}

QString CheckpointView::summary() const {
    return m_summary->text();
}

void CheckpointView::openFile(const QString& path) {
    m_path = path;
    m_summary->setText(tr("Reading %1…").arg(QFileInfo(path).fileName()));
    m_ctx->jobs()->run<LoadResult>(
        this, QStringLiteral("checkpoint-%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Reading checkpoint"),
        [file = path.toStdString()](ts::JobControl&) {
            LoadResult r;
            auto info = ts::checkpoint_info::readCheckpointInfo(file);
            r.ok = info.ok();
            if (r.ok)
                r.info = std::move(info.value());
            else
                r.error = QString::fromStdString(info.error());
            return r;
        },
        [this](LoadResult r) {
            if (!r.ok) {
                m_model->setInfo({});
                m_summary->setText(tr("Cannot read the checkpoint: %1").arg(r.error));
                emit loaded(false);
                return;
            }
            const QLocale loc;
            QString text = tr("%1 — %2 tensors, %3 parameters, %4 trainable")
                               .arg(QFileInfo(m_path).fileName())
                               .arg(r.info.params.size())
                               .arg(loc.toString(static_cast<qlonglong>(r.info.totalElements)))
                               .arg(loc.toString(static_cast<qlonglong>(r.info.trainableElements)));
            for (const auto& w : r.info.warnings)
                text += QStringLiteral("\n⚠ ") + QString::fromStdString(w);
            m_model->setInfo(std::move(r.info));
            m_summary->setText(text);
            emit loaded(true);
        });
}
