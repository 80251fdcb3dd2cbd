#include "views/dumps/overflow/overflow_view.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/dumps/common/dataset_panel.h"
#include "views/dumps/common/h5_file_registry.h"

namespace {
enum Col {
    ColIndex,
    ColStep,
    ColTensor,
    ColNan,
    ColPosInf,
    ColNegInf,
    ColOp,
    ColSeq,
    ColWhere,
    ColCount
};

QTableWidgetItem* item(const QString& text, bool number = false) {
    auto* it = new QTableWidgetItem(text);
    if (number) it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return it;
}

struct OpenedFile {
    std::shared_ptr<const ts::h5::File> file;
    QString error;
};
}  // namespace

OverflowView::OverflowView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_source(new QComboBox(this)),
      m_header(new QLabel(this)),
      m_table(new QTableWidget(0, ColCount, this)),
      m_panel(new DatasetPanel(ctx->jobs(), this)),
      m_poll(new QTimer(this)) {
    auto* open = new QPushButton(tr("Open dump…"), this);
    m_source->setMinimumContentsLength(40);
    m_source->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Source:"), this));
    bar->addWidget(m_source, 1);
    bar->addWidget(open);
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::RichText);
    m_table->setHorizontalHeaderLabels({tr("#"), tr("Step"), tr("Tensor"), tr("NaN"), tr("+Inf"),
                                        tr("−Inf"), tr("Op"), tr("Seq"), tr("Scope / origin")});
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->setVisible(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->setDefaultSectionSize(22);
    // The findings on the left, the selected tensor's statistics and values on the right.
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    split->addWidget(m_panel);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setSizes({520, 780});
    auto* lay = new QVBoxLayout(this);
    lay->addLayout(bar);
    lay->addWidget(m_header);
    lay->addWidget(split, 1);

    connect(open, &QPushButton::clicked, this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Open HDF5 dump"), QString(),
                                                       tr("HDF5 (*.h5 *.hdf5);;All files (*)"));
        if (!p.isEmpty()) openFile(p);
    });
    connect(m_source, &QComboBox::activated, this, &OverflowView::activateSource);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &OverflowView::onRowSelected);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (row < 0 || row >= static_cast<int>(m_rows.size())) return;
        const OverflowRow& r = m_rows[static_cast<size_t>(row)];
        if (r.file.isEmpty()) return;
        H5FileRegistry::instance()->requestInspect(r.file, r.path);  // the whole file around it
        m_ctx->requestView(QStringLiteral("hdf5"));
    });
    m_table->setToolTip(tr("Double-click to open the tensor in the HDF5 view"));
    connect(H5FileRegistry::instance(), &H5FileRegistry::filesChanged, this,
            &OverflowView::fillSources);
    connect(m_ctx, &SessionContext::sessionChanged, this, &OverflowView::refreshRuns);
    connect(m_ctx, &SessionContext::dataChanged, this, &OverflowView::refreshRuns);
    connect(m_poll, &QTimer::timeout, this, [this] {
        if (m_currentKey.startsWith(QLatin1String("run:")))
            showRun(m_currentKey.mid(4).toLongLong());
    });
    m_header->setText(
        tr("Open an HDF5 dump, or pick a run of the session that recorded overflow findings."));
    refreshRuns();
    // Pre-fill with the newest file opened in the studio, if any.
    const QStringList files = H5FileRegistry::instance()->files();
    if (!files.isEmpty()) openFile(files.back());
}

void OverflowView::refreshRuns() {
    const QString session = m_ctx->sessionPath();
    if (session.isEmpty()) {
        m_runs.clear();
        fillSources();
        return;
    }
    m_ctx->jobs()->run<std::vector<RunChoice>>(
        this, QStringLiteral("overflow-runs:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Listing runs with overflow findings"),
        [session](ts::JobControl&) { return runsWithFindings(session, nullptr); },
        [this](std::vector<RunChoice> runs) {
            m_runs = std::move(runs);
            fillSources();
            if (m_currentKey.isEmpty() && !m_runs.empty()) showRun(m_runs.front().id);
        });
}

