#include "views/cluster/cluster_view.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "core/analysis/cluster/cluster_analysis.h"
#include "core/analysis/cluster/cluster_op_compare.h"
#include "views/cluster/cluster_heatmap.h"
#include "views/cluster/cluster_tables.h"
#include "views/cluster/rank_bars.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"

using namespace ts::analysis;

namespace {

struct Loaded {
    std::shared_ptr<const ClusterSummary> summary;
    std::shared_ptr<const ClusterMatrix> matrix;
    QString error;
};

QTableView* makeTable(FigureTableModel* model, QWidget* parent) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(FigureTableModel::SortRole);
    auto* t = new QTableView(parent);
    t->setModel(proxy);
    t->setSortingEnabled(true);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->verticalHeader()->hide();
    t->horizontalHeader()->setDefaultSectionSize(118);
    t->setAlternatingRowColors(true);
    return t;
}

/// The summary row tag of a (proxy) index of a table made by makeTable.
int tagAt(const QModelIndex& index) {
    return index.data(FigureTableModel::TagRole).toInt();
}

constexpr int kOpsDeltaColumn = 4;  // "Δ ms/step" of makeOpCompareModel

QString msLabel(double v) {
    return QString::number(v, 'f', v >= 100 ? 1 : 2) + QStringLiteral(" ms");
}

}  // namespace

ClusterView::ClusterView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_inputLabel(new QLabel(this)),
      m_metric(new QComboBox(this)),
      m_summaryLabel(new QLabel(this)),
      m_heatmap(new ClusterHeatmap(&m_viewport, this)),
      m_bars(new RankBars(&m_viewport, this)),
      m_tabs(new QTabWidget(this)),
      m_stragglers(makeStragglerModel(this)),
      m_ranks(makeRankModel(this)),
      m_ops(makeOpCompareModel(this)),
      m_rankBox(new QComboBox(this)),
      m_opsLabel(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_inputLabel, 1);
    m_sessionButton = new QPushButton(tr("Show the open session's ranks"), this);
    m_sessionButton->setToolTip(tr("Show the ranks of the open session instead of the folder"));
    m_sessionButton->hide();
    bar->addWidget(m_sessionButton);
    bar->addWidget(new QLabel(tr("Cells:"), this));
    for (int m = 0; m < static_cast<int>(CellMetric::Count); ++m)
        m_metric->addItem(tr(cellMetricName(static_cast<CellMetric>(m))), m);
    m_metric->setToolTip(
        tr("Step time: the ProfilerStep#N duration. Work: step time minus the communication "
           "compute does not hide — in synchronous training the slow rank has the most work. "
           "Wait: that exposed communication. Idle: neither compute nor communication."));
    bar->addWidget(m_metric);
    layout->addLayout(bar);
    m_summaryLabel->setWordWrap(true);
    m_summaryLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summaryLabel);

    auto* split = new QSplitter(Qt::Vertical, this);
    auto* top = new QSplitter(Qt::Horizontal, split);
    top->addWidget(m_heatmap);
    top->addWidget(m_bars);
    top->setStretchFactor(0, 5);
    top->setStretchFactor(1, 1);
    top->setSizes({1000, 230});
    split->addWidget(top);
    auto* stragglers = makeTable(m_stragglers, this);
    auto* ranks = makeTable(m_ranks, this);
    auto* opsPage = new QWidget(this);
    auto* opsLayout = new QVBoxLayout(opsPage);
    auto* opsBar = new QHBoxLayout;
    opsBar->addWidget(new QLabel(tr("Rank:"), opsPage));
    opsBar->addWidget(m_rankBox);
    opsBar->addWidget(m_opsLabel, 1);
    opsLayout->addLayout(opsBar);
    m_opsTable = makeTable(m_ops, opsPage);
    // As the label says: the largest difference first (the sort indicator shows it).
    m_opsTable->sortByColumn(kOpsDeltaColumn, Qt::DescendingOrder);
    opsLayout->addWidget(m_opsTable);
    m_tabs->addTab(stragglers, tr("Stragglers"));
    m_tabs->addTab(ranks, tr("Ranks"));
    m_tabs->addTab(opsPage, tr("Ops vs. median rank"));
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({560, 300});
    layout->addWidget(split, 1);

    connect(m_sessionButton, &QPushButton::clicked, this, &ClusterView::followSession);
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] {
        m_heatmap->setMetric(static_cast<CellMetric>(m_metric->currentData().toInt()));
    });
    connect(m_heatmap, &ClusterHeatmap::cellClicked, this, &ClusterView::activateCell);
    connect(m_heatmap, &ClusterHeatmap::viewportMoved, m_bars, qOverload<>(&QWidget::update));
    connect(m_bars, &RankBars::viewportMoved, m_heatmap, &ClusterHeatmap::viewportChanged);
    connect(m_bars, &RankBars::rankClicked, this, [this](int row) {
        compareOps(row);
        m_tabs->setCurrentIndex(2);
    });
    connect(stragglers, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
        const int k = tagAt(i);
        if (!m_summary || k < 0 || k >= static_cast<int>(m_summary->stragglers.size())) return;
        const Straggler& g = m_summary->stragglers[static_cast<size_t>(k)];
        activateCell(static_cast<int>(g.rankIndex), static_cast<int>(g.stepIndex));
    });
    connect(ranks, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
        compareOps(tagAt(i));
        m_tabs->setCurrentIndex(2);
    });
    connect(m_rankBox, &QComboBox::activated, this,
            [this](int i) { compareOps(m_rankBox->itemData(i).toInt()); });
    connect(ctx, &SessionContext::sessionChanged, this, &ClusterView::onSessionChanged);
    connect(ctx, &SessionContext::dataChanged, this, [this] {
        if (!m_folder.isEmpty()) return;
        m_stale = true;
        if (isVisible()) reload();
    });
    m_inputLabel->setText(tr("Ranks of the open session"));
}

