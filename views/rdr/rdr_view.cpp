#include "views/rdr/rdr_view.h"

#include <qcustomplot.h>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/rdr/rdr_ir_highlighter.h"

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QTableWidgetItem* item(const QString& text) {
    auto* it = new QTableWidgetItem(text);
    it->setFlags(it->flags() & ~Qt::ItemIsEditable);
    return it;
}

QTableWidgetItem* numItem(qint64 v) {
    auto* it = item(QString::number(v));
    it->setData(Qt::DisplayRole, v);
    return it;
}

QPlainTextEdit* readOnlyText(QWidget* parent, const QString& name) {
    auto* t = new QPlainTextEdit(parent);
    t->setReadOnly(true);
    t->setLineWrapMode(QPlainTextEdit::NoWrap);
    t->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    t->setObjectName(name);
    return t;
}

}  // namespace

RdrView::RdrView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_summary(new QLabel(tr("Open an RDR folder (File > Open) to see why a run failed."), this)),
      m_tabs(new QTabWidget(this)),
      m_irSearch(new QLineEdit(this)),
      m_ir(readOnlyText(this, QStringLiteral("rdrIr"))),
      m_exec(new QTableWidget(this)),
      m_memPlot(new QCustomPlot(this)),
      m_memTable(new QTableWidget(this)),
      m_logs(readOnlyText(this, QStringLiteral("rdrLogs"))),
      m_runState(readOnlyText(this, QStringLiteral("rdrRunState"))) {
    m_summary->setObjectName(QStringLiteral("rdrSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    new RdrIrHighlighter(m_ir->document());

    auto* irPage = new QWidget(this);
    auto* irLayout = new QVBoxLayout(irPage);
    m_irSearch->setObjectName(QStringLiteral("rdrIrSearch"));
    m_irSearch->setPlaceholderText(tr("Find in IR (Enter for next)"));
    m_irSearch->setClearButtonEnabled(true);
    irLayout->addWidget(m_irSearch);
    irLayout->addWidget(m_ir);
    connect(m_irSearch, &QLineEdit::returnPressed, this, [this] { findInIr(m_irSearch->text()); });

    m_exec->setObjectName(QStringLiteral("rdrExecOrder"));
    m_exec->setColumnCount(6);
    m_exec->setHorizontalHeaderLabels(
        {tr("Step"), tr("Seqid"), tr("Op"), tr("Scope"), tr("Inputs"), tr("Outputs")});
    m_exec->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_exec->setSelectionMode(QAbstractItemView::SingleSelection);
    m_exec->horizontalHeader()->setStretchLastSection(true);
    m_exec->verticalHeader()->hide();
    connect(m_exec, &QTableWidget::itemSelectionChanged, this, &RdrView::onExecRowSelected);

    m_memPlot->setObjectName(QStringLiteral("rdrMemPlot"));
    m_memPlot->setMinimumHeight(160);
    m_memPlot->xAxis->setLabel(tr("time (ns)"));
    m_memPlot->yAxis->setLabel(tr("bytes in use"));
    m_memTable->setObjectName(QStringLiteral("rdrMemTable"));
    m_memTable->setColumnCount(6);
    m_memTable->setHorizontalHeaderLabels(
        {tr("Tensor"), tr("Bytes"), tr("Offset"), tr("Alloc (ns)"), tr("Free (ns)"), tr("Status")});
    m_memTable->horizontalHeader()->setStretchLastSection(true);
    m_memTable->verticalHeader()->hide();
    auto* memSplit = new QSplitter(Qt::Vertical, this);
    memSplit->addWidget(m_memPlot);
    memSplit->addWidget(m_memTable);

    m_tabs->setObjectName(QStringLiteral("rdrTabs"));
    m_tabs->addTab(irPage, tr("Graph IR"));
    m_tabs->addTab(m_exec, tr("Execution order"));
    m_tabs->addTab(memSplit, tr("Memory"));
    m_tabs->addTab(m_logs, tr("Last log lines"));
    m_tabs->addTab(m_runState, tr("Run state"));

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_tabs, 1);
}

void RdrView::openFile(const QString& path) {
    m_summary->setText(tr("Reading %1 ...").arg(path));
    const std::string p = path.toStdString();
    m_ctx->jobs()->run<ts::Result<ts::rdr::RdrExport>>(
        this, QStringLiteral("rdr-load"), tr("Reading RDR export"),
        [p](ts::JobControl&) { return ts::rdr::readRdrExport(p); },
        [this](ts::Result<ts::rdr::RdrExport> r) {
            if (r.ok())
                showExport(std::move(r).value());
            else
                showError(q(r.error()));
        });
}

void RdrView::showError(const QString& message) {
    m_summary->setText(tr("<b>Cannot open RDR export:</b> %1").arg(message.toHtmlEscaped()));
    emit loaded(message);
}

void RdrView::showExport(ts::rdr::RdrExport e) {
    m_export = std::move(e);
    const auto& x = m_export;
    QString where = x.failingOp.empty() ? tr("unknown op") : q(x.failingOp).toHtmlEscaped();
    if (x.failingSeqid >= 0) where += tr(" (seqid %1)").arg(x.failingSeqid);
    QString text =
        tr("<b>%1</b> in <b>%2</b> at epoch %3, step %4 — %5, rank %6<br><small>%7</small>")
            .arg(q(x.reason).toHtmlEscaped(), where)
            .arg(x.epoch)
            .arg(x.step)
            .arg(q(x.time).toHtmlEscaped())
            .arg(x.rankId)
            .arg(q(x.folder).toHtmlEscaped());
    for (const auto& p : x.problems)
        text += QStringLiteral("<br><font color=#b00>%1</font>").arg(q(p).toHtmlEscaped());
    m_summary->setText(text);
    m_ir->setPlainText(q(x.graphIr));
    QStringList logs;
    for (const auto& l : x.logLines) logs << q(l);
    m_logs->setPlainText(logs.join(QLatin1Char('\n')));
    QString state;
    for (const auto& [k, v] : x.runState)
        state += q(k) + QStringLiteral(": ") + q(v) + QLatin1Char('\n');
    m_runState->setPlainText(state + tr("config:\n") + q(x.runConfig));
    fillMemory();
    fillExecTable();  // selects the failing op last, which finds it in the IR
    m_tabs->setCurrentIndex(1);
    emit loaded(QString());
}

void RdrView::fillExecTable() {
    QSignalBlocker block(m_exec);
    m_exec->clearContents();
    const auto& prev = m_export.previous.rows;
    const auto& cur = m_export.current.rows;
    m_exec->setRowCount(static_cast<int>(prev.size() + cur.size()));
    int row = 0;
    auto add = [&](const ts::rdr::RdrOpRow& r, int64_t step) {
        m_exec->setItem(row, 0, numItem(step));
        m_exec->setItem(row, 1, numItem(r.seqid));
        m_exec->setItem(row, 2, item(q(r.op)));
        m_exec->setItem(row, 3, item(q(r.scope)));
        m_exec->setItem(row, 4, item(q(r.inputs)));
        m_exec->setItem(row, 5, item(q(r.outputs)));
        ++row;
    };
    for (const auto& r : prev) add(r, m_export.previous.step);
    for (const auto& r : cur) add(r, m_export.current.step);
    m_exec->resizeColumnsToContents();
    const int failing = m_export.failingRow();
    if (failing < 0) return;
    const int failRow = static_cast<int>(prev.size()) + failing;
    for (int c = 0; c < m_exec->columnCount(); ++c) {
        QFont bold = m_exec->item(failRow, c)->font();
        bold.setBold(true);
        m_exec->item(failRow, c)->setFont(bold);  // stays visible while another row is selected
        m_exec->item(failRow, c)->setBackground(QColor(0xff, 0xcd, 0xd2));
        m_exec->item(failRow, c)->setToolTip(tr("failing op: %1").arg(q(m_export.reason)));
    }
    block.unblock();
    m_exec->selectRow(failRow);
    m_exec->scrollToItem(m_exec->item(failRow, 0));
}

void RdrView::onExecRowSelected() {
    const auto rows = m_exec->selectionModel()->selectedRows();
    if (rows.isEmpty()) return;
    const int row = rows.first().row();
    const QString scope = m_exec->item(row, 3) ? m_exec->item(row, 3)->text() : QString();
    const QString op = m_exec->item(row, 2) ? m_exec->item(row, 2)->text() : QString();
    m_ir->moveCursor(QTextCursor::Start);
    if (!scope.isEmpty() && findInIr(scope)) return;
    if (!op.isEmpty()) findInIr(op);
}

bool RdrView::findInIr(const QString& text) {
    if (text.isEmpty()) return false;
    if (m_ir->find(text)) return true;
    m_ir->moveCursor(QTextCursor::Start);
    return m_ir->find(text);
}

void RdrView::fillMemory() {
    const auto& rows = m_export.allocations;
    m_memTable->setSortingEnabled(false);
    m_memTable->clearContents();
    m_memTable->setRowCount(static_cast<int>(rows.size()));
    for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
        const auto& a = rows[static_cast<size_t>(i)];
        m_memTable->setItem(i, 0, item(q(a.tensor)));
        m_memTable->setItem(i, 1, numItem(static_cast<qint64>(a.bytes)));
        m_memTable->setItem(i, 2, numItem(static_cast<qint64>(a.offset)));
        m_memTable->setItem(i, 3, numItem(a.allocNs));
        m_memTable->setItem(i, 4, a.freeNs >= 0 ? numItem(a.freeNs) : item(QStringLiteral("-")));
        m_memTable->setItem(i, 5, item(q(a.status)));
        if (a.status == "FAILED")
            for (int c = 0; c < 6; ++c)
                m_memTable->item(i, c)->setBackground(QColor(0xff, 0xcd, 0xd2));
    }
    m_memTable->resizeColumnsToContents();
    m_memTable->setSortingEnabled(true);

    m_memPlot->clearGraphs();
    QVector<double> xs, ys, fx, fy;
    const auto curve = ts::rdr::rdrMemoryCurve(rows);
    for (const auto& p : curve) {
        xs << static_cast<double>(p.timeNs);
        ys << static_cast<double>(p.bytes);
    }
    for (const auto& a : rows) {
        if (a.status != "FAILED") continue;
        int64_t live = 0;  // bytes in use when the allocation failed
        for (const auto& p : curve)
            if (p.timeNs <= a.allocNs) live = p.bytes;
        fx << static_cast<double>(a.allocNs);
        fy << static_cast<double>(live);
    }
    auto* inUse = m_memPlot->addGraph();
    inUse->setName(tr("in use"));
    inUse->setLineStyle(QCPGraph::lsStepLeft);
    inUse->setPen(QPen(QColor(0x1f, 0x77, 0xb4), 1.5));
    inUse->setData(xs, ys, true);
    auto* failed = m_memPlot->addGraph();
    failed->setName(tr("failed allocation"));
    failed->setLineStyle(QCPGraph::lsNone);
    failed->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, Qt::red, 10));
    failed->setData(fx, fy, true);
    m_memPlot->rescaleAxes();
    const QCPRange xr = m_memPlot->xAxis->range();
    const double pad = std::max(1.0, xr.size() * 0.03);  // keep edge markers inside the plot
    m_memPlot->xAxis->setRange(xr.lower - pad, xr.upper + pad);
    const double top =
        std::max(m_memPlot->yAxis->range().upper, static_cast<double>(m_export.poolPeak));
    m_memPlot->yAxis->setRange(0, top > 0 ? top * 1.1 : 1.0);
    m_memPlot->replot();
}