void OverflowView::fillSources() {
    m_source->clear();
    for (const QString& f : H5FileRegistry::instance()->files())
        m_source->addItem(tr("Dump: %1").arg(QFileInfo(f).fileName()), QStringLiteral("file:") + f);
    for (const RunChoice& r : m_runs)
        m_source->addItem(
            tr("Run %1: %2 (%3, %4 findings)").arg(r.id).arg(r.name, r.status).arg(r.findings),
            QStringLiteral("run:%1").arg(r.id));
    m_source->setCurrentIndex(m_source->findData(m_currentKey));
}

void OverflowView::activateSource(int index) {
    const QString key = m_source->itemData(index).toString();
    if (key.startsWith(QLatin1String("file:")))
        openFile(key.mid(5));
    else if (key.startsWith(QLatin1String("run:")))
        showRun(key.mid(4).toLongLong());
}

void OverflowView::openFile(const QString& path) {
    const QString abs = QFileInfo(path).absoluteFilePath();
    m_currentKey = QStringLiteral("file:") + abs;
    m_poll->stop();
    H5FileRegistry::instance()->add(abs);
    const quint64 gen = ++m_generation;
    m_header->setText(tr("Scanning %1 for NaN/Inf…").arg(abs.toHtmlEscaped()));
    m_ctx->jobs()->run<OverflowListing>(
        this, QStringLiteral("overflow:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Scanning %1 for NaN/Inf").arg(QFileInfo(abs).fileName()),
        [abs](ts::JobControl& jc) { return scanDumpFile(abs, jc); },
        [this, gen](OverflowListing l) {
            if (gen == m_generation) show(l);
        });
}

void OverflowView::showRun(qint64 runId) {
    const QString key = QStringLiteral("run:%1").arg(runId);
    const bool same = key == m_currentKey;
    m_currentKey = key;
    const QString session = m_ctx->sessionPath();
    const quint64 gen = ++m_generation;
    if (!same) m_header->setText(tr("Reading the findings of run %1…").arg(runId));
    m_ctx->jobs()->run<OverflowListing>(
        this, QStringLiteral("overflow:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Reading overflow findings"),
        [session, runId](ts::JobControl&) { return loadRunFindings(session, runId); },
        [this, gen](OverflowListing l) {
            if (gen != m_generation) return;
            // A live run: poll its findings every two seconds until it ends.
            if (l.runStatus == QLatin1String("running"))
                m_poll->start(2000);
            else
                m_poll->stop();
            show(l);
        });
    fillSources();
}

