#include "views/memory/snapshot_view.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "core/memory/allocator_state.h"
#include "core/store/trace_store.h"
#include "importers/registry.h"
#include "views/common/bytes_item.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/memory/segment_map_widget.h"
#include "views/memory/snapshot_answers.h"
#include "views/memory/snapshot_timeline_widget.h"

using namespace ts::memory;

SnapshotView::SnapshotView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_summary(new QLabel(tr("Open a PyTorch memory snapshot (torch.cuda.memory._dump_snapshot, "
                              "*.pickle) to see its timeline, segments, peak and leaks."),
                           this)),
      m_deviceBox(new QComboBox(this)),
      m_import(new QToolButton(this)),
      m_tabs(new QTabWidget(this)),
      m_timeline(new SnapshotTimelineWidget(this)),
      m_moment(new QComboBox(this)),
      m_event(new QSpinBox(this)),
      m_segments(new SegmentMapWidget(this)),
      m_segmentTable(new QTableWidget(0, 7, this)),
      m_stateLine(new QLabel(this)),
      m_peak(new QTreeWidget(this)),
      m_answers(new QTextBrowser(this)),
      m_details(new QPlainTextEdit(this)) {
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* open = new QToolButton(this);
    open->setText(tr("Open…"));
    connect(open, &QToolButton::clicked, this, [this] {
        const QString p = QFileDialog::getOpenFileName(
            this, tr("Open memory snapshot"), QFileInfo(m_path).absolutePath(),
            tr("Memory snapshots (*.pickle *.pickle.gz *.pkl);;All files (*)"));
        if (!p.isEmpty()) openFile(p);
    });
    m_import->setText(tr("Import into session"));
    m_import->setToolTip(
        tr("Add the snapshot to the open session, beside its traces (aligned "
           "by time where they share a clock)"));
    m_import->setEnabled(false);
    connect(m_import, &QToolButton::clicked, this, &SnapshotView::importIntoSession);
    connect(m_deviceBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0) showDevice(i);
    });
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Device:"), this));
    bar->addWidget(m_deviceBox);
    bar->addStretch(1);
    bar->addWidget(m_import);
    bar->addWidget(open);

    // Allocator state: a moment (peak, end, an OOM) or any event.
    auto* statePage = new QWidget(this);
    auto* sl = new QVBoxLayout(statePage);
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("State after:"), statePage));
    row->addWidget(m_moment);
    row->addWidget(new QLabel(tr("event"), statePage));
    row->addWidget(m_event);
    row->addWidget(m_stateLine, 1);
    sl->addLayout(row);
    auto* stateSplit = new QSplitter(Qt::Vertical, statePage);
    stateSplit->addWidget(m_segments);
    m_segmentTable->setHorizontalHeaderLabels({tr("Segment"), tr("Size"), tr("Allocated"),
                                               tr("Free"), tr("Largest free"), tr("Blocks"),
                                               tr("Stream")});
    m_segmentTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_segmentTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_segmentTable->verticalHeader()->hide();
    m_segmentTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    stateSplit->addWidget(m_segmentTable);
    sl->addWidget(stateSplit, 1);
    connect(m_moment, &QComboBox::activated, this,
            [this](int i) { showStateAt(m_moment->itemData(i).toInt()); });
    connect(m_event, &QSpinBox::editingFinished, this, [this] { showStateAt(m_event->value()); });
    connect(m_segments, &SegmentMapWidget::hovered, this, [this](const QString& t) {
        if (!t.isEmpty()) m_details->setPlainText(t);
    });

    m_peak->setHeaderLabels({tr("Site / allocation"), tr("Bytes"), tr("Count")});
    m_peak->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    connect(m_peak, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* it) {
        if (!it || !m_data) return;
        const qint64 a = it->data(0, Qt::UserRole).toLongLong();
        if (a >= 0)
            m_details->setPlainText(
                allocationText(*m_data, static_cast<size_t>(m_device), static_cast<size_t>(a)));
    });
    m_answers->setOpenLinks(false);

    m_tabs->addTab(m_timeline, tr("Active memory"));
    m_tabs->addTab(statePage, tr("Allocator state"));
    m_tabs->addTab(m_peak, tr("At the peak"));
    m_tabs->addTab(m_answers, tr("Answers"));
    connect(m_timeline, &SnapshotTimelineWidget::hovered, this, [this](qint64 a) {
        if (a >= 0 && m_data)
            m_details->setPlainText(
                allocationText(*m_data, static_cast<size_t>(m_device), static_cast<size_t>(a)));
    });
    m_details->setReadOnly(true);
    m_details->setPlaceholderText(
        tr("Hover an allocation or a block to see its size, address, "
           "stream and the frames that allocated it."));
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_tabs);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addLayout(bar);
    layout->addWidget(split, 1);
}

