#include "views/rdr/ms_rdr_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBlock>
#include <QVBoxLayout>

#include "core/summary/graph_model.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/rdr/ir_search.h"
#include "views/rdr/rdr_ir_highlighter.h"

using ts::rdr::MsRdrKind;

namespace {

const QColor kFail(255, 205, 210);

QTableWidget* makeTable(QWidget* parent, const QStringList& headers, const char* name) {
    auto* t = new QTableWidget(parent);
    t->setObjectName(QString::fromLatin1(name));
    t->setColumnCount(static_cast<int>(headers.size()));
    t->setHorizontalHeaderLabels(headers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->horizontalHeader()->setStretchLastSection(true);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    return t;
}

void setRow(QTableWidget* t, int row, const QStringList& cells) {
    for (int c = 0; c < cells.size(); ++c) t->setItem(row, c, new QTableWidgetItem(cells[c]));
}

QString bytes(uint64_t b) {
    if (b < 10240) return QStringLiteral("%1 B").arg(b);
    if (b < 10ull << 20) return QStringLiteral("%1 KiB").arg(b / 1024.0, 0, 'f', 1);
    return QStringLiteral("%1 MiB").arg(b / 1048576.0, 0, 'f', 1);
}

QString kindTitle(MsRdrKind k) {
    switch (k) {
        case MsRdrKind::GraphIr:
            return QObject::tr("graph IR");
        case MsRdrKind::GraphProto:
            return QObject::tr("graph (protobuf)");
        case MsRdrKind::GraphDat:
            return QObject::tr("graph (AnfExporter text)");
        case MsRdrKind::ExecOrder:
            return QObject::tr("execution order");
        case MsRdrKind::StreamExecOrder:
            return QObject::tr("stream execution order");
        case MsRdrKind::MemAddress:
            return QObject::tr("memory addresses");
        case MsRdrKind::TaskInfo:
            return QObject::tr("task information");
        case MsRdrKind::Somas:
            return QObject::tr("memory plan (SOMAS)");
        case MsRdrKind::Text:
            return QObject::tr("text record");
        case MsRdrKind::Other:
            return QObject::tr("binary, no known kind");
    }
    return {};
}

uint64_t sum(const std::vector<ts::rdr::MsAddress>& v) {
    uint64_t s = 0;
    for (const auto& a : v) s += a.size;
    return s;
}

}  // namespace

MsRdrView::MsRdrView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_summary(new QLabel(this)),
      m_tabs(new QTabWidget(this)),
      m_files(makeTable(
          this,
          {tr("File"), tr("Kind"), tr("Module"), tr("Tag"), tr("Time"), tr("Size"), tr("Note")},
          "msRdrFiles")),
      m_irFile(new QComboBox(this)),
      m_irSearch(new QLineEdit(this)),
      m_irStatus(new QLabel(this)),
      m_ir(new QPlainTextEdit(this)),
      m_execFile(new QComboBox(this)),
      m_exec(makeTable(
          this, {tr("Index"), tr("Op (full name)"), tr("Stream label"), tr("Graph"), tr("Node")},
          "msRdrExec")),
      m_stream(makeTable(this,
                         {tr("Index"), tr("Node"), tr("Logic id"), tr("Stream"), tr("Event"),
                          tr("Labels"), tr("Active streams"), tr("Info")},
                         "msRdrStream")),
      m_memory(makeTable(
          this,
          {tr("Op"), tr("Inputs"), tr("Workspaces"), tr("Outputs"), tr("Bytes"), tr("Addresses")},
          "msRdrMemory")),
      m_tasks(makeTable(this,
                        {tr("Op"), tr("Task index"), tr("Tasks"), tr("Stream"), tr("Type"),
                         tr("Dump"), tr("Input / output / workspace addresses")},
                        "msRdrTasks")),
      m_graphNodes(makeTable(this,
                             {tr("File"), tr("Node"), tr("Op type"), tr("Full name"), tr("Output")},
                             "msRdrGraphNodes")),
      m_textFile(new QComboBox(this)),
      m_text(new QPlainTextEdit(this)) {
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* lay = new QVBoxLayout(this);
    lay->addWidget(m_summary);
    lay->addWidget(m_tabs, 1);
    m_tabs->addTab(m_files, tr("Files"));

    auto* irPage = new QWidget(this);
    auto* irLay = new QVBoxLayout(irPage);
    auto* irBar = new QHBoxLayout;
    irBar->addWidget(new QLabel(tr("File:"), irPage));
    irBar->addWidget(m_irFile, 1);
    irBar->addWidget(new QLabel(tr("Find:"), irPage));
    m_irSearch->setClearButtonEnabled(true);
    irBar->addWidget(m_irSearch, 1);
    irBar->addWidget(m_irStatus);
    irLay->addLayout(irBar);
    m_ir->setReadOnly(true);
    m_ir->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_ir->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    new RdrIrHighlighter(m_ir->document());
    irLay->addWidget(m_ir, 1);
    m_tabs->addTab(irPage, tr("Graph IR"));

    auto* execPage = new QWidget(this);
    auto* execLay = new QVBoxLayout(execPage);
    auto* execBar = new QHBoxLayout;
    execBar->addWidget(new QLabel(tr("Graph:"), execPage));
    execBar->addWidget(m_execFile, 1);
    execLay->addLayout(execBar);
    execLay->addWidget(m_exec, 1);
    m_tabs->addTab(execPage, tr("Execution order"));
    m_tabs->addTab(m_stream, tr("Streams"));
    m_tabs->addTab(m_memory, tr("Memory"));
    m_tabs->addTab(m_tasks, tr("Tasks"));
    m_tabs->addTab(m_graphNodes, tr("Graph nodes"));
    auto* textPage = new QWidget(this);
    auto* textLay = new QVBoxLayout(textPage);
    textLay->addWidget(m_textFile);
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    textLay->addWidget(m_text, 1);
    m_tabs->addTab(textPage, tr("Other records"));

    connect(m_irFile, &QComboBox::currentIndexChanged, this, [this](int i) { showIrFile(i); });
    connect(m_execFile, &QComboBox::currentIndexChanged, this, [this](int i) { showExecOrder(i); });
    connect(m_textFile, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_text->setPlainText(
            i >= 0 && static_cast<size_t>(i) < m_textFiles.size()
                ? QString::fromStdString(m_export.files[m_textFiles[static_cast<size_t>(i)]].text)
                : QString());
    });
    connectIrSearch(m_irSearch, m_irStatus, m_ir);
    connect(m_exec, &QTableWidget::currentCellChanged, this, [this](int row) {
        if (row < 0 || !m_exec->item(row, 1)) return;
        const QString op = m_exec->item(row, 1)->text();
        if (op.isEmpty()) return;
        // The op's definition is in a graph IR file: the first one that names it.
        for (int f = 0; f < m_irFile->count(); ++f) {
            const auto& file = m_export.files[m_irFiles[static_cast<size_t>(f)]];
            if (QString::fromStdString(file.text).contains(op)) {
                if (m_irFile->currentIndex() != f) m_irFile->setCurrentIndex(f);
                m_ir->moveCursor(QTextCursor::Start);
                findInIr(op);
                return;
            }
        }
    });
    m_summary->setText(
        tr("Open a MindSpore RDR folder (rank_<id>/rdr, written with MS_RDR_ENABLE=1) "
           "with File > Open, or `trainscope FOLDER`."));
}