void ClusterView::openFile(const QString& path) {
    m_folder = QFileInfo(path).absoluteFilePath();
    m_stale = true;
    reload();
}

void ClusterView::followSession() {
    m_folder.clear();
    m_stale = true;
    reload();
}

QStringList ClusterView::inputPaths() const {
    if (!m_folder.isEmpty()) return {m_folder};
    if (m_ctx->sessionPath().isEmpty()) return {};
    return {m_ctx->sessionPath()};
}

void ClusterView::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (m_stale) reload();
}

void ClusterView::reload() {
    m_stale = false;
    const QStringList paths = inputPaths();
    m_sessionButton->setVisible(!m_folder.isEmpty());
    m_inputLabel->setText(m_folder.isEmpty()
                              ? tr("Ranks of the open session <b>%1</b>")
                                    .arg(QFileInfo(m_ctx->sessionPath()).fileName().toHtmlEscaped())
                              : tr("Ranks of <b>%1</b>").arg(m_folder.toHtmlEscaped()));
    if (paths.isEmpty()) {
        showError(
            tr("No session open. Open a session whose traces carry ranks, several rank "
               "traces together, or a folder of rank_<r>.tscope files."));
        return;
    }
    m_summaryLabel->setText(tr("Reading the ranks…"));
    std::vector<std::string> p;
    for (const QString& s : paths) p.push_back(s.toStdString());
    m_ctx->jobs()->run<Loaded>(
        this, QStringLiteral("cluster-load"), tr("Summarising the ranks"),
        [p](ts::JobControl& jc) {
            Loaded out;
            auto s = analyzeClusterPaths(p, 2, &jc);
            if (!s) {
                out.error = QString::fromStdString(s.error());
                return out;
            }
            auto summary = std::make_shared<ClusterSummary>(std::move(s.value()));
            out.matrix = std::make_shared<ClusterMatrix>(buildClusterMatrix(*summary));
            out.summary = std::move(summary);
            return out;
        },
        [this](Loaded r) {
            if (!r.error.isEmpty())
                showError(r.error);
            else
                setSummary(r.summary, r.matrix);
        });
}

void ClusterView::showError(const QString& message) {
    m_summary.reset();
    m_heatmap->setData(nullptr, nullptr);
    m_bars->setSummary(nullptr);
    m_stragglers->setRows({}, {});
    m_ranks->setRows({}, {});
    m_ops->setRows({}, {});
    m_rankBox->clear();
    m_summaryLabel->setText(message);
}

