#include "views/query/query_view.h"

#include <algorithm>

#include <sqlite3.h>
#include <QElapsedTimer>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "core/store/trace_store.h"
#include "core/store/user_query.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/query/query_result_model.h"

namespace {

struct QueryOutcome {
    QueryRows rows;
    QString error;
    bool truncated = false;
    qint64 ms = 0;
};

QVariant cellOf(const ts::store::Statement& st, int c) {
    switch (st.columnType(c)) {
        case SQLITE_INTEGER:
            return QVariant::fromValue<qlonglong>(st.int64(c));
        case SQLITE_FLOAT:
            return st.real(c);
        case SQLITE_NULL:
            return {};
        case SQLITE_BLOB: {
            const auto b = st.blob(c);
            return QByteArray(b.data(), static_cast<qsizetype>(b.size()));
        }
        default: {
            const auto t = st.textView(c);
            return QString::fromUtf8(t.data(), static_cast<qsizetype>(t.size()));
        }
    }
}

// On the job's thread: its own read-only connection, the checks of UserQuery, rows until
// the end, kMaxRows or the stop flag.
QueryOutcome runQuery(const std::string& session, const std::string& sql,
                      const std::atomic<bool>* stop) {
    QueryOutcome out;
    QElapsedTimer timer;
    timer.start();
    auto store = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::ReadOnly);
    if (!store) {
        out.error = QString::fromStdString(store.error());
        return out;
    }
    auto q = ts::store::UserQuery::prepare(store.value()->db(), sql, stop);
    if (!q) {
        out.error = QString::fromStdString(q.error());
        return out;
    }
    const ts::store::Statement& st = q.value().statement();
    for (int c = 0; c < st.columnCount(); ++c)
        out.rows.columns << QString::fromStdString(st.columnName(c));
    while (q.value().step()) {
        if (out.rows.rows.size() == static_cast<size_t>(QueryView::kMaxRows)) {
            out.truncated = true;
            break;
        }
        std::vector<QVariant> row;
        row.reserve(static_cast<size_t>(st.columnCount()));
        for (int c = 0; c < st.columnCount(); ++c) row.push_back(cellOf(st, c));
        out.rows.rows.push_back(std::move(row));
    }
    if (!out.truncated) out.error = QString::fromStdString(q.value().error());
    out.ms = timer.elapsed();
    return out;
}

/// Each table and view of the session with its columns (name, declared type).
using TableList = std::vector<std::pair<QString, std::vector<std::pair<QString, QString>>>>;

TableList listTables(const std::string& session) {
    TableList out;
    auto store = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::ReadOnly);
    if (!store) return out;
    ts::store::SqliteDb& db = store.value()->db();
    ts::store::Statement tables = db.prepare(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE "
        "'sqlite_%' ORDER BY name");
    ts::store::Statement columns =
        db.prepare("SELECT name, type FROM pragma_table_info(?) ORDER BY cid");
    while (tables.step()) {
        const std::string name = tables.text(0);
        std::vector<std::pair<QString, QString>> cols;
        columns.reset();
        columns.bind(1, name);
        while (columns.step())
            cols.emplace_back(QString::fromStdString(columns.text(0)),
                              QString::fromStdString(columns.text(1)));
        out.emplace_back(QString::fromStdString(name), std::move(cols));
    }
    return out;
}

}  // namespace

