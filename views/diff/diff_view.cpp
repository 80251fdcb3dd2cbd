#include "views/diff/diff_view.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "core/timeline/time_axis.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/diff/diff_memory_panel.h"
#include "views/diff/diff_side_picker.h"
#include "views/diff/diff_split_plot.h"
#include "views/diff/diff_table_model.h"
#include "views/diff/diff_timelines.h"

using ts::analysis::OpChange;
using ts::analysis::RunDiff;
using DiffResult = ts::Result<std::shared_ptr<const RunDiff>>;

DiffView::DiffView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_picker(new DiffSidePicker(ctx, this)),
      m_memory(new DiffMemoryPanel(ctx, this)),
      m_by(new QComboBox(this)),
      m_map(new QLineEdit(this)),
      m_summary(new QLabel(this)),
      m_filter(new QLineEdit(this)),
      m_model(new DiffTableModel(this)),
      m_proxy(new QSortFilterProxyModel(this)),
      m_table(new QTableView(this)),
      m_split(new DiffSplitPlot(this)),
      m_timelines(new DiffTimelines(ctx, this)) {
    m_by->addItem(tr("by name"));
    m_by->addItem(tr("by name and input shapes"));
    m_map->setPlaceholderText(tr("name map (REGEX -> NAME per line), optional"));
    m_map->setToolTip(
        tr("A file of rules 'REGEX -> NAME' applied to both sides' op names, e.g. "
           "NPU kernel names to GPU ones (docs/DIFF.md)"));
    auto* browse = new QPushButton(tr("…"), this);
    browse->setMaximumWidth(32);
    auto* run = new QPushButton(tr("Compare"), this);
    auto* options = new QHBoxLayout;
    options->addWidget(m_by);
    options->addWidget(m_map, 1);
    options->addWidget(browse);
    options->addWidget(run);

    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_filter->setPlaceholderText(tr("Filter ops (name or class)"));
    m_filter->setClearButtonEnabled(true);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(DiffTableModel::SortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(DiffTableModel::Delta, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(22);
    m_table->horizontalHeader()->setSectionResizeMode(DiffTableModel::Op, QHeaderView::Stretch);
    m_table->setToolTip(tr("Double-click an op: both timelines zoomed to it, aligned"));

    auto* tableBox = new QWidget(this);
    auto* tl = new QVBoxLayout(tableBox);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->addWidget(m_filter);
    tl->addWidget(m_table, 1);
    auto* top = new QSplitter(Qt::Horizontal, this);
    auto* left = new QTabWidget(this);  // op time; memory side by side
    left->addTab(tableBox, tr("Op time"));
    left->addTab(m_memory, tr("Memory"));
    top->addWidget(left);
    top->addWidget(m_split);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    top->setSizes({820, 520});
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(m_timelines);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setSizes({330, 520});
    auto* lay = new QVBoxLayout(this);
    lay->addWidget(m_picker);
    lay->addLayout(options);
    lay->addWidget(m_summary);
    lay->addWidget(split, 1);

    connect(m_picker, &DiffSidePicker::selectionChanged, this, &DiffView::compare);
    connect(m_picker, &DiffSidePicker::problem, this, &DiffView::showError);
    connect(run, &QPushButton::clicked, this, &DiffView::compare);
    connect(m_by, &QComboBox::currentIndexChanged, this, &DiffView::compare);
    connect(m_map, &QLineEdit::editingFinished, this, &DiffView::compare);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Name map"), m_map->text());
        if (p.isEmpty()) return;
        m_map->setText(p);
        compare();
    });
    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            qOverload<const QString&>(&QSortFilterProxyModel::setFilterFixedString));
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& idx) {
        if (idx.isValid()) showRow(m_proxy->mapToSource(idx).row());
    });
    m_summary->setText(
        tr("Pick A and B: two runs or sources of the open session or of sessions "
           "added with \"Add session…\"."));
}

void DiffView::compare() {
    const auto sides = m_picker->selection();
    if (!sides) return;
    ts::analysis::RunDiffOptions o;
    o.by = m_by->currentIndex() == 1 ? ts::analysis::DiffGroupBy::Shape
                                     : ts::analysis::DiffGroupBy::Name;
    const QString mapPath = m_map->text().trimmed();
    const quint64 gen = ++m_generation;
    m_summary->setText(tr("Comparing…"));
    m_memory->compare(sides->first, sides->second, o.by == ts::analysis::DiffGroupBy::Shape);
    m_ctx->jobs()->run<DiffResult>(
        this, QStringLiteral("diff:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Comparing two runs"),
        [sides, o, mapPath](ts::JobControl& jc) mutable -> DiffResult {
            if (!mapPath.isEmpty()) {
                auto m = ts::analysis::NameMap::load(mapPath.toStdString());
                if (!m) return ts::Error{m.error()};
                o.map = std::move(m.value());
            }
            auto d = ts::analysis::diffRuns(sides->first, sides->second, o, &jc);
            if (!d) return ts::Error{d.error()};
            return std::shared_ptr<const RunDiff>(std::make_shared<RunDiff>(std::move(d.value())));
        },
        [this, gen](DiffResult r) {
            if (gen != m_generation) return;
            if (!r)
                showError(QString::fromStdString(r.error()));
            else
                showDiff(r.value());
        });
}

void DiffView::showError(const QString& message) {
    m_error = message;
    m_diff.reset();
    m_model->setRows({});
    m_split->setDiff({});
    m_timelines->clear();
    m_summary->setText(
        QStringLiteral("<span style='color:#c0392b'>%1</span>").arg(message.toHtmlEscaped()));
    emit compared();
}

void DiffView::showDiff(std::shared_ptr<const RunDiff> d) {
    m_error.clear();
    m_diff = d;
    m_model->setRows(d->ops);
    m_split->setDiff(*d);
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setSectionResizeMode(DiffTableModel::Op, QHeaderView::Stretch);
    int changed = 0;
    for (const auto& r : d->ops) changed += r.change != OpChange::Unchanged ? 1 : 0;
    const auto& al = d->aligned;
    m_summary->setText(
        tr("<b>%1</b><br>%2 ops, %3 changed beyond the noise band (±%4%); aligned step %5 of A "
           "with step %6 of B: %7 pairs, %8 inserted, %9 deleted.")
            .arg(QString::fromStdString(d->explains).toHtmlEscaped())
            .arg(d->ops.size())
            .arg(changed)
            .arg(100.0 * d->noiseBand, 0, 'f', 1)
            .arg(d->a.alignedStep)
            .arg(d->b.alignedStep)
            .arg(al.pairs.size())
            .arg(al.inserted.size())
            .arg(al.deleted.size()));
    // The largest change first: its timelines are what the user came for.
    if (!d->ops.empty()) {
        const int row = m_proxy->mapFromSource(m_model->index(0, 0)).row();
        m_table->selectRow(row);
        showRow(0);
    } else {
        m_timelines->clear();
    }
    emit compared();
}

void DiffView::showRow(int row) {
    if (!m_diff || row < 0 || row >= static_cast<int>(m_diff->ops.size())) return;
    m_timelines->showOp(m_diff, QString::fromStdString(m_diff->ops[static_cast<size_t>(row)].name));
}