void MsRdrView::openFile(const QString& path) {
    struct Loaded {
        ts::rdr::MsRdrExport e;
        QString error;
    };
    m_summary->setText(tr("Reading %1…").arg(path));
    m_ctx->jobs()->run<Loaded>(
        this, QStringLiteral("msrdr-load"), tr("Reading MindSpore RDR export"),
        [p = path.toStdString()](ts::JobControl&) {
            Loaded out;
            auto e = ts::rdr::readMsRdrExport(p);
            if (!e)
                out.error = QString::fromStdString(e.error());
            else
                out.e = std::move(e.value());
            return out;
        },
        [this](Loaded l) {
            if (!l.error.isEmpty()) {
                m_summary->setText(QStringLiteral("<span style='color:#c62828'>%1</span>")
                                       .arg(l.error.toHtmlEscaped()));
                emit loaded(l.error);
                return;
            }
            showExport(std::move(l.e));
            emit loaded(QString());
        });
}

void MsRdrView::showExport(ts::rdr::MsRdrExport e) {
    m_export = std::move(e);
    QString failing;
    for (const auto& f : m_export.failures)
        if (!f.op.empty()) {
            failing =
                tr("<br><span style='color:#c62828'><b>Failing op:</b> %1</span> (named by %2)")
                    .arg(QString::fromStdString(f.op).toHtmlEscaped(),
                         QString::fromStdString(f.where).toHtmlEscaped());
            break;
        }
    if (failing.isEmpty() && !m_export.failures.empty())
        failing = tr("<br><span style='color:#c62828'>Task failure: %1</span> (%2)")
                      .arg(QString::fromStdString(m_export.failures.front().line).toHtmlEscaped(),
                           QString::fromStdString(m_export.failures.front().where).toHtmlEscaped());
    if (failing.isEmpty())
        failing =
            tr("<br>No failing op is named in the export or the logs beside it (MindSpore "
               "names it in its task-failure log lines).");
    QString problems;
    if (!m_export.problems.empty()) {
        QStringList p;
        for (const auto& x : m_export.problems) p << QString::fromStdString(x).toHtmlEscaped();
        problems =
            tr("<br><span style='color:#b26a00'>%1</span>").arg(p.join(QStringLiteral("; ")));
    }
    m_summary->setText(
        tr("<b>MindSpore RDR export</b> %1 — rank %2, %3 files: %4 execution order(s), "
           "%5 stream node(s), %6 kernel(s) with memory addresses, %7 task(s)%8%9")
            .arg(QString::fromStdString(m_export.folder).toHtmlEscaped())
            .arg(m_export.rank)
            .arg(m_export.files.size())
            .arg(m_export.execOrders.size())
            .arg(m_export.streamOrder.size())
            .arg(m_export.memory.size())
            .arg(m_export.tasks.size())
            .arg(failing, problems));
    fillTables();
}

