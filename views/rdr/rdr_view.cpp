#include "views/rdr/rdr_view.h"

#include <qcustomplot.h>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "core/log/logger.h"
#include "views/common/job_tracker.h"
#include "views/common/plot_theme.h"
#include "views/common/session_context.h"
#include "views/common/units_text.h"
#include "views/rdr/ir_search.h"
#include "views/rdr/rdr_ir_highlighter.h"

namespace {

enum ExecCol { StepCol, SeqCol, OpCol, ScopeCol, InputsCol, OutputsCol, ExecCols };
enum MemCol { TensorCol, BytesCol, AddrCol, AllocCol, FreeCol, LifeCol, StatusCol, MemCols };

const QColor kFailBackground(0xff, 0xcd, 0xd2);

QTableWidgetItem* item(const QString& text) {
    auto* it = new QTableWidgetItem(text);
    it->setFlags(it->flags() & ~Qt::ItemIsEditable);
    return it;
}

QTableWidgetItem* numItem(double v, const QString& text) {
    auto* it = item(text);
    it->setData(Qt::UserRole, v);
    it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return it;
}

QTableWidgetItem* intItem(qint64 v) {
    auto* it = item(QString::number(v));
    it->setData(Qt::DisplayRole, v);
    it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return it;
}

QString msText(double ms) {
    return QString::number(ms, 'f', 3);
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
      m_irStatus(new QLabel(this)),
      m_memSummary(new QLabel(this)),
      m_showInIr(new QPushButton(tr("Show in IR"), this)),
      m_ir(readOnlyText(this, QStringLiteral("rdrIr"))),
      m_exec(new QTableWidget(this)),
      m_memPlot(new QCustomPlot(this)),
      m_memTable(new QTableWidget(this)),
      m_logs(readOnlyText(this, QStringLiteral("rdrLogs"))),
      m_runState(readOnlyText(this, QStringLiteral("rdrRunState"))) {
    m_summary->setObjectName(QStringLiteral("rdrSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setMargin(6);
    new RdrIrHighlighter(m_ir->document());
    new RdrLogHighlighter(m_logs->document());

    auto* irPage = new QWidget(this);
    auto* irLayout = new QVBoxLayout(irPage);
    auto* irBar = new QHBoxLayout;
    m_irSearch->setObjectName(QStringLiteral("rdrIrSearch"));
    m_irSearch->setPlaceholderText(tr("Find in IR: op, scope, %value or parameter (Enter: next)"));
    m_irSearch->setClearButtonEnabled(true);
    m_irStatus->setObjectName(QStringLiteral("rdrIrStatus"));
    irBar->addWidget(m_irSearch, 1);
    irBar->addWidget(m_irStatus);
    irLayout->addLayout(irBar);
    irLayout->addWidget(m_ir);
    connectIrSearch(m_irSearch, m_irStatus, m_ir);

    auto* execPage = new QWidget(this);
    auto* execLayout = new QVBoxLayout(execPage);
    auto* execBar = new QHBoxLayout;
    execBar->addWidget(new QLabel(tr("Ops of the previous and the current step, in execution "
                                     "order; the failing op is marked red."),
                                  this),
                       1);
    m_showInIr->setObjectName(QStringLiteral("rdrShowInIr"));
    execBar->addWidget(m_showInIr);
    execLayout->addLayout(execBar);
    execLayout->addWidget(m_exec);
    m_exec->setObjectName(QStringLiteral("rdrExecOrder"));
    m_exec->setColumnCount(ExecCols);
    m_exec->setHorizontalHeaderLabels(
        {tr("Step"), tr("Seqid"), tr("Op"), tr("Scope"), tr("Inputs"), tr("Outputs")});
    m_exec->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_exec->setSelectionMode(QAbstractItemView::SingleSelection);
    m_exec->horizontalHeader()->setStretchLastSection(true);
    m_exec->verticalHeader()->hide();
    m_exec->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_exec->setWordWrap(false);
    connect(m_exec, &QTableWidget::itemSelectionChanged, this, &RdrView::onExecRowSelected);
    connect(m_exec, &QTableWidget::cellDoubleClicked, this, [this] { m_tabs->setCurrentIndex(0); });
    connect(m_showInIr, &QPushButton::clicked, this, [this] {
        onExecRowSelected();
        m_tabs->setCurrentIndex(0);
    });

    m_memPlot->setObjectName(QStringLiteral("rdrMemPlot"));
    m_memPlot->setMinimumHeight(180);
    m_memPlot->xAxis->setLabel(tr("time since the first recorded allocation (ms)"));
    m_memPlot->yAxis->setLabel(tr("MiB in use"));
    m_memPlot->legend->setVisible(true);
    m_memPlot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    m_memPlot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_memTable->setObjectName(QStringLiteral("rdrMemTable"));
    m_memTable->setColumnCount(MemCols);
    m_memTable->setHorizontalHeaderLabels({tr("Tensor"), tr("Bytes"), tr("Address"),
                                           tr("Alloc (ms)"), tr("Free (ms)"), tr("Lifetime (ms)"),
                                           tr("Status")});
    m_memTable->horizontalHeader()->setStretchLastSection(true);
    m_memTable->verticalHeader()->hide();
    m_memTable->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_memTable->setWordWrap(false);
    m_memSummary->setObjectName(QStringLiteral("rdrMemSummary"));
    auto* memPage = new QWidget(this);
    auto* memLayout = new QVBoxLayout(memPage);
    auto* memSplit = new QSplitter(Qt::Vertical, memPage);
    memSplit->addWidget(m_memPlot);
    memSplit->addWidget(m_memTable);
    memLayout->addWidget(m_memSummary);
    memLayout->addWidget(memSplit, 1);

    m_tabs->setObjectName(QStringLiteral("rdrTabs"));
    m_tabs->addTab(irPage, tr("Graph IR"));
    m_tabs->addTab(execPage, tr("Execution order"));
    m_tabs->addTab(memPage, tr("Memory"));
    m_tabs->addTab(m_logs, tr("Last log lines"));
    m_tabs->addTab(m_runState, tr("Run state"));

    // The IR page shows the op the cursor is on (the failing op, a search hit, a row).
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
        if (index == 0) QTimer::singleShot(0, m_ir, [this] { m_ir->centerCursor(); });
    });

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_tabs, 1);
    followPalette(m_memPlot);
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
                showError(QString::fromStdString(r.error()));
        });
}

