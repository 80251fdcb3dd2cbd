#include "views/stats/stats_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "core/common/file_io.h"
#include "core/store/trace_store.h"
#include "core/timeline/time_axis.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/stats/op_stats_filter.h"
#include "views/stats/op_stats_table_model.h"
#include "views/stats/sample_stats_table_model.h"

using namespace ts::timeline;

namespace {
// Scope combo entries: 0 whole session, 1 selected range, then one entry per step.
constexpr int kWholeSession = 0;
constexpr int kSelection = 1;
using StatsResult = ts::Result<OpStats>;
using SamplesResult = ts::Result<SampleStats>;
using StepsResult = ts::Result<std::vector<ProfilerStep>>;
}  // namespace

StatsView::StatsView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_model(new OpStatsTableModel(this)),
      m_proxy(new OpStatsFilter(this)),
      m_samplesModel(new SampleStatsTableModel(this)),
      m_samplesProxy(new OpStatsFilter(this)) {
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    m_mode = new QComboBox(this);
    m_mode->addItem(tr("Ops"));
    m_mode->addItem(tr("Stack samples"));
    m_mode->setToolTip(
        tr("Stack samples: a CPU profiler's samples as a bottom-up table (self "
           "and total samples per function)"));
    m_scope = new QComboBox(this);
    m_scope->addItem(tr("Whole session"));
    m_scope->addItem(tr("Selected time range"));
    m_group = new QComboBox(this);
    m_group->addItem(tr("By op name"));
    m_group->addItem(tr("By category"));
    m_category = new QComboBox(this);
    m_category->addItem(tr("All categories"));
    m_category->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_shapes = new QCheckBox(tr("Group by input shape"), this);
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by name or category"));
    m_filter->setClearButtonEnabled(true);
    auto* exportButton = new QPushButton(tr("Export CSV…"), this);
    bar->addWidget(m_mode);
    bar->addWidget(new QLabel(tr("Scope:"), this));
    bar->addWidget(m_scope);
    bar->addWidget(m_group);
    bar->addWidget(m_category);
    bar->addWidget(m_shapes);
    bar->addWidget(m_filter, 1);
    bar->addWidget(exportButton);
    layout->addLayout(bar);
    m_summary = new QLabel(this);
    layout->addWidget(m_summary);

    m_proxy->setSourceModel(m_model);
    m_samplesProxy->setSourceModel(m_samplesModel);
    m_table = new QTableView(this);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(OpStatsTableModel::Self, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(OpStatsTableModel::Name,
                                                      QHeaderView::Stretch);
    m_table->horizontalHeader()->resizeSection(OpStatsTableModel::Category, 150);  // cuda_runtime
    m_table->setColumnHidden(OpStatsTableModel::InputShapes, true);
    layout->addWidget(m_table, 1);

    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        if (samplesMode()) return;
        const QModelIndex source = m_proxy->mapToSource(index);
        if (!source.isValid()) return;
        const int64_t id = m_model->stats().rows[static_cast<size_t>(source.row())].maxSliceId;
        if (!id) return;
        m_ctx->requestView(QStringLiteral("timeline"));
        m_ctx->selectSlice(id);
    });
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& t) {
        m_proxy->setFilterFixedString(t);
        m_samplesProxy->setFilterFixedString(t);
    });
    connect(m_category, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
        (samplesMode() ? m_samplesProxy : m_proxy)
            ->setCategory(i <= 0 ? QString() : m_category->itemText(i));
    });
    connect(m_mode, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
        const bool samples = samplesMode();
        m_table->setModel(samples ? static_cast<QAbstractItemModel*>(m_samplesProxy) : m_proxy);
        m_table->sortByColumn(
            samples ? int{SampleStatsTableModel::Self} : int{OpStatsTableModel::Self},
            Qt::DescendingOrder);
        m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
        m_group->setEnabled(!samples);
        m_shapes->setEnabled(!samples);
        if (!samples)
            m_table->setColumnHidden(OpStatsTableModel::InputShapes, !m_shapes->isChecked());
        recompute();
    });
    connect(m_scope, qOverload<int>(&QComboBox::currentIndexChanged), this, &StatsView::recompute);
    connect(m_group, qOverload<int>(&QComboBox::currentIndexChanged), this, &StatsView::recompute);
    connect(m_shapes, &QCheckBox::toggled, this, &StatsView::recompute);
    connect(exportButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export op statistics"),
                                                          QString(), tr("CSV files (*.csv)"));
        QString error;
        if (!path.isEmpty() && !exportCsv(path, &error)) m_summary->setText(error);
    });
    connect(ctx, &SessionContext::dataChanged, this, &StatsView::reload);
    connect(ctx, &SessionContext::timeRangeRequested, this, [this](qint64 a, qint64 b) {
        m_range = std::make_pair(a, b);
        if (m_scope->currentIndex() == kSelection) recompute();
    });
    reload();
}

