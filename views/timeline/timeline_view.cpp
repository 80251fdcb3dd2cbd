#include "views/timeline/timeline_view.h"

#include <QCheckBox>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/store/trace_store.h"
#include "core/timeline/clock_bases.h"
#include "core/timeline/slice_details.h"
#include "views/common/empty_state.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/common/units_text.h"
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
    return durationText(ns);
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
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);
    outer->addWidget(m_stack);
    m_empty = new EmptyState(ctx, m_stack);
    auto* content = new QWidget(m_stack);
    m_stack->addWidget(m_empty);
    m_stack->addWidget(content);
    m_stack->setCurrentWidget(content);  // the empty state only once a model says so
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 4, 4, 0);
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Search slices by name (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    m_regex = new QCheckBox(tr("Regex"), this);
    auto* prev = button(QStringLiteral("\u25C0"), tr("Previous match (Shift+Enter)"), this);
    auto* next = button(QStringLiteral("\u25B6"), tr("Next match, zoomed to (Enter)"), this);
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

    // Unrelated clocks: say so, and offer to align (the choice shows on each source's tracks).
    m_clockBar = new QFrame(this);
    m_clockBar->setObjectName(QStringLiteral("clockBar"));
    m_clockBar->setFrameShape(QFrame::StyledPanel);
    auto* clockLayout = new QHBoxLayout(m_clockBar);
    clockLayout->setContentsMargins(6, 3, 6, 3);
    m_clockLabel = new QLabel(m_clockBar);
    m_clockLabel->setWordWrap(true);
    auto* alignAll = new QPushButton(tr("Align each to its first event"), m_clockBar);
    m_alignButton = new QToolButton(m_clockBar);
    m_alignButton->setText(tr("Align one source…"));
    m_alignButton->setPopupMode(QToolButton::InstantPopup);
    m_alignButton->setMenu(new QMenu(m_alignButton));
    clockLayout->addWidget(m_clockLabel, 1);
    clockLayout->addWidget(alignAll);
    clockLayout->addWidget(m_alignButton);
    m_clockBar->hide();
    layout->addWidget(m_clockBar);
    connect(alignAll, &QPushButton::clicked, this, &TimelineView::alignAllToFirstEvent);
    connect(m_alignButton->menu(), &QMenu::aboutToShow, this, &TimelineView::fillAlignMenu);

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
    split->setSizes({480, 210});  // the tracks first; the details below, scrolling
    layout->addWidget(split, 1);

    m_searchTimer->setSingleShot(true);
    m_searchTimer->setInterval(250);
    connect(m_searchTimer, &QTimer::timeout, this, &TimelineView::runSearch);
    connect(m_search, &QLineEdit::textChanged, m_searchTimer, qOverload<>(&QTimer::start));
    connect(m_regex, &QCheckBox::toggled, this, &TimelineView::runSearch);
    connect(m_search, &QLineEdit::returnPressed, this, &TimelineView::nextMatch);
    auto* previousKey = new QShortcut(QKeySequence(Qt::SHIFT | Qt::Key_Return), m_search, nullptr,
                                      nullptr, Qt::WidgetShortcut);
    connect(previousKey, &QShortcut::activated, this, &TimelineView::previousMatch);
    auto* clearKey =
        new QShortcut(QKeySequence(Qt::Key_Escape), m_search, nullptr, nullptr, Qt::WidgetShortcut);
    connect(clearKey, &QShortcut::activated, this, [this] {
        clearSearch();
        m_canvas->setFocus();
    });
    connect(m_canvas, &TimelineCanvas::escaped, this, &TimelineView::clearSearch);
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
            zoomToStoreRange(a, b);
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
    const bool empty = !m_model || m_model->tracks.empty();
    if (empty)
        m_empty->setContent(
            tr("Nothing on the timeline yet"),
            tr("The timeline shows traces: open one from PyTorch's profiler (torch.profiler "
               "writes <i>*.pt.trace.json</i>), Nsight Systems (<i>*.sqlite</i>) or any Chrome "
               "trace, or launch your training script with the profiler on: its traces appear "
               "here as they are written. The demo session has some to look at."),
            {{tr("Open a trace…"), QStringLiteral("open")},
             {tr("Launch a script with the profiler on…"), QStringLiteral("launch-profiled")},
             {tr("Open the demo"), QStringLiteral("demo")}});
    m_stack->setCurrentIndex(empty ? 0 : 1);
    updateClockBar();
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
    if (m_pendingRange) zoomToStoreRange(m_pendingRange->first, m_pendingRange->second);
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
    // "Start" in the details: from the start of the timeline, in the slice's aligned time.
    const int64_t origin = m_model->storeTime(ref.track, m_model->startNs);
    // Located through the model, the slice and its flow ends are read by primary key.
    auto keyOf = [m = m_model](const SliceRef& r) {
        return SliceKey{m->sliceId(r), m->tracks[r.track].id, m->storeTime(r.track, m->ts(r))};
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
    const int track = tracks.empty() ? -1 : tracks.front();
    m_ctx->requestTimeRange(m_model->storeTime(track, static_cast<int64_t>(t0)),
                            m_model->storeTime(track, static_cast<int64_t>(t1)));
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
    // Zoomed to the match: it fills a third of the view, its neighbours around it.
    const double a = static_cast<double>(m_model->ts(ref));
    const double d = std::max(static_cast<double>(m_model->dur(ref)), 1.0);
    m_canvas->zoomTo(a - d, a + 2 * d);
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

void TimelineView::zoomToStoreRange(int64_t a, int64_t b) {
    const int64_t shift = m_model->modelTime(a) - a;
    m_canvas->zoomTo(static_cast<double>(a + shift), static_cast<double>(b + shift));
}

void TimelineView::focusSearch() {
    m_search->setFocus(Qt::ShortcutFocusReason);
    m_search->selectAll();
}

void TimelineView::clearSearch() {
    m_searchTimer->stop();
    if (m_search->text().isEmpty() && !m_results) return;
    m_search->clear();
    m_results.reset();
    m_matchIndex = -1;
    m_matchLabel->clear();
    m_canvas->setSearch(nullptr);
    m_canvas->setCurrentMatch({});
}

void TimelineView::updateClockBar() {
    // Unrelated clocks, unless every source was placed by its command run (profiler cycles on
    // a clock that starts with their recording, each placed when its file was written).
    bool placed = m_model && !m_model->alignments.empty() &&
                  m_model->alignments.size() == m_model->sourceExtents.size();
    if (m_model)
        for (const auto& a : m_model->alignments)
            placed = placed && a.mode == ts::timeline::AlignMode::FileTime;
    const bool unrelated = m_model && m_model->clockBases.size() > 1 && !placed;
    m_clockBar->setVisible(unrelated);
    if (!unrelated) return;
    const auto& bases = m_model->clockBases;
    int64_t relative = 0;
    for (const auto& b : bases) relative += b.relative ? 1 : 0;
    const double apart = static_cast<double>(bases.back().startNs - bases.front().startNs);
    QString text = tr("These %n sources were recorded on unrelated clocks", nullptr,
                      static_cast<int>(m_model->sourceExtents.size()));
    text += relative > 0
                ? tr(" (%n from the start of its recording)", nullptr, static_cast<int>(relative))
                : QString();
    if (m_model->alignments.empty())
        text += tr(": shown as recorded they lie %1 apart, each squeezed to a sliver.")
                    .arg(durationText(apart, 3));
    else
        text += tr(" (%1 apart as recorded); %n source(s) aligned: the \u21E4 on their process "
                   "headers gives the shift, the hover how.",
                   nullptr, static_cast<int>(m_model->alignments.size()))
                    .arg(durationText(apart, 3));
    m_clockLabel->setText(text);
}

void TimelineView::fillAlignMenu() {
    QMenu* menu = m_alignButton->menu();
    menu->clear();
    if (!m_model) return;
    using ts::timeline::AlignMode;
    for (const ts::timeline::SourceExtent& e : m_model->sourceExtents) {
        const auto current = m_model->alignmentOf(e.sourceId);
        QMenu* sub = menu->addMenu(
            tr("Source %1: %2 (%3)")
                .arg(e.sourceId)
                .arg(QString::fromStdString(e.name), QString::fromStdString(current.describe())));
        const std::pair<AlignMode, QString> modes[] = {
            {AlignMode::AsRecorded, tr("As recorded")},
            {AlignMode::FirstEvent, tr("To its first event")},
            {AlignMode::ClockSync, tr("By a clock-sync event it shares")}};
        for (const auto& [mode, title] : modes) {
            QAction* a = sub->addAction(
                title, this, [this, id = e.sourceId, mode = mode] { alignSource(id, mode); });
            a->setCheckable(true);
            a->setChecked(current.mode == mode);
        }
        sub->addAction(tr("By hand…"), this, [this, id = e.sourceId] {
            bool ok = false;
            const double ms = QInputDialog::getDouble(
                this, tr("Align by hand"),
                tr("Its first event, in ms after the first event of the others:"), 0, -1e12, 1e12,
                3, &ok);
            if (ok)
                alignSource(id, ts::timeline::AlignMode::Manual, static_cast<int64_t>(ms * 1e6));
        });
    }
}

void TimelineView::alignSource(int64_t sourceId, ts::timeline::AlignMode mode, int64_t manualNs) {
    if (!m_model) return;
    m_ctx->jobs()->run<QString>(
        this, QStringLiteral("timeline-align"), tr("Aligning the clock of source %1").arg(sourceId),
        [p = m_ctx->sessionPath().toStdString(), extents = m_model->sourceExtents, sourceId, mode,
         manualNs](ts::JobControl&) {
            auto s = ts::store::TraceStore::open(p, ts::store::TraceStore::Mode::ReadWrite);
            if (!s) return QString::fromStdString(s.error());
            auto offset =
                ts::timeline::alignmentOffset(*s.value(), extents, sourceId, mode, manualNs);
            if (!offset) return QString::fromStdString(offset.error());
            auto w = ts::timeline::writeAlignment(*s.value(), {sourceId, mode, offset.value()});
            return w ? QString() : QString::fromStdString(w.error());
        },
        [this](QString error) {
            if (!error.isEmpty()) {
                m_status->setText(tr("Cannot align: %1").arg(error));
                return;
            }
            m_ctx->notifyDataChanged();
        });
}

void TimelineView::alignAllToFirstEvent() {
    if (!m_model || m_model->clockBases.size() < 2) return;
    // The reference clock (the largest group on an absolute clock) stays; the others move.
    const ts::timeline::ClockBase* ref = nullptr;
    for (const auto& b : m_model->clockBases)
        if (!b.relative && (!ref || b.sources.size() > ref->sources.size())) ref = &b;
    if (!ref) ref = &m_model->clockBases.front();
    std::vector<int64_t> moved;
    for (const auto& b : m_model->clockBases)
        if (&b != ref) moved.insert(moved.end(), b.sources.begin(), b.sources.end());
    m_ctx->jobs()->run<QString>(
        this, QStringLiteral("timeline-align"), tr("Aligning clocks"),
        [p = m_ctx->sessionPath().toStdString(), extents = m_model->sourceExtents,
         moved](ts::JobControl&) {
            auto s = ts::store::TraceStore::open(p, ts::store::TraceStore::Mode::ReadWrite);
            if (!s) return QString::fromStdString(s.error());
            for (int64_t id : moved) {
                using ts::timeline::AlignMode;
                auto offset =
                    ts::timeline::alignmentOffset(*s.value(), extents, id, AlignMode::FirstEvent);
                if (!offset) return QString::fromStdString(offset.error());
                auto w = ts::timeline::writeAlignment(*s.value(),
                                                      {id, AlignMode::FirstEvent, offset.value()});
                if (!w) return QString::fromStdString(w.error());
            }
            return QString();
        },
        [this](QString error) {
            if (!error.isEmpty()) {
                m_status->setText(tr("Cannot align: %1").arg(error));
                return;
            }
            m_ctx->notifyDataChanged();
        });
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
