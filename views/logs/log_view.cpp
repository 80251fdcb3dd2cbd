#include "views/logs/log_view.h"

#include <unistd.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/common/clock.h"
#include "core/log/memory_sinks.h"
#include "core/log_store/log_store.h"
#include "core/store/trace_store.h"
#include "importers/logs/log_file_importer.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/logs/log_level_panel.h"
#include "views/logs/log_table_model.h"

namespace {

struct TailResult {
    std::vector<ts::log::LogRecord> records;
    int64_t lastId = 0;
    bool more = false;  // the read was full: more rows wait
    QString error;
};

struct FileResult {
    std::vector<ts::log::LogRecord> records;
    QString note;
    bool imported = false;
};

constexpr int64_t kJumpHalfWindowNs = 5'000'000;  // ±5 ms around a clicked record
constexpr int kPollMs = 500;                      // in-process records
constexpr int kTailEveryTicks = 4;                // the session's table: every 2 s

}  // namespace

LogView::LogView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent), m_ctx(ctx), m_model(new LogTableModel(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    m_levelCombo = new QComboBox(this);
    for (int i = 0; i < ts::log::kLevelCount; ++i)
        m_levelCombo->addItem(
            QString::fromLatin1(ts::log::levelName(static_cast<ts::log::Level>(i)).data()) +
            (i < ts::log::kLevelCount - 1 ? QStringLiteral("+") : QString()));
    m_levelCombo->setToolTip(tr("Lowest level shown"));
    m_moduleCombo = new QComboBox(this);
    m_moduleCombo->addItem(tr("All modules"));
    m_text = new QLineEdit(this);
    m_text->setPlaceholderText(tr("Filter text…"));
    m_text->setClearButtonEnabled(true);
    m_regex = new QCheckBox(tr("Regex"), this);
    m_timeCombo = new QComboBox(this);
    m_timeCombo->addItems({tr("All times"), tr("Timeline range"), tr("From … to …")});
    m_fromEdit = new QLineEdit(this);
    m_toEdit = new QLineEdit(this);
    for (QLineEdit* e : {m_fromEdit, m_toEdit}) {
        e->setPlaceholderText(QStringLiteral("yyyy-mm-dd-hh:mm:ss.mmm"));
        e->setVisible(false);
    }
    m_follow = new QCheckBox(tr("Follow"), this);
    m_follow->setChecked(true);
    m_levelsButton = new QToolButton(this);
    m_levelsButton->setText(tr("Levels…"));
    m_levelsButton->setToolTip(
        tr("Log levels: the global level and one per sub-module; "
           "changes apply at once, also to a running training"));
    m_levelsButton->setCheckable(true);
    bar->addWidget(m_levelCombo);
    bar->addWidget(m_moduleCombo);
    bar->addWidget(m_text, 1);
    bar->addWidget(m_regex);
    bar->addWidget(m_timeCombo);
    bar->addWidget(m_fromEdit);
    bar->addWidget(m_toEdit);
    bar->addWidget(m_follow);
    bar->addWidget(m_levelsButton);
    layout->addLayout(bar);

    auto* split = new QSplitter(Qt::Horizontal, this);
    m_table = new QTableView(split);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    m_table->setColumnWidth(LogTableModel::TimeCol,
                            fontMetrics().horizontalAdvance("2021-01-01-12:00:00.000.000") + 12);
    const int em = fontMetrics().horizontalAdvance(QLatin1Char('M'));
    m_table->setColumnWidth(LogTableModel::LevelCol, 7 * em);
    m_table->setColumnWidth(LogTableModel::ModuleCol, 8 * em);
    m_table->setColumnWidth(LogTableModel::LocationCol, 18 * em);
    m_table->setColumnWidth(LogTableModel::PidCol, 5 * em);
    m_table->setColumnWidth(LogTableModel::TidCol, 8 * em);
    m_levels = new LogLevelPanel(split);
    m_levels->hide();
    split->addWidget(m_table);
    split->addWidget(m_levels);
    split->setStretchFactor(0, 3);
    auto* vsplit = new QSplitter(Qt::Vertical, this);
    vsplit->addWidget(split);
    m_detail = new QPlainTextEdit(vsplit);
    m_detail->setReadOnly(true);
    m_detail->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_detail->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_detail->setPlaceholderText(tr("Select a record to see it in full"));
    vsplit->addWidget(m_detail);
    vsplit->setStretchFactor(0, 4);
    vsplit->setStretchFactor(1, 1);
    layout->addWidget(vsplit, 1);
    m_status = new QLabel(this);
    layout->addWidget(m_status);

    connect(m_levelCombo, &QComboBox::currentIndexChanged, this, &LogView::applyFilter);
    connect(m_moduleCombo, &QComboBox::currentIndexChanged, this, &LogView::applyFilter);
    connect(m_text, &QLineEdit::textChanged, this, &LogView::applyFilter);
    connect(m_regex, &QCheckBox::toggled, this, &LogView::applyFilter);
    connect(m_timeCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_fromEdit->setVisible(index == 2);
        m_toEdit->setVisible(index == 2);
        applyFilter();
    });
    connect(m_fromEdit, &QLineEdit::editingFinished, this, &LogView::applyFilter);
    connect(m_toEdit, &QLineEdit::editingFinished, this, &LogView::applyFilter);
    connect(m_levelsButton, &QToolButton::toggled, m_levels, [this](bool on) {
        if (on) m_levels->refresh();
        m_levels->setVisible(on);
        QSettings().setValue(QStringLiteral("logs/levelsPanelShown"), on);
    });
    // The panel stays open across sessions once the user opened it.
    m_levelsButton->setChecked(QSettings().value(QStringLiteral("logs/levelsPanelShown")).toBool());
    connect(m_table, &QTableView::clicked, this,
            [this](const QModelIndex& index) { jumpToRow(index.row()); });
    connect(m_model, &QAbstractItemModel::rowsInserted, this, [this] {
        if (m_follow->isChecked()) m_table->scrollToBottom();
    });

    connect(ctx, &SessionContext::sessionChanged, this, &LogView::onSessionChanged);
    connect(ctx, &SessionContext::dataChanged, this, &LogView::startTail);
    connect(ctx, &SessionContext::timeRangeRequested, this, [this](qint64 start, qint64 end) {
        if (m_emittingJump) return;  // our own jump must not narrow our own filter
        m_rangeStart = start;
        m_rangeEnd = end;
        m_haveRange = true;
        if (m_timeCombo->currentIndex() == 1) applyFilter();
    });

    m_live = std::make_shared<ts::log::QueueSink>();
    m_liveSinceNs = ts::nowNs();
    ts::log::Logger::instance().addSink(m_live);

    m_timer = new QTimer(this);
    m_timer->setInterval(kPollMs);
    connect(m_timer, &QTimer::timeout, this, &LogView::poll);
    m_timer->start();
    onSessionChanged();
}