void StatsView::reload() {
    loadSteps();
    recompute();
}

void StatsView::loadSteps() {
    if (m_ctx->sessionPath().isEmpty()) return;
    m_ctx->jobs()->run<StepsResult>(
        this, QStringLiteral("stats-steps"), tr("Listing steps"),
        [p = m_ctx->sessionPath().toStdString()](ts::JobControl&) -> StepsResult {
            auto s = ts::store::TraceStore::open(p, ts::store::TraceStore::Mode::ReadOnly);
            if (!s) return ts::Error{s.error()};
            return listProfilerSteps(*s.value());
        },
        [this](StepsResult r) {
            const QSignalBlocker block(m_scope);
            const int current = m_scope->currentIndex();
            while (m_scope->count() > 2) m_scope->removeItem(m_scope->count() - 1);
            m_steps = r ? r.value() : std::vector<ProfilerStep>{};
            for (const auto& s : m_steps)
                m_scope->addItem(
                    tr("ProfilerStep#%1 (source %2, %3)")
                        .arg(s.number)
                        .arg(s.sourceId)
                        .arg(QString::fromStdString(formatDuration(static_cast<double>(s.dur)))));
            m_scope->setCurrentIndex(current < m_scope->count() ? current : kWholeSession);
        });
}

void StatsView::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (m_stale) recompute();
}

bool StatsView::samplesMode() const {
    return m_mode->currentIndex() == 1;
}

void StatsView::recompute() {
    if (m_ctx->sessionPath().isEmpty()) return;
    // Whole-session statistics read every slice: done when the tab is looked at, so a big
    // session's timeline is not kept waiting by a table nobody sees yet.
    m_stale = !isVisible();
    if (m_stale) return;
    if (samplesMode()) {
        SampleStatsOptions so;
        const int scope = m_scope->currentIndex();
        if (scope == kSelection) {
            if (!m_range) {
                m_samplesModel->setStats({});
                m_summary->setText(
                    tr("No time range selected: Shift+drag in the timeline or click a step."));
                return;
            }
            so.range = m_range;
        } else if (scope > kSelection && scope - 2 < static_cast<int>(m_steps.size())) {
            const ProfilerStep& s = m_steps[static_cast<size_t>(scope - 2)];
            so.sourceId = s.sourceId;
            so.range = std::make_pair(s.ts, s.ts + std::max<int64_t>(s.dur, 1));
        }
        return recomputeSamples(so);
    }
    OpStatsOptions o;
    o.by = m_group->currentIndex() == 1 ? StatsGroupBy::Category : StatsGroupBy::Name;
    o.groupByInputShape = m_shapes->isChecked() && o.by == StatsGroupBy::Name;
    const int scope = m_scope->currentIndex();
    if (scope == kSelection) {
        if (!m_range) {
            m_model->setStats({});
            m_summary->setText(
                tr("No time range selected: Shift+drag in the timeline or click a step."));
            return;
        }
        o.range = m_range;
    } else if (scope > kSelection && scope - 2 < static_cast<int>(m_steps.size())) {
        const ProfilerStep& s = m_steps[static_cast<size_t>(scope - 2)];
        o.sourceId = s.sourceId;
        o.range = std::make_pair(s.ts, s.ts + std::max<int64_t>(s.dur, 1));
    }
    m_table->setColumnHidden(OpStatsTableModel::InputShapes, !o.groupByInputShape);
    m_summary->setText(tr("Computing…"));
    m_ctx->jobs()->run<StatsResult>(
        this, QStringLiteral("stats"), tr("Computing op statistics"),
        [p = m_ctx->sessionPath().toStdString(), o](ts::JobControl& jc) {
            return computeOpStats(p, o, &jc);
        },
        [this](StatsResult r) {
            if (!r) {
                m_model->setStats({});
                m_summary->setText(tr("Cannot compute: %1").arg(QString::fromStdString(r.error())));
                return;
            }
            const OpStats& s = r.value();
            m_summary->setText(tr("%L1 rows · %L2 slices · range %3")
                                   .arg(s.rows.size())
                                   .arg(s.slices)
                                   .arg(QString::fromStdString(formatDuration(
                                       static_cast<double>(s.rangeEnd - s.rangeStart)))));
            m_model->setStats(std::move(r.value()));
            updateCategories();
        });
}