void SnapshotView::openFile(const QString& path) {
    m_path = path;
    m_summary->setText(tr("Reading %1…").arg(QFileInfo(path).fileName()));
    m_ctx->jobs()->run<SnapshotLoad>(
        this, QStringLiteral("memory-snapshot"), tr("Reading %1").arg(QFileInfo(path).fileName()),
        [path](ts::JobControl& jc) { return loadSnapshot(path, jc); },
        [this](SnapshotLoad r) {
            if (!r.error.isEmpty() || !r.data) {
                m_summary->setText(tr("Cannot read this snapshot: %1").arg(r.error));
                emit loaded();
                return;
            }
            showData(std::move(r.data));
            emit loaded();
        });
}

void SnapshotView::showData(std::shared_ptr<const SnapshotData> d) {
    m_data = std::move(d);
    m_import->setEnabled(true);
    const QSignalBlocker block(m_deviceBox);
    m_deviceBox->clear();
    for (const DeviceReport& r : m_data->report.devices)
        m_deviceBox->addItem(QStringLiteral("cuda:%1").arg(r.device));
    // The device with the highest peak first.
    int best = 0;
    for (int i = 0; i < static_cast<int>(m_data->report.devices.size()); ++i)
        if (m_data->report.devices[static_cast<size_t>(i)].timeline.peakBytes >
            m_data->report.devices[static_cast<size_t>(best)].timeline.peakBytes)
            best = i;
    m_deviceBox->setCurrentIndex(best);
    showDevice(best);
}

void SnapshotView::showDevice(int device) {
    if (!m_data || device < 0 || device >= static_cast<int>(m_data->report.devices.size())) {
        m_summary->setText(tr("This snapshot holds no device."));
        return;
    }
    m_device = device;
    const DeviceReport& r = m_data->report.devices[static_cast<size_t>(device)];
    m_summary->setText(snapshotHeadline(*m_data, static_cast<size_t>(device)));
    m_timeline->setData(m_data, static_cast<size_t>(device));
    m_answers->setHtml(snapshotAnswersHtml(*m_data, static_cast<size_t>(device)));
    m_moment->clear();
    m_moment->addItem(tr("the peak"), r.timeline.peakEvent);
    m_moment->addItem(tr("the snapshot (end)"), static_cast<int>(r.events) - 1);
    for (const OomAnswer& o : r.ooms)
        m_moment->addItem(tr("out of memory at event %1").arg(o.event), o.event);
    m_event->setRange(-1, std::max(0, static_cast<int>(r.events) - 1));
    fillPeakTree();
    // The details start on the largest allocation alive at the peak (hover for others).
    if (!r.peakBySite.empty())
        m_details->setPlainText(allocationText(*m_data, static_cast<size_t>(device),
                                               r.peakBySite.front().allocations.front()));
    // An OOM is the moment to look at first when there is one.
    showStateAt(r.ooms.empty() ? r.timeline.peakEvent : r.ooms.front().event);
    if (!r.ooms.empty()) m_moment->setCurrentIndex(2);
}

void SnapshotView::showStateAt(int event) {
    if (!m_data) return;
    const DeviceReport& r = m_data->report.devices[static_cast<size_t>(m_device)];
    // The peak and the end were computed with the report; any other moment replays the trace
    // back to it, on a job (millions of events take a while).
    if (event == r.atPeak.event) {
        showState(r.atPeak);
        return;
    }
    if (event >= r.atEnd.event) {
        showState(r.atEnd);
        return;
    }
    auto data = m_data;
    const int64_t device = r.device;
    m_stateLine->setText(tr("Replaying the trace back to event %1…").arg(event));
    m_ctx->jobs()->run<AllocatorState>(
        this, QStringLiteral("memory-snapshot-state"), tr("Allocator state at event %1").arg(event),
        [data, device, event](ts::JobControl&) {
            return allocatorStateAt(data->snapshot, device, event);
        },
        [this, data](AllocatorState st) {
            if (data == m_data) showState(std::move(st));
        });
}