LogView::~LogView() {
    ts::log::Logger::instance().removeSink(m_live.get());
}

void LogView::onSessionChanged() {
    ++m_generation;
    m_model->clear();
    m_detail->clear();
    m_lastId = 0;
    m_tailRunning = false;
    m_fileNote.clear();
    refreshModules();
    startTail();
    updateStatus();
}

void LogView::poll() {
    std::vector<ts::log::LogRecord> live = m_live->drain();
    if (!live.empty()) {
        m_model->append(std::move(live));
        refreshModules();
        updateStatus();
    }
    if (++m_ticks % kTailEveryTicks == 0) startTail();
}

void LogView::startTail() {
    const QString path = m_ctx->sessionPath();
    if (path.isEmpty() || m_tailRunning) return;
    m_tailRunning = true;
    const quint64 generation = m_generation;
    const int64_t afterId = m_lastId;
    const int64_t liveSince = m_liveSinceNs;
    const int64_t myPid = static_cast<int64_t>(getpid());
    m_ctx->jobs()->run<TailResult>(
        this, QStringLiteral("logs-tail:%1").arg(quintptr(this)), tr("Reading logs"),
        [path = path.toStdString(), afterId, liveSince, myPid](ts::JobControl&) {
            TailResult out;
            out.lastId = afterId;
            auto store = ts::store::TraceStore::open(path, ts::store::TraceStore::Mode::ReadOnly);
            if (!store) {
                out.error = QString::fromStdString(store.error());
                return out;
            }
            ts::log::LogQuery q;
            q.afterId = afterId;
            q.limit = 50000;
            // Far behind (a command printing 100,000 lines a second): the model keeps the
            // newest maxRecords() anyway, so read from there.
            if (auto maxId = store.value()->db().queryInt("SELECT coalesce(max(id), 0) FROM logs");
                maxId && maxId.value() - afterId > LogTableModel::maxRecords())
                q.afterId = maxId.value() - LogTableModel::maxRecords();
            auto rows = ts::log::queryLogs(*store.value(), q);
            if (!rows) {
                out.error = QString::fromStdString(rows.error());
                return out;
            }
            out.more = static_cast<int64_t>(rows.value().size()) == q.limit;
            for (auto& row : rows.value()) {
                out.lastId = row.id;
                // Records this process logged while the view listened came through the queue.
                const auto& r = row.record;
                if (row.runId && r.pid == myPid && r.tsNs && *r.tsNs >= liveSince) continue;
                out.records.push_back(std::move(row.record));
            }
            return out;
        },
        [this, generation](TailResult r) {
            if (generation != m_generation) return;
            m_tailRunning = false;
            m_lastId = r.lastId;
            if (!r.error.isEmpty()) m_fileNote = r.error;
            // Into the model a slice per event-loop turn: 50,000 rows at once would hold the
            // UI thread for tens of milliseconds.
            constexpr size_t kSlice = 4000;
            for (size_t i = 0; i < r.records.size(); i += kSlice) {
                const auto from = r.records.begin() + static_cast<ptrdiff_t>(i);
                const auto to = r.records.begin() +
                                static_cast<ptrdiff_t>(std::min(r.records.size(), i + kSlice));
                m_tailSlices.emplace_back(std::make_move_iterator(from),
                                          std::make_move_iterator(to));
            }
            m_tailMore = r.more;
            drainTail(generation);
        });
    // A superseded or dropped job never calls back: allow the next poll to start one.
    QTimer::singleShot(5000, this, [this, generation] {
        if (generation == m_generation) m_tailRunning = false;
    });
}