void RdrView::showError(const QString& message) {
    TS_LOG(UI, WARNING) << "RDR view: " << message.toStdString();
    m_summary->setText(tr("<b>Cannot open RDR export:</b> %1").arg(message.toHtmlEscaped()));
    emit loaded(message);
}

void RdrView::showExport(ts::rdr::RdrExport e) {
    m_export = std::move(e);
    const auto& x = m_export;
    QString where = x.failingOp.empty() ? tr("unknown op")
                                        : QString::fromStdString(x.failingOp).toHtmlEscaped();
    if (x.failingSeqid >= 0) where += tr(" (seqid %1)").arg(x.failingSeqid);
    const bool normal = x.reason == "normal_end" || x.reason == "stopped";
    QString text = tr("<span style='font-size:large; color:%1'><b>%2</b></span> &nbsp; "
                      "%3 <b>%4</b> at epoch %5, step %6")
                       .arg(normal ? QStringLiteral("#2e7d32") : QStringLiteral("#c62828"),
                            QString::fromStdString(x.reason).toHtmlEscaped(),
                            normal ? tr("last op") : tr("failing op"), where)
                       .arg(x.epoch)
                       .arg(x.step);
    if (!x.detail.empty())
        text += QStringLiteral("<br>%1").arg(QString::fromStdString(x.detail).toHtmlEscaped());
    text += tr("<br><small>%1 · rank %2 · pid %3 · %4</small>")
                .arg(QString::fromStdString(x.time).toHtmlEscaped())
                .arg(x.rankId)
                .arg(x.pid)
                .arg(QString::fromStdString(x.folder).toHtmlEscaped());
    for (const auto& p : x.problems)
        text += QStringLiteral("<br><font color=#b00>%1</font>")
                    .arg(QString::fromStdString(p).toHtmlEscaped());
    m_summary->setText(text);
    m_ir->setPlainText(QString::fromStdString(x.graphIr));
    QStringList logs;
    for (const auto& l : x.logLines) logs << QString::fromStdString(l);
    m_logs->setPlainText(logs.join(QLatin1Char('\n')));
    m_logs->moveCursor(QTextCursor::End);
    QString state;
    for (const auto& [k, v] : x.runState)
        state += QString::fromStdString(k) + QStringLiteral(": ") + QString::fromStdString(v) +
                 QLatin1Char('\n');
    m_runState->setPlainText(state + tr("config:\n") + QString::fromStdString(x.runConfig));
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
        m_exec->setItem(row, StepCol, intItem(step));
        m_exec->setItem(row, SeqCol, intItem(r.seqid));
        m_exec->setItem(row, OpCol, item(QString::fromStdString(r.op)));
        m_exec->setItem(row, ScopeCol, item(QString::fromStdString(r.scope)));
        m_exec->setItem(row, InputsCol, item(QString::fromStdString(r.inputs)));
        m_exec->setItem(row, OutputsCol, item(QString::fromStdString(r.outputs)));
        ++row;
    };
    for (const auto& r : prev) add(r, m_export.previous.step);
    for (const auto& r : cur) add(r, m_export.current.step);
    m_exec->resizeColumnsToContents();
    m_exec->setColumnWidth(ScopeCol, std::min(m_exec->columnWidth(ScopeCol), 620));
    int failRow = -1;
    if (const int c = m_export.failingRow(); c >= 0)
        failRow = static_cast<int>(prev.size()) + c;
    else if (const int p = m_export.failingPreviousRow(); p >= 0)
        failRow = p;
    block.unblock();
    if (failRow >= 0) markFailingRow(failRow);
}