void OverflowView::show(const OverflowListing& l) {
    m_error = l.error;
    m_order = l.order;
    const QString selectedPath =
        m_table->currentRow() >= 0 && m_table->currentRow() < static_cast<int>(m_rows.size())
            ? m_rows[static_cast<size_t>(m_table->currentRow())].path
            : QString();
    const bool keepSelection = !m_rows.empty() && l.rows.size() >= m_rows.size();
    m_rows = l.rows;
    fillSources();
    if (!l.error.isEmpty()) {
        m_header->setText(
            QStringLiteral("<span style='color:#c0392b'>%1</span>").arg(l.error.toHtmlEscaped()));
        m_table->setRowCount(0);
        m_panel->showObject(nullptr, {});
        emit loaded();
        return;
    }
    const bool isRun = m_currentKey.startsWith(QLatin1String("run:"));
    QString head;
    if (m_rows.empty()) {
        head = tr("<b>No NaN or Inf found.</b>");
    } else {
        const OverflowRow& f = m_rows.front();
        head = tr("<b>%1</b> tensors with NaN/Inf. First: <b style='color:#c0392b'>%2</b>")
                   .arg(m_rows.size())
                   .arg((f.path.isEmpty() ? f.op + '/' + QString::number(f.seqid) + '/' + f.tensor
                                          : f.path)
                            .toHtmlEscaped());
        if (isRun) head += tr(" at step %1").arg(f.step);
    }
    head += tr(" &nbsp;·&nbsp; Order: %1").arg(m_order.toHtmlEscaped());
    if (!l.problems.isEmpty())
        head += tr(" &nbsp;·&nbsp; %1 datasets could not be read").arg(l.problems.size());
    if (isRun && l.runStatus == QLatin1String("running")) head += tr(" &nbsp;·&nbsp; <i>live</i>");
    m_header->setText(head);

    m_table->setRowCount(static_cast<int>(m_rows.size()));
    m_table->setColumnHidden(ColStep, !isRun);
    m_table->setColumnHidden(ColWhere, !isRun);  // a dump's rows have no scope
    QFont bold = m_table->font();
    bold.setBold(true);
    for (int i = 0; i < static_cast<int>(m_rows.size()); ++i) {
        const OverflowRow& r = m_rows[static_cast<size_t>(i)];
        m_table->setItem(i, ColIndex, item(QString::number(i + 1), true));
        m_table->setItem(i, ColStep, item(r.step >= 0 ? QString::number(r.step) : QString(), true));
        m_table->setItem(i, ColTensor, item(r.path.isEmpty() ? r.tensor : r.path));
        m_table->setItem(i, ColOp, item(r.op));
        m_table->setItem(i, ColSeq,
                         item(r.seqid >= 0 ? QString::number(r.seqid) : QString(), true));
        m_table->setItem(i, ColNan, item(QString::number(r.nan), true));
        m_table->setItem(i, ColPosInf, item(QString::number(r.posinf), true));
        m_table->setItem(i, ColNegInf, item(QString::number(r.neginf), true));
        m_table->setItem(i, ColWhere, item(r.scope.isEmpty() ? r.origin : r.scope));
        if (i == 0) {
            for (int c = 0; c < ColCount; ++c) {
                m_table->item(i, c)->setBackground(QColor(255, 205, 210));
                m_table->item(i, c)->setForeground(QColor(Qt::black));  // read in a dark theme
                m_table->item(i, c)->setFont(bold);
            }
            m_table->item(i, ColIndex)->setText(tr("1 ◀ first"));
        }
    }
    m_table->resizeColumnsToContents();
    m_table->setColumnWidth(ColTensor, std::min(m_table->columnWidth(ColTensor), 300));
    int select = 0;
    if (keepSelection)
        for (int i = 0; i < static_cast<int>(m_rows.size()); ++i)
            if (m_rows[static_cast<size_t>(i)].path == selectedPath) select = i;
    if (!m_rows.empty() && (m_table->currentRow() != select || !keepSelection))
        m_table->selectRow(select);
    else if (m_rows.empty())
        m_panel->showObject(nullptr, {});
    emit loaded();
}

void OverflowView::onRowSelected() {
    const int row = m_table->currentRow();
    if (row < 0 || row >= static_cast<int>(m_rows.size())) return;
    const OverflowRow& r = m_rows[static_cast<size_t>(row)];
    if (r.file.isEmpty() || r.path.isEmpty()) {
        m_panel->showMessage(
            r.origin == QLatin1String("loss_scale")
                ? tr("The loss scale skipped step %1: its gradients held %2 NaN, %3 +Inf, %4 -Inf.")
                      .arg(r.step)
                      .arg(r.nan)
                      .arg(r.posinf)
                      .arg(r.neginf)
                : tr("This tensor was not dumped: a run dumps the inputs and outputs of its first "
                     "16 offending ops only."));
        return;
    }
    if (r.file == m_panelFile && m_panelH5) {
        m_panel->showObject(m_panelH5, r.path);
        return;
    }
    const QString file = r.file, path = r.path;
    m_ctx->jobs()->run<OpenedFile>(
        this, QStringLiteral("overflow-open:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Opening %1").arg(QFileInfo(file).fileName()),
        [file](ts::JobControl&) {
            OpenedFile o;
            auto f = ts::h5::File::open(file.toStdString());
            if (f)
                o.file = std::make_shared<const ts::h5::File>(std::move(f.value()));
            else
                o.error = QString::fromStdString(f.error());
            return o;
        },
        [this, file, path](OpenedFile o) {
            if (!o.file) return;
            m_panelFile = file;
            m_panelH5 = o.file;
            m_panel->showObject(m_panelH5, path);
        });
}