void MsRdrView::fillTables() {
    const auto& files = m_export.files;
    m_files->setRowCount(static_cast<int>(files.size()));
    m_irFiles.clear();
    m_textFiles.clear();
    m_irFile->blockSignals(true);
    m_irFile->clear();
    m_textFile->blockSignals(true);
    m_textFile->clear();
    m_graphNodes->setRowCount(0);
    for (size_t i = 0; i < files.size(); ++i) {
        const auto& f = files[i];
        QString note = QString::fromStdString(f.error);
        if (f.truncated) note += tr(" shown cut at 64 MiB");
        setRow(m_files, static_cast<int>(i),
               {QString::fromStdString(f.name), kindTitle(f.kind), QString::fromStdString(f.module),
                QString::fromStdString(f.tag), QString::fromStdString(f.timestamp), bytes(f.bytes),
                note.trimmed()});
        switch (f.kind) {
            case MsRdrKind::GraphIr:
            case MsRdrKind::GraphDat:
            case MsRdrKind::Somas:
                m_irFiles.push_back(i);
                m_irFile->addItem(QString::fromStdString(f.name));
                break;
            case MsRdrKind::GraphProto: {
                auto g = ts::summary::decodeGraph(f.text);
                if (!g) {
                    m_files->item(static_cast<int>(i), 6)
                        ->setText(QString::fromStdString(g.error()));
                    break;
                }
                for (const auto& n : g->nodes) {
                    const int r = m_graphNodes->rowCount();
                    m_graphNodes->insertRow(r);
                    setRow(
                        m_graphNodes, r,
                        {QString::fromStdString(f.name), QString::fromStdString(n.name),
                         QString::fromStdString(n.opType), QString::fromStdString(n.displayPath()),
                         QString::fromStdString(n.outputType)});
                }
                break;
            }
            case MsRdrKind::Text:
            case MsRdrKind::TaskInfo:
            case MsRdrKind::MemAddress:
            case MsRdrKind::StreamExecOrder:
            case MsRdrKind::ExecOrder:
                m_textFiles.push_back(i);
                m_textFile->addItem(
                    tr("%1 (%2)").arg(QString::fromStdString(f.name), kindTitle(f.kind)));
                break;
            case MsRdrKind::Other:
                break;
        }
    }
    m_files->resizeColumnsToContents();
    m_irFile->blockSignals(false);
    m_textFile->blockSignals(false);
    showIrFile(m_irFile->count() ? 0 : -1);
    m_textFile->setCurrentIndex(m_textFile->count() ? 0 : -1);
    if (m_textFile->count())
        m_text->setPlainText(QString::fromStdString(files[m_textFiles.front()].text));

    m_execFile->blockSignals(true);
    m_execFile->clear();
    for (const auto& o : m_export.execOrders)
        m_execFile->addItem(tr("%1 — graph %2, %3 ops")
                                .arg(QString::fromStdString(o.file))
                                .arg(o.graphId)
                                .arg(o.ops.size()));
    m_execFile->blockSignals(false);
    // Open the execution order that holds the failing op.
    int start = 0;
    for (size_t k = 0; k < m_export.execOrders.size(); ++k)
        if (m_export.failingIndex(k) >= 0) {
            start = static_cast<int>(k);
            break;
        }
    m_execFile->setCurrentIndex(m_execFile->count() ? start : -1);
    showExecOrder(m_execFile->currentIndex());
    // Where the failing op is, that is what the user came for.
    if (m_export.failingIndex(static_cast<size_t>(std::max(0, start))) >= 0)
        m_tabs->setCurrentIndex(m_tabs->indexOf(m_exec->parentWidget()));

    const auto& s = m_export.streamOrder;
    m_stream->setRowCount(static_cast<int>(s.size()));
    for (size_t i = 0; i < s.size(); ++i)
        setRow(m_stream, static_cast<int>(i),
               {QString::number(s[i].index), QString::fromStdString(s[i].nodeName),
                QString::number(s[i].logicId), QString::number(s[i].streamId),
                QString::number(s[i].eventId), QString::fromStdString(s[i].labelIds),
                QString::fromStdString(s[i].activeStreamIds),
                QString::fromStdString(s[i].nodeInfo).left(300)});
    const auto& m = m_export.memory;
    m_memory->setRowCount(static_cast<int>(m.size()));
    for (size_t i = 0; i < m.size(); ++i) {
        QStringList addrs;
        for (const auto* list : {&m[i].inputs, &m[i].workspaces, &m[i].outputs})
            for (const auto& a : *list)
                addrs
                    << QStringLiteral("%1 (%2)").arg(QString::fromStdString(a.address)).arg(a.size);
        setRow(m_memory, static_cast<int>(i),
               {QString::fromStdString(m[i].op), QString::number(m[i].inputs.size()),
                QString::number(m[i].workspaces.size()), QString::number(m[i].outputs.size()),
                bytes(sum(m[i].inputs) + sum(m[i].workspaces) + sum(m[i].outputs)),
                addrs.join(QStringLiteral(", ")).left(400)});
    }
    const auto& t = m_export.tasks;
    m_tasks->setRowCount(static_cast<int>(t.size()));
    for (size_t i = 0; i < t.size(); ++i) {
        auto list = [](const std::vector<ts::rdr::MsAddress>& v) {
            QStringList s;
            for (const auto& a : v)
                s << QStringLiteral("%1 (%2)").arg(QString::fromStdString(a.address)).arg(a.size);
            return s.join(QStringLiteral(" "));
        };
        setRow(m_tasks, static_cast<int>(i),
               {QString::fromStdString(t[i].op), QString::number(t[i].taskIndex),
                QString::number(t[i].taskNum), QString::number(t[i].streamId),
                QString::number(t[i].type), QString::number(t[i].dumpFlag),
                (list(t[i].inputs) + " / " + list(t[i].outputs) + " / " + list(t[i].workspaces))
                    .left(400)});
    }
    for (QTableWidget* w : {m_stream, m_memory, m_tasks, m_graphNodes})
        w->resizeColumnsToContents();
}

