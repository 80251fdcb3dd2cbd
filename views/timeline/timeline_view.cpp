#include "views/timeline/timeline_view.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/timeline/slice_details.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/timeline/slice_details_panel.h"
#include "views/timeline/timeline_canvas.h"

using namespace ts::timeline;

namespace {

using ModelResult = ts::Result<std::shared_ptr<const TimelineModel>>;
using SearchResult = ts::Result<std::shared_ptr<const SearchResults>>;

/// A table cell shown as text and sorted by a number.
class NumberItem : public QTableWidgetItem {
public:
    NumberItem(const QString& text, double value) : QTableWidgetItem(text) {
        setData(Qt::UserRole, value);
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& o) const override {
        return data(Qt::UserRole).toDouble() < o.data(Qt::UserRole).toDouble();
    }
};

QString durText(double ns) {
    return QString::fromStdString(formatDuration(ns));
}

QToolButton* button(const QString& text, const QString& tip, QWidget* parent) {
    auto* b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(tip);
    return b;
}

}  // namespace

TimelineView::TimelineView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent), m_ctx(ctx), m_searchTimer(new QTimer(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 4, 4, 0);
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Search slices by name"));
    m_search->setClearButtonEnabled(true);
    m_regex = new QCheckBox(tr("Regex"), this);
    auto* prev = button(QStringLiteral("\u25C0"), tr("Previous match (Shift+Enter)"), this);
    auto* next = button(QStringLiteral("\u25B6"), tr("Next match (Enter)"), this);
    m_matchLabel = new QLabel(this);
    auto* zoomSel =
        button(tr("Zoom to selection"), tr("Zoom to the area or slice selected (Z / F)"), this);
    auto* all = button(tr("Show all"), tr("Show the whole trace (0)"), this);
    m_status = new QLabel(this);
    m_allFlows = new QCheckBox(tr("All flows"), this);
    m_allFlows->setToolTip(tr("Draw every flow arrow in view; otherwise, once more than %1 are "
                              "in view, only those of the selected slice and its nested calls")
                               .arg(TimelinePainter::kMaxBackgroundFlows));
    bar->addWidget(m_search, 2);
    bar->addWidget(m_regex);
    bar->addWidget(prev);
    bar->addWidget(next);
    bar->addWidget(m_matchLabel);
    bar->addStretch(1);
    bar->addWidget(m_allFlows);
    bar->addWidget(zoomSel);
    bar->addWidget(all);
    bar->addWidget(m_status);
    layout->addLayout(bar);

    auto* split = new QSplitter(Qt::Vertical, this);
    m_canvas = new TimelineCanvas(split);
    m_bottom = new QTabWidget(split);
    m_details = new SliceDetailsPanel(m_bottom);
    m_aggregate = new QTableWidget(0, 7, m_bottom);
    m_aggregate->setHorizontalHeaderLabels(
        {tr("Name"), tr("Count"), tr("Total"), tr("Self"), tr("Avg"), tr("Min"), tr("Max")});
    m_aggregate->verticalHeader()->hide();
    m_aggregate->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_aggregate->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_bottom->addTab(m_details, tr("Details"));
    m_bottom->addTab(m_aggregate, tr("Area selection"));
    split->addWidget(m_canvas);
    split->addWidget(m_bottom);
    split->setStretchFactor(0, 5);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    m_searchTimer->setSingleShot(true);
    m_searchTimer->setInterval(250);
    connect(m_searchTimer, &QTimer::timeout, this, &TimelineView::runSearch);
    connect(m_search, &QLineEdit::textChanged, m_searchTimer, qOverload<>(&QTimer::start));
    connect(m_regex, &QCheckBox::toggled, this, &TimelineView::runSearch);
    connect(m_search, &QLineEdit::returnPressed, this, &TimelineView::nextMatch);
    connect(next, &QToolButton::clicked, this, &TimelineView::nextMatch);
    connect(prev, &QToolButton::clicked, this, &TimelineView::previousMatch);
    connect(zoomSel, &QToolButton::clicked, this, &TimelineView::zoomToSelection);
    connect(all, &QToolButton::clicked, m_canvas, &TimelineCanvas::showAll);
    connect(m_allFlows, &QCheckBox::toggled, m_canvas, &TimelineCanvas::setShowAllFlows);
    connect(m_canvas, &TimelineCanvas::sliceClicked, this, &TimelineView::onSliceClicked);
    connect(m_canvas, &TimelineCanvas::areaSelected, this, &TimelineView::onArea);
    connect(m_details, &SliceDetailsPanel::sliceLinkActivated, this, [this](qint64 id) {
        selectById(id);
        m_publishing = true;
        m_ctx->selectSlice(id);
        m_publishing = false;
    });
    connect(ctx, &SessionContext::dataChanged, this, &TimelineView::reload);
    connect(ctx, &SessionContext::timeRangeRequested, this, [this](qint64 a, qint64 b) {
        if (m_publishing) return;
        if (modelIsCurrent())
            m_canvas->zoomTo(static_cast<double>(a - m_model->originNs),
                             static_cast<double>(b - m_model->originNs));
        else
            m_pendingRange = std::make_pair(a, b);
    });
    connect(ctx, &SessionContext::sliceSelected, this, [this](qint64 id) {
        if (m_publishing) return;
        if (modelIsCurrent())
            selectById(id);
        else
            m_pendingSlice = id;
    });
    reload();
}