void SnapshotView::showState(AllocatorState st) {
    m_event->setValue(st.event);
    m_stateLine->setText(tr("%1 segments, %2 reserved, %3 allocated, %4 free; the largest free "
                            "piece %5")
                             .arg(st.segments.size())
                             .arg(bytesText(st.reserved), bytesText(st.allocated),
                                  bytesText(st.freeBytes), bytesText(st.largestFree)));
    m_segmentTable->setSortingEnabled(false);
    m_segmentTable->setRowCount(static_cast<int>(st.segments.size()));
    for (int i = 0; i < static_cast<int>(st.segments.size()); ++i) {
        const StateSegment& g = st.segments[static_cast<size_t>(i)];
        auto* name = new QTableWidgetItem(QStringLiteral("s%1 (%2)")
                                              .arg(g.addr, 0, 16)
                                              .arg(g.isLarge ? tr("large") : tr("small")));
        m_segmentTable->setItem(i, 0, name);
        m_segmentTable->setItem(i, 1, new BytesItem(g.size));
        m_segmentTable->setItem(i, 2, new BytesItem(g.allocated));
        m_segmentTable->setItem(i, 3, new BytesItem(g.freeBytes));
        m_segmentTable->setItem(i, 4, new BytesItem(g.largestFree));
        for (int col : {5, 6}) {
            auto* it = new QTableWidgetItem;
            it->setData(Qt::DisplayRole, col == 5 ? static_cast<qint64>(g.blocks.size())
                                                  : static_cast<qint64>(g.stream));
            it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_segmentTable->setItem(i, col, it);
        }
    }
    m_segmentTable->setSortingEnabled(true);
    m_segments->setState(m_data, std::move(st));
}

void SnapshotView::fillPeakTree() {
    m_peak->clear();
    const DeviceReport& r = m_data->report.devices[static_cast<size_t>(m_device)];
    for (const SiteGroup& g : r.peakBySite) {
        auto* site = new QTreeWidgetItem(
            m_peak, {QString::fromStdString(g.site), bytesText(g.bytes), QString::number(g.count)});
        site->setData(0, Qt::UserRole, static_cast<qint64>(g.allocations.front()));
        site->setToolTip(0, stackText(m_data->snapshot, g.stack, 20));
        int shown = 0;
        for (size_t a : g.allocations) {
            if (shown++ == 200) break;
            const Allocation& al = r.timeline.allocations[a];
            auto* it = new QTreeWidgetItem(
                site, {QStringLiteral("b%1").arg(al.addr, 0, 16), bytesText(al.size), QString()});
            it->setData(0, Qt::UserRole, static_cast<qint64>(a));
        }
    }
    if (m_peak->topLevelItemCount()) m_peak->topLevelItem(0)->setExpanded(true);
}

void SnapshotView::importIntoSession() {
    const QString session = m_ctx->sessionPath();
    if (session.isEmpty()) {
        m_summary->setText(
            tr("Open or create a session first (File > New session), then import "
               "the snapshot into it."));
        return;
    }
    const QString path = m_path;
    m_ctx->jobs()->run<ts::importers::ImportReport>(
        this, QStringLiteral("memory-snapshot-import"),
        tr("Importing %1").arg(QFileInfo(path).fileName()),
        [path, session](ts::JobControl& jc) {
            ts::importers::ImportReport rep;
            auto st = ts::store::TraceStore::open(session.toStdString(),
                                                  ts::store::TraceStore::Mode::ReadWrite);
            if (!st) {
                rep.error = st.error();
                return rep;
            }
            for (const auto& imp : ts::importers::importers())
                if (imp.name == "torch_memory_snapshot")
                    return ts::importers::importWith(imp, path.toStdString(), *st.value(), jc);
            rep.error = "no snapshot importer";
            return rep;
        },
        [this](ts::importers::ImportReport rep) {
            if (ts::store::hasRows(rep.status)) {
                m_summary->setText(tr("Imported into the session as source %1.").arg(rep.sourceId));
                m_ctx->notifyDataChanged();
            } else {
                m_summary->setText(tr("Import failed: %1").arg(QString::fromStdString(rep.error)));
            }
        });
}