void ClusterView::setSummary(std::shared_ptr<const ClusterSummary> summary,
                             std::shared_ptr<const ClusterMatrix> matrix) {
    m_summary = std::move(summary);
    const ClusterSummary& s = *m_summary;
    m_viewport.setExtent(s.rankCount(), s.stepCount());
    m_heatmap->setData(m_summary, std::move(matrix));
    m_bars->setSummary(m_summary);
    fillStragglers(*m_stragglers, s);
    fillRanks(*m_ranks, s);
    m_ops->setRows({}, {});
    m_rankBox->clear();
    for (size_t i = 0; i < s.rankCount(); ++i)
        m_rankBox->addItem(tr("rank %1").arg(s.ranks[i].input.rank), static_cast<int>(i));
    bool device = false;
    for (const RankProfile& r : s.ranks) device |= r.device;
    QString text =
        tr("%n rank(s), %1 step(s).", nullptr, static_cast<int>(s.rankCount())).arg(s.stepCount());
    if (s.slowestRank) {
        const int row = s.rowOfRank(*s.slowestRank);
        const RankFigures& slow = s.figures[static_cast<size_t>(row)];
        const RankFigures& med = s.figures[s.medianRankIndex];
        // Work (step time minus its wait) is what tells a straggler; step times are alike on
        // every rank, since the others wait for it: name which figure, as the Ranks table does.
        const int medRank = s.ranks[s.medianRankIndex].input.rank;
        text += slow.stragglerSteps > 0
                    ? tr(" Slowest: <b>rank %1</b>, a straggler in %2 step(s): the others waited "
                         "%3 for it in all. Its median work is %4 against %5 on rank %6, the "
                         "median rank by work (\"Median work ms\" in the Ranks tab; their "
                         "median steps: %7 and %8).")
                          .arg(*s.slowestRank)
                          .arg(slow.stragglerSteps)
                          .arg(msLabel(slow.stragglerExcessMs), msLabel(slow.workMsMedian),
                               msLabel(med.workMsMedian))
                          .arg(medRank)
                          .arg(msLabel(slow.stepMsMedian), msLabel(med.stepMsMedian))
                    : tr(" Slowest: rank %1, with the highest mean work per step, %2, against "
                         "%3 on rank %4, the median rank by work.")
                          .arg(*s.slowestRank)
                          .arg(msLabel(slow.workMsMean), msLabel(med.workMsMean))
                          .arg(medRank);
    }
    text += s.stragglers.empty()
                ? tr(" No straggler.")
                : tr(" <span style='color:#d62728'>%n straggler step(s)</span> (work above the "
                     "step's median by more than %1% of its median step time and %2 ms).",
                     nullptr, static_cast<int>(s.stragglers.size()))
                      .arg(100 * kStragglerExcess, 0, 'f', 0)
                      .arg(static_cast<double>(kStragglerMinNs) / 1e6, 0, 'f', 0);
    text += device ? tr(" Counted on the devices' kernels.") : tr(" Counted on host ops.");
    text += tr(" Hover a cell for its figures; click it for that rank's timeline at that step.");
    if (!s.warnings.empty())
        text += QStringLiteral("<br><i>%1</i>")
                    .arg(QString::fromStdString(s.warnings.front()).toHtmlEscaped() +
                         (s.warnings.size() > 1 ? tr(" (+%1 more)").arg(s.warnings.size() - 1)
                                                : QString()));
    m_summaryLabel->setText(text);
    if (s.slowestRank) {
        const int row = s.rowOfRank(*s.slowestRank);
        m_rankBox->setCurrentIndex(row);
        m_bars->setSelectedRow(row);
        compareOps(row);
    }
}

void ClusterView::activateCell(int row, int col) {
    if (!m_summary || row < 0 || col < 0) return;
    const RankStep* st = m_summary->cell(static_cast<size_t>(row), static_cast<size_t>(col));
    if (!st) return;
    PendingStep step{
        QString::fromStdString(m_summary->ranks[static_cast<size_t>(row)].input.sessionPath),
        st->sliceId, st->ts, st->ts + st->dur};
    const QString here = QFileInfo(m_ctx->sessionPath()).absoluteFilePath();
    if (QFileInfo(step.session).absoluteFilePath() != here) {
        // Another rank's session: open it; sessionChanged shows the step.
        m_pending = step;
        m_ctx->requestOpen(step.session);
        return;
    }
    m_ctx->requestView(QStringLiteral("timeline"));
    if (step.sliceId)
        m_ctx->selectSlice(step.sliceId);  // selects the step's slice and frames it
    else
        m_ctx->requestTimeRange(step.ts, step.end);
}

void ClusterView::onSessionChanged(const QString& path) {
    if (m_pending &&
        QFileInfo(path).absoluteFilePath() == QFileInfo(m_pending->session).absoluteFilePath()) {
        const PendingStep step = *m_pending;
        m_pending.reset();
        // After the other views have started loading the new session.
        QTimer::singleShot(0, this, [this, step] {
            m_ctx->requestView(QStringLiteral("timeline"));
            if (step.sliceId)
                m_ctx->selectSlice(step.sliceId);
            else
                m_ctx->requestTimeRange(step.ts, step.end);
        });
    }
    if (!m_folder.isEmpty()) return;  // a folder's ranks do not change with the session
    m_stale = true;
    if (isVisible()) reload();
}

void ClusterView::compareOps(int row) {
    if (!m_summary || row < 0 || row >= static_cast<int>(m_summary->rankCount())) return;
    m_rankBox->setCurrentIndex(row);
    m_bars->setSelectedRow(row);
    const auto& s = *m_summary;
    m_opsLabel->setText(tr("Computing rank %1 against the median rank %2…")
                            .arg(s.ranks[static_cast<size_t>(row)].input.rank)
                            .arg(s.ranks[s.medianRankIndex].input.rank));
    using R = ts::Result<OpComparison>;
    m_ctx->jobs()->run<R>(
        this, QStringLiteral("cluster-ops"), tr("Op statistics against the median rank"),
        [summary = m_summary, row](ts::JobControl& jc) {
            return compareRankOps(*summary, static_cast<size_t>(row), &jc);
        },
        [this](R r) {
            if (!r) {
                m_opsLabel->setText(QString::fromStdString(r.error()));
                m_ops->setRows({}, {});
                return;
            }
            fillOpCompare(*m_ops, r.value());
            m_opsLabel->setText(
                tr("Self time per step of rank %1 against the median rank %2 (by median work), "
                   "largest difference first.")
                    .arg(r.value().rank)
                    .arg(r.value().medianRank));
        });
}