bool TimelineView::modelIsCurrent() const {
    return m_model && m_modelPath == m_ctx->sessionPath();
}

void TimelineView::reload() {
    const QString path = m_ctx->sessionPath();
    if (path.isEmpty()) {
        setModel(nullptr);
        return;
    }
    m_status->setText(tr("Loading…"));
    m_ctx->jobs()->run<ModelResult>(
        this, QStringLiteral("timeline-load"), tr("Loading timeline"),
        [p = path.toStdString()](ts::JobControl& jc) { return loadTimelineModel(p, &jc); },
        [this, path](ModelResult r) {
            if (!r) {
                m_status->setText(tr("Cannot load: %1").arg(QString::fromStdString(r.error())));
                return;
            }
            m_modelPath = path;
            setModel(r.value());
        },
        1);  // ahead of other views' jobs: the timeline is what a big session opens for
}

void TimelineView::setModel(std::shared_ptr<const TimelineModel> m) {
    m_model = std::move(m);
    m_results.reset();
    m_matchIndex = -1;
    m_matchLabel->clear();
    m_aggregate->setRowCount(0);
    m_canvas->setModel(m_model);
    m_details->showMessage(
        tr("Click a slice to see its details; Shift+drag to aggregate an area."));
    if (!m_model) {
        m_status->clear();
        return;
    }
    m_status->setText(
        tr("%L1 slices · %L2 tracks").arg(m_model->sliceCount).arg(m_model->tracks.size()));
    if (m_pendingRange)
        m_canvas->zoomTo(static_cast<double>(m_pendingRange->first - m_model->originNs),
                         static_cast<double>(m_pendingRange->second - m_model->originNs));
    m_pendingRange.reset();
    if (m_pendingSlice) selectById(m_pendingSlice);
    m_pendingSlice = 0;
    if (!m_search->text().isEmpty()) runSearch();
}

void TimelineView::onSliceClicked(const SliceRef& ref) {
    if (!ref.valid() || !m_model) {
        m_details->showMessage(tr("Nothing selected."));
        return;
    }
    const int64_t id = m_model->sliceId(ref);
    loadDetails(ref);
    m_publishing = true;
    m_ctx->selectSlice(id);
    m_publishing = false;
}