void MsRdrView::showIrFile(int index) {
    if (index < 0 || static_cast<size_t>(index) >= m_irFiles.size()) {
        m_ir->setPlainText(tr("The export holds no graph IR file."));
        return;
    }
    m_ir->setPlainText(
        QString::fromStdString(m_export.files[m_irFiles[static_cast<size_t>(index)]].text));
    // Mark the failing op's lines.
    QList<QTextEdit::ExtraSelection> marks;
    for (const auto& f : m_export.failures) {
        if (f.op.empty()) continue;
        for (QTextCursor c = m_ir->document()->find(QString::fromStdString(f.op));
             !c.isNull() && marks.size() < 200;
             c = m_ir->document()->find(QString::fromStdString(f.op), c)) {
            QTextEdit::ExtraSelection mark;
            mark.cursor = QTextCursor(c.block());
            mark.format.setBackground(kFail);
            mark.format.setProperty(QTextFormat::FullWidthSelection, true);
            marks << mark;
        }
    }
    m_ir->setExtraSelections(marks);
}

void MsRdrView::showExecOrder(int index) {
    m_exec->setRowCount(0);
    if (index < 0 || static_cast<size_t>(index) >= m_export.execOrders.size()) return;
    const auto& ops = m_export.execOrders[static_cast<size_t>(index)].ops;
    m_exec->setRowCount(static_cast<int>(ops.size()));
    for (size_t i = 0; i < ops.size(); ++i)
        setRow(m_exec, static_cast<int>(i),
               {QString::number(ops[i].index), QString::fromStdString(ops[i].fullName),
                QString::fromStdString(ops[i].streamLabel), QString::fromStdString(ops[i].graphId),
                QString::fromStdString(ops[i].debugString).left(300)});
    m_exec->resizeColumnsToContents();
    m_exec->setColumnWidth(1, std::min(m_exec->columnWidth(1), 560));
    const int fail = m_export.failingIndex(static_cast<size_t>(index));
    if (fail >= 0) {
        for (int c = 0; c < m_exec->columnCount(); ++c)
            if (auto* it = m_exec->item(fail, c)) {
                it->setBackground(kFail);
                QFont f = it->font();
                f.setBold(true);
                it->setFont(f);
            }
        // Current but not selected, so its red shows (as the studio's own RDR view does).
        m_exec->selectionModel()->setCurrentIndex(m_exec->model()->index(fail, 1),
                                                  QItemSelectionModel::NoUpdate);
        m_exec->scrollToItem(m_exec->item(fail, 1));
    }
}

bool MsRdrView::findInIr(const QString& text) {
    return findInIrText(m_ir, text);
}