QueryView::QueryView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_sql(new QPlainTextEdit(this)),
      m_run(new QPushButton(tr("Run"), this)),
      m_cancel(new QPushButton(tr("Cancel"), this)),
      m_table(new QTableView(this)),
      m_model(new QueryResultModel(this)),
      m_status(new QLabel(this)),
      m_tables(new QTreeWidget(this)) {
    m_sql->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_sql->setPlaceholderText(
        tr("SELECT n.str AS name, count(*) AS calls, sum(dur) AS total_ns\n"
           "FROM slices s JOIN strings n ON n.id = s.name_id\n"
           "GROUP BY name ORDER BY total_ns DESC LIMIT 20"));
    m_sql->setMaximumHeight(fontMetrics().lineSpacing() * 8);
    m_run->setToolTip(
        tr("Run the statement (Ctrl+Return). One read-only statement: writes, "
           "ATTACH, VACUUM INTO and PRAGMAs that set something are refused."));
    m_cancel->setToolTip(tr("Stop the running query"));
    m_table->setModel(m_model);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setResizeContentsPrecision(200);
    m_table->setSelectionBehavior(QAbstractItemView::SelectItems);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setText(tr("Read-only SQL over the session (tables in docs/SCHEMA.md)."));
    connect(m_run, &QPushButton::clicked, this, &QueryView::run);
    connect(m_cancel, &QPushButton::clicked, this, &QueryView::cancel);
    auto* shortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), m_sql);
    connect(shortcut, &QShortcut::activated, this, &QueryView::run);
    // A cancelled job never delivers its result: its end is seen here.
    connect(m_ctx->jobs(), &JobTracker::jobFinished, this, [this](quint64 id) {
        if (id != m_job || !m_stop || !m_stop->load()) return;
        setRunning(false);
        m_status->setText(tr("Query cancelled."));
        emit finished();
    });
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_status, 1);
    auto* right = new QWidget(this);
    auto* layout = new QVBoxLayout(right);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_sql);
    layout->addLayout(buttons);
    layout->addWidget(m_table, 1);
    m_tables->setHeaderLabels({tr("Table / column"), tr("Type")});
    m_tables->setToolTip(
        tr("Double-click a table to see its first rows, a column to insert "
           "its name"));
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_tables);
    split->addWidget(right);
    split->setStretchFactor(1, 1);
    split->setSizes({220, 900});
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    outer->addWidget(split);
    connect(m_tables, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        if (!item->parent()) {
            m_sql->setPlainText(QStringLiteral("SELECT * FROM %1 LIMIT 100").arg(item->text(0)));
            run();
        } else {
            m_sql->insertPlainText(item->text(0));
            m_sql->setFocus();
        }
    });
    connect(m_ctx, &SessionContext::sessionChanged, this, &QueryView::loadTables);
    setRunning(false);
    loadTables();
}

void QueryView::loadTables() {
    if (m_ctx->sessionPath().isEmpty()) return;
    m_ctx->jobs()->run<TableList>(
        this, QStringLiteral("sql-tables"), tr("Listing tables"),
        [session = m_ctx->sessionPath().toStdString()](ts::JobControl&) {
            return listTables(session);
        },
        [this](TableList list) {
            m_tables->clear();
            for (const auto& [table, columns] : list) {
                auto* t = new QTreeWidgetItem(m_tables, {table});
                QFont bold = t->font(0);
                bold.setBold(true);
                t->setFont(0, bold);
                for (const auto& [name, type] : columns) new QTreeWidgetItem(t, {name, type});
            }
            m_tables->resizeColumnToContents(0);
            emit tablesLoaded();
        });
}

void QueryView::setRunning(bool running) {
    if (!running) m_job = 0;
    m_cancel->setEnabled(running);
}

void QueryView::run() {
    QString sql = m_sql->toPlainText().trimmed();
    if (sql.isEmpty()) {
        // Run on the example shown in the empty editor runs that example (and shows it).
        sql = m_sql->placeholderText();
        m_sql->setPlainText(sql);
    }
    if (m_ctx->sessionPath().isEmpty()) {
        m_status->setText(tr("No session is open."));
        return;
    }
    if (m_stop) m_stop->store(true);  // the previous query, if any, stops
    m_stop = std::make_shared<std::atomic<bool>>(false);
    m_status->setText(tr("Running…"));
    m_job = m_ctx->jobs()->run<QueryOutcome>(
        this, QStringLiteral("sql-query"), tr("Running SQL query"),
        [session = m_ctx->sessionPath().toStdString(), text = sql.toStdString(),
         stop = m_stop](ts::JobControl&) { return runQuery(session, text, stop.get()); },
        [this](QueryOutcome r) {
            setRunning(false);
            const QLocale loc;
            if (!r.error.isEmpty() && r.rows.rows.empty()) {
                m_model->setRows({});
                m_status->setText(r.error);
            } else {
                const qsizetype n = static_cast<qsizetype>(r.rows.rows.size());
                QString text =
                    tr("%n row(s) in %1 ms", nullptr, static_cast<int>(n)).arg(loc.toString(r.ms));
                if (r.truncated)
                    text = tr("First %1 rows (more not shown) in %2 ms")
                               .arg(loc.toString(kMaxRows))
                               .arg(loc.toString(r.ms));
                if (!r.error.isEmpty()) text += QStringLiteral(" — ") + r.error;
                m_model->setRows(std::move(r.rows));
                // Columns as wide as their first rows need (200 sampled), at most 480 px.
                m_table->resizeColumnsToContents();
                for (int c = 0; c < m_model->columnCount(); ++c)
                    m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), 480));
                m_status->setText(text);
            }
            emit finished();
        });
    setRunning(true);
}

void QueryView::cancel() {
    if (!m_job || !m_stop) return;
    m_stop->store(true);
    m_ctx->jobs()->cancel(m_job);
    m_status->setText(tr("Cancelling…"));
}