void LogView::drainTail(quint64 generation) {
    if (generation != m_generation) {
        m_tailSlices.clear();
        return;
    }
    if (m_tailSlices.empty()) {
        updateStatus();
        if (m_tailMore) QTimer::singleShot(0, this, &LogView::startTail);  // keep up with the tail
        return;
    }
    m_model->append(std::move(m_tailSlices.front()));
    m_tailSlices.pop_front();
    refreshModules();
    QTimer::singleShot(0, this, [this, generation] { drainTail(generation); });
}

void LogView::openFile(const QString& path) {
    const QString session = m_ctx->sessionPath();
    const quint64 generation = m_generation;
    m_ctx->jobs()->run<FileResult>(
        this, QStringLiteral("logs-open:") + path,
        tr("Importing %1").arg(QFileInfo(path).fileName()),
        [path = path.toStdString(), session = session.toStdString()](ts::JobControl& jc) {
            FileResult out;
            if (!session.empty()) {
                auto store =
                    ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::ReadWrite);
                if (store) {
                    auto rep = ts::importers::logs::importLogFile(path, *store.value(), jc);
                    out.imported = ts::store::hasRows(rep.status);
                    out.note = QStringLiteral("%1: %2 records (%3)")
                                   .arg(QString::fromStdString(path))
                                   .arg(rep.events)
                                   .arg(rep.error.empty()
                                            ? QString::fromLatin1(ts::store::statusName(rep.status))
                                            : QString::fromStdString(rep.error));
                    if (out.imported) return out;
                }
            }
            auto parsed = ts::importers::logs::readLogFile(path, &jc);
            if (!parsed) {
                out.note = QString::fromStdString(parsed.error());
                return out;
            }
            out.note = QStringLiteral("%1: %2 records (not in a session)")
                           .arg(QString::fromStdString(path))
                           .arg(parsed->records.size());
            out.records = std::move(parsed->records);
            return out;
        },
        [this, generation](FileResult r) {
            m_fileNote = r.note;
            if (r.imported) {
                m_ctx->notifyDataChanged();
            } else if (generation == m_generation) {
                m_model->append(std::move(r.records));
                refreshModules();
            }
            updateStatus();
        });
}