void TimelineView::loadDetails(const SliceRef& ref) {
    using DetailsResult = ts::Result<SliceDetails>;
    if (!m_model || !ref.valid()) return;
    m_bottom->setCurrentWidget(m_details);
    const int64_t origin = m_model->originNs + m_model->startNs;
    // Located through the model, the slice and its flow ends are read by primary key.
    auto keyOf = [m = m_model](const SliceRef& r) {
        return SliceKey{m->sliceId(r), m->tracks[r.track].id, m->ts(r) + m->originNs};
    };
    m_ctx->jobs()->run<DetailsResult>(
        this, QStringLiteral("timeline-details"), tr("Reading slice"),
        [p = m_ctx->sessionPath().toStdString(), model = m_model, ref, keyOf](ts::JobControl&) {
            std::vector<SliceKey> known;
            const SliceLevel& sel = model->level(ref);
            const int64_t a = sel.ts[ref.index], b = sel.end(ref.index);
            for (const FlowArrow& f : model->flows) {
                if (f.from == ref) known.push_back(keyOf(f.to));
                if (f.to == ref) known.push_back(keyOf(f.from));
                if (f.from.track == ref.track && model->level(f.from).depth > sel.depth &&
                    model->ts(f.from) >= a && model->ts(f.from) < b)
                    known.push_back(keyOf(f.to));  // a flow of a nested call
            }
            return readSliceDetails(p, keyOf(ref), known);
        },
        [this, origin](DetailsResult r) {
            if (r)
                m_details->showDetails(r.value(), origin);
            else
                m_details->showMessage(QString::fromStdString(r.error()));
        });
}

void TimelineView::selectById(int64_t sliceId) {
    if (!m_model) return;
    m_ctx->jobs()->run<SliceRef>(
        this, QStringLiteral("timeline-find"), tr("Finding slice"),
        [model = m_model, sliceId](ts::JobControl&) { return model->find(sliceId); },
        [this, sliceId, model = m_model](SliceRef ref) {
            if (model != m_model) return;  // found in a model since replaced
            if (!ref.valid()) {
                m_details->showMessage(tr("Slice %1 is not in the timeline.").arg(sliceId));
                return;
            }
            m_canvas->selectSlice(ref);
            m_canvas->frameSelection();
            loadDetails(ref);
        });
}

void TimelineView::onArea(const std::vector<int>& tracks, double t0, double t1) {
    if (!m_model) return;
    using Rows = std::vector<AggregateRow>;
    m_ctx->jobs()->run<Rows>(
        this, QStringLiteral("timeline-aggregate"), tr("Aggregating selection"),
        [model = m_model, tracks, t0, t1](ts::JobControl&) {
            return aggregateSelection(*model, tracks, static_cast<int64_t>(t0),
                                      static_cast<int64_t>(t1));
        },
        [this](Rows rows) {
            m_aggregate->setSortingEnabled(false);
            m_aggregate->setRowCount(static_cast<int>(rows.size()));
            for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
                const AggregateRow& r = rows[i];
                m_aggregate->setItem(
                    i, 0, new QTableWidgetItem(QString::fromStdString(m_model->nameOf(r.name))));
                m_aggregate->setItem(
                    i, 1, new NumberItem(QString::number(r.count), static_cast<double>(r.count)));
                const double vals[] = {static_cast<double>(r.total), static_cast<double>(r.self),
                                       r.avg(), static_cast<double>(r.min),
                                       static_cast<double>(r.max)};
                for (int c = 0; c < 5; ++c)
                    m_aggregate->setItem(i, c + 2, new NumberItem(durText(vals[c]), vals[c]));
            }
            m_aggregate->setSortingEnabled(true);
            m_bottom->setCurrentWidget(m_aggregate);
        });
    m_publishing = true;
    m_ctx->requestTimeRange(static_cast<int64_t>(t0) + m_model->originNs,
                            static_cast<int64_t>(t1) + m_model->originNs);
    m_publishing = false;
}