void RdrView::markFailingRow(int failRow) {
    for (int c = 0; c < m_exec->columnCount(); ++c) {
        QTableWidgetItem* it = m_exec->item(failRow, c);
        QFont bold = it->font();
        bold.setBold(true);
        it->setFont(bold);
        it->setBackground(kFailBackground);
        it->setToolTip(tr("failing op: %1").arg(QString::fromStdString(m_export.reason)));
    }
    // Current but not selected, so its red stays visible; the IR shows it too.
    m_exec->selectionModel()->setCurrentIndex(m_exec->model()->index(failRow, 0),
                                              QItemSelectionModel::NoUpdate);
    QTimer::singleShot(0, m_exec, [this, failRow] {
        if (failRow < m_exec->rowCount())
            m_exec->scrollToItem(m_exec->item(failRow, 0), QAbstractItemView::PositionAtCenter);
    });
    const QString scope = m_exec->item(failRow, ScopeCol)->text();
    const QString op = m_exec->item(failRow, OpCol)->text();
    m_ir->moveCursor(QTextCursor::Start);
    if (!findInIr(scope)) findInIr(op);
    // Mark the failing op's definition in the IR: the op line, its types and its scope line.
    QList<QTextEdit::ExtraSelection> marks;
    const QTextCursor hit = m_ir->document()->find(scope);
    if (!hit.isNull()) {
        // From the scope line back to the line that defines the op ("%N(...) = Op(...)").
        QTextBlock block = hit.block();
        for (int i = 0; i < 4 && block.isValid(); ++i, block = block.previous()) {
            QTextEdit::ExtraSelection mark;
            mark.cursor = QTextCursor(block);
            mark.format.setBackground(kFailBackground);
            mark.format.setProperty(QTextFormat::FullWidthSelection, true);
            marks << mark;
            if (block.text().startsWith(QLatin1Char('%'))) break;
        }
    }
    m_ir->setExtraSelections(marks);
}

void RdrView::onExecRowSelected() {
    const auto rows = m_exec->selectionModel()->selectedRows();
    if (rows.isEmpty()) return;
    const int row = rows.first().row();
    const QString scope =
        m_exec->item(row, ScopeCol) ? m_exec->item(row, ScopeCol)->text() : QString();
    const QString op = m_exec->item(row, OpCol) ? m_exec->item(row, OpCol)->text() : QString();
    m_ir->moveCursor(QTextCursor::Start);
    if (!scope.isEmpty() && findInIr(scope)) return;
    if (!op.isEmpty()) findInIr(op);
}

bool RdrView::findInIr(const QString& text) {
    return findInIrText(m_ir, text);
}