void LogView::applyFilter() {
    ts::log::LogFilter f;
    f.minLevel = static_cast<ts::log::Level>(std::max(0, m_levelCombo->currentIndex()));
    if (m_moduleCombo->currentIndex() > 0) f.modules = {m_moduleCombo->currentText().toStdString()};
    f.text = m_text->text().toStdString();
    f.regex = m_regex->isChecked();
    QString timeError;
    if (m_timeCombo->currentIndex() == 1 && m_haveRange) {
        f.fromNs = m_rangeStart;
        f.toNs = m_rangeEnd;
    } else if (m_timeCombo->currentIndex() == 2) {
        // Local times as records print them; the seconds and milliseconds may be left out.
        auto bound = [&](QLineEdit* e, std::optional<int64_t>& out, bool upper) {
            QString text = e->text().trimmed();
            if (text.isEmpty()) return;
            const int given = static_cast<int>(text.size());
            const QString pad = QStringLiteral("0000-01-01-00:00:00.000.000");
            if (given < 16 || given > pad.size()) {
                timeError = tr("times look like 2021-01-01-12:00[:00.000]");
                return;
            }
            text += pad.mid(given);
            if (auto ns = ts::log::parseLogTime(text.toStdString())) {
                // "12:00" as an upper bound means the whole minute.
                const int64_t span = given <= 16   ? 60'000'000'000
                                     : given <= 19 ? 1'000'000'000
                                                   : 1'000'000;
                out = upper ? *ns + span - 1 : *ns;
            } else {
                timeError = tr("not a time: %1").arg(e->text());
            }
        };
        bound(m_fromEdit, f.fromNs, false);
        bound(m_toEdit, f.toNs, true);
    }
    m_filterError = m_model->setFilter(f);
    if (m_filterError.isEmpty()) m_filterError = timeError;
    m_text->setStyleSheet(m_filterError.isEmpty() ? QString() : QStringLiteral("color: #c00;"));
    if (m_follow->isChecked()) m_table->scrollToBottom();
    updateStatus();
}

void LogView::jumpToRow(int row) {
    if (row < 0 || row >= m_model->rowCount()) return;
    const auto& r = m_model->record(row);
    m_detail->setPlainText(QString::fromStdString(ts::log::formatRecord(r)));
    if (!r.tsNs) return;
    m_emittingJump = true;
    m_ctx->requestTimeRange(*r.tsNs - kJumpHalfWindowNs, *r.tsNs + kJumpHalfWindowNs);
    m_emittingJump = false;
}

void LogView::refreshModules() {
    const QStringList modules = m_model->modules();
    if (m_moduleCombo->count() - 1 == modules.size()) return;
    const QString current =
        m_moduleCombo->currentIndex() > 0 ? m_moduleCombo->currentText() : QString();
    const QSignalBlocker block(m_moduleCombo);
    m_moduleCombo->clear();
    m_moduleCombo->addItem(tr("All modules"));
    m_moduleCombo->addItems(modules);
    const int i = current.isEmpty() ? 0 : m_moduleCombo->findText(current);
    m_moduleCombo->setCurrentIndex(i < 0 ? 0 : i);
}

void LogView::updateStatus() {
    QString text = tr("%1 of %2 records").arg(m_model->rowCount()).arg(m_model->totalRecords());
    if (m_live->dropped()) text += tr(" · %1 live records dropped").arg(m_live->dropped());
    if (!m_filterError.isEmpty()) text += QStringLiteral(" · ") + m_filterError;
    if (!m_fileNote.isEmpty()) text += QStringLiteral(" · ") + m_fileNote;
    m_status->setText(text);
}