void TimelineView::runSearch() {
    m_searchTimer->stop();
    if (!m_model) return;
    const std::string pattern = m_search->text().toStdString();
    const bool regex = m_regex->isChecked();
    m_ctx->jobs()->run<SearchResult>(
        this, QStringLiteral("timeline-search"), tr("Searching"),
        [model = m_model, pattern, regex](ts::JobControl& jc) -> SearchResult {
            auto r = searchSlices(*model, pattern, regex, &jc);
            if (!r) return ts::Error{r.error()};
            return std::shared_ptr<const SearchResults>(
                std::make_shared<SearchResults>(std::move(r.value())));
        },
        [this](SearchResult r) {
            m_matchIndex = -1;
            if (!r) {
                m_results.reset();
                m_canvas->setSearch(nullptr);
                m_matchLabel->setText(QString::fromStdString(r.error()));
                return;
            }
            m_results = r.value();
            m_canvas->setSearch(m_results);
            m_matchLabel->setText(m_search->text().isEmpty()
                                      ? QString()
                                      : tr("%L1 matches").arg(m_results->matches.size()));
            if (m_frameFirstMatch && !m_results->matches.empty()) {
                m_frameFirstMatch = false;
                goToMatch(0);
                frameWithFlows(m_results->matches.front());
            }
        });
}

void TimelineView::goToMatch(int64_t index) {
    if (!m_model || !m_results || index < 0 ||
        index >= static_cast<int64_t>(m_results->matches.size()))
        return;
    m_matchIndex = index;
    const SliceRef ref = m_results->matches[index];
    m_matchLabel->setText(tr("%L1 / %L2").arg(index + 1).arg(m_results->matches.size()));
    m_canvas->selectSlice(ref);
    m_canvas->setCurrentMatch(ref);
    const auto& ax = m_canvas->axis();
    const double a = static_cast<double>(m_model->ts(ref));
    const double b = a + static_cast<double>(m_model->dur(ref));
    const double span = ax.end() - ax.start();
    if (b - a > span)
        m_canvas->frameSelection();
    else if (a < ax.start() || b > ax.end())
        m_canvas->zoomTo(a + (b - a) / 2 - span / 2.2, a + (b - a) / 2 + span / 2.2);
    m_canvas->revealTrack(ref.track);
    onSliceClicked(ref);
}

void TimelineView::nextMatch() {
    if (!m_results || m_results->matches.empty()) return runSearch();
    if (m_matchIndex >= 0)
        goToMatch((m_matchIndex + 1) % static_cast<int64_t>(m_results->matches.size()));
    else
        goToMatch(ts::timeline::nextMatch(*m_model, *m_results,
                                          static_cast<int64_t>(m_canvas->axis().start())));
}

void TimelineView::previousMatch() {
    if (!m_results || m_results->matches.empty()) return;
    const auto n = static_cast<int64_t>(m_results->matches.size());
    if (m_matchIndex >= 0)
        goToMatch((m_matchIndex + n - 1) % n);
    else
        goToMatch(ts::timeline::previousMatch(*m_model, *m_results,
                                              static_cast<int64_t>(m_canvas->axis().end())));
}

void TimelineView::zoomToSelection() {
    if (!m_canvas->zoomToArea()) m_canvas->frameSelection();
}

void TimelineView::findAndFrame(const QString& text) {
    m_frameFirstMatch = true;
    m_search->setText(text);  // the model's arrival runs the search too
    if (m_model) runSearch();
}

void TimelineView::frameWithFlows(const SliceRef& ref) {
    if (!m_model || !ref.valid()) return;
    const TimelineModel& m = *m_model;
    const SliceLevel& sel = m.level(ref);
    int64_t a = sel.ts[ref.index], b = sel.end(ref.index);
    const int64_t selStart = a, selEnd = b;
    for (const FlowArrow& f : m.flows) {
        const bool nested = f.from.track == ref.track && m.level(f.from).depth > sel.depth &&
                            m.ts(f.from) >= selStart && m.ts(f.from) < selEnd;
        if (!(f.from == ref || f.to == ref || nested)) continue;
        for (const SliceRef& end : {f.from, f.to}) {
            a = std::min(a, m.ts(end));
            b = std::max(b, m.level(end).end(end.index));
        }
    }
    const double margin = static_cast<double>(b - a) * 0.15 + 1;
    m_canvas->zoomTo(static_cast<double>(a) - margin, static_cast<double>(b) + margin);
}