void StatsView::recomputeSamples(SampleStatsOptions o) {
    m_summary->setText(tr("Computing…"));
    m_ctx->jobs()->run<SamplesResult>(
        this, QStringLiteral("stats"), tr("Computing sample statistics"),
        [p = m_ctx->sessionPath().toStdString(), o](ts::JobControl& jc) {
            return computeSampleStats(p, o, &jc);
        },
        [this](SamplesResult r) {
            if (!r) {
                m_samplesModel->setStats({});
                m_summary->setText(tr("Cannot compute: %1").arg(QString::fromStdString(r.error())));
                return;
            }
            const SampleStats& s = r.value();
            m_summary->setText(s.samples == 0
                                   ? tr("No stack samples in this scope (Chrome traces "
                                        "with P events or \"samples\" have them).")
                                   : tr("%L1 functions · %L2 samples (%L3 without a stack)")
                                         .arg(s.rows.size())
                                         .arg(s.samples)
                                         .arg(s.withoutStack));
            m_samplesModel->setStats(std::move(r.value()));
            updateCategories();
        });
}

void StatsView::updateCategories() {
    const bool samples = samplesMode();
    OpStatsFilter* proxy = samples ? m_samplesProxy : m_proxy;
    const QString current = proxy->category();
    QStringList cats;
    if (samples)
        for (const auto& r : m_samplesModel->stats().rows)
            if (!r.category.empty()) cats << QString::fromStdString(r.category);
    if (!samples && m_group->currentIndex() == 0)
        for (const auto& r : m_model->stats().rows)
            if (!r.category.empty()) cats << QString::fromStdString(r.category);
    cats.removeDuplicates();
    cats.sort();
    const QSignalBlocker block(m_category);
    m_category->clear();
    m_category->addItem(tr("All categories"));
    m_category->addItems(cats);
    const int keep = m_category->findText(current);
    m_category->setCurrentIndex(keep > 0 ? keep : 0);
    m_category->setEnabled(!cats.isEmpty());
    proxy->setCategory(keep > 0 ? current : QString());
}

bool StatsView::exportCsv(const QString& path, QString* error) const {
    const std::string csv =
        samplesMode() ? sampleStatsCsv(m_samplesModel->stats()) : opStatsCsv(m_model->stats());
    // Whole or not at all, and never over the session the table comes from.
    const auto s =
        ts::writeFileAtomically(path.toStdString(), csv, {m_ctx->sessionPath().toStdString()});
    if (!s && error) *error = QString::fromStdString(s.error());
    return s.ok();
}