void RdrView::fillMemory() {
    const auto& rows = m_export.allocations;
    int64_t t0 = INT64_MAX;
    for (const auto& a : rows) t0 = std::min(t0, a.allocNs);
    auto ms = [t0](int64_t ns) { return static_cast<double>(ns - t0) / 1e6; };

    m_memTable->setSortingEnabled(false);
    m_memTable->clearContents();
    m_memTable->setRowCount(static_cast<int>(rows.size()));
    int failed = 0;
    for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
        const auto& a = rows[static_cast<size_t>(i)];
        m_memTable->setItem(i, TensorCol, item(QString::fromStdString(a.tensor)));
        m_memTable->setItem(
            i, BytesCol,
            numItem(static_cast<double>(a.bytes), bytesText(static_cast<double>(a.bytes))));
        m_memTable->setItem(
            i, AddrCol,
            item(a.offset ? QStringLiteral("0x%1").arg(a.offset, 0, 16) : QStringLiteral("-")));
        m_memTable->setItem(i, AllocCol, numItem(ms(a.allocNs), msText(ms(a.allocNs))));
        const bool freed = a.freeNs >= 0;
        m_memTable->setItem(
            i, FreeCol,
            freed ? numItem(ms(a.freeNs), msText(ms(a.freeNs))) : item(QStringLiteral("-")));
        const double life = static_cast<double>(a.freeNs - a.allocNs) / 1e6;
        m_memTable->setItem(i, LifeCol,
                            freed ? numItem(life, msText(life)) : item(QStringLiteral("-")));
        m_memTable->setItem(i, StatusCol, item(QString::fromStdString(a.status)));
        if (a.status == "FAILED") {
            ++failed;
            for (int c = 0; c < MemCols; ++c)
                m_memTable->item(i, c)->setBackground(kFailBackground);
        }
    }
    m_memTable->resizeColumnsToContents();
    m_memTable->setColumnWidth(TensorCol, std::min(m_memTable->columnWidth(TensorCol), 560));
    m_memTable->setSortingEnabled(true);
    m_memSummary->setText(
        tr("Pool: %1 in use, peak %2, capacity %3 · %4 allocations recorded, %5 failed")
            .arg(bytesText(static_cast<double>(m_export.poolInUse)),
                 bytesText(static_cast<double>(m_export.poolPeak)),
                 bytesText(static_cast<double>(m_export.poolCapacity)))
            .arg(rows.size())
            .arg(failed));

    m_memPlot->clearGraphs();
    m_memPlot->clearItems();
    QVector<double> xs, ys, fx, fy;
    const auto curve = ts::rdr::rdrMemoryCurve(rows, static_cast<int64_t>(m_export.poolInUse));
    constexpr double kMiB = 1 << 20;
    for (const auto& p : curve) {
        xs << ms(p.timeNs);
        ys << static_cast<double>(p.bytes) / kMiB;
    }
    for (const auto& a : rows) {
        if (a.status != "FAILED") continue;
        int64_t live = 0;  // bytes in use when the allocation failed
        for (const auto& p : curve)
            if (p.timeNs <= a.allocNs) live = p.bytes;
        fx << ms(a.allocNs);
        fy << static_cast<double>(live) / kMiB;
    }
    auto* inUse = m_memPlot->addGraph();
    inUse->setName(tr("pool bytes in use"));
    inUse->setLineStyle(QCPGraph::lsStepLeft);
    inUse->setPen(QPen(QColor(0x1f, 0x77, 0xb4), 1.5));
    inUse->setBrush(QColor(0x1f, 0x77, 0xb4, 40));
    inUse->setData(xs, ys, true);
    auto* fail = m_memPlot->addGraph();
    fail->setName(tr("failed allocation"));
    fail->setLineStyle(QCPGraph::lsNone);
    fail->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCross, QPen(Qt::red, 2), QBrush(Qt::NoBrush), 12));
    fail->setData(fx, fy, true);
    if (fx.isEmpty()) fail->removeFromLegend();
    m_memPlot->rescaleAxes();
    const QCPRange xr = m_memPlot->xAxis->range();
    const double pad = std::max(1e-3, xr.size() * 0.03);  // keep edge markers inside the plot
    m_memPlot->xAxis->setRange(xr.lower - pad, xr.upper + pad);
    const double top =
        std::max(m_memPlot->yAxis->range().upper, static_cast<double>(m_export.poolPeak) / kMiB);
    m_memPlot->yAxis->setRange(0, top > 0 ? top * 1.15 : 1.0);
    // The pool's capacity, when it is a cap (or what it reserves), as a dashed line.
    if (m_export.poolCapacity > 0) {
        auto* cap = new QCPItemStraightLine(m_memPlot);
        const double c = static_cast<double>(m_export.poolCapacity) / kMiB;
        cap->point1->setCoords(0, c);
        cap->point2->setCoords(1, c);
        cap->setPen(QPen(QColor(0x80, 0x80, 0x80), 1, Qt::DashLine));
        auto* label = new QCPItemText(m_memPlot);
        label->position->setCoords(m_memPlot->xAxis->range().upper, c);
        label->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
        label->setText(tr("pool capacity %1").arg(bytesText(c * kMiB)));
        label->setColor(QColor(0x60, 0x60, 0x60));
        m_memPlot->yAxis->setRange(0, std::max(top, c) * 1.15);
    }
    m_memPlot->replot();
}
