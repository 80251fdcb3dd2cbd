#include "views/msdump/ms_dump_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "core/debug/dump_writer.h"
#include "core/debug/msdump/npy_file.h"
#include "core/debug/msdump/tensor_to_h5.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/dumps/common/dataset_panel.h"

namespace {

const QColor kFinding(255, 224, 178), kFirst(255, 171, 145);
constexpr uint64_t kAutoScanBytes = uint64_t{256} << 20;

QString opt(const std::optional<double>& v) {
    return v ? QString::number(*v, 'g', 7) : QStringLiteral("—");
}
QString opt(const std::optional<uint64_t>& v) {
    return v ? QString::number(*v) : QStringLiteral("—");
}

}  // namespace

MsDumpView::MsDumpView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_summary(new QLabel(this)),
      m_iterations(new QComboBox(this)),
      m_scan(new QPushButton(tr("Find NaN/Inf"), this)),
      m_table(new QTableWidget(this)),
      m_right(new QStackedWidget(this)),
      m_panel(new DatasetPanel(ctx->jobs(), this)),
      m_stats(new QTextBrowser(this)) {
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Iteration:"), this));
    bar->addWidget(m_iterations, 1);
    bar->addWidget(m_scan);
    m_table->setObjectName(QStringLiteral("msDumpTensors"));
    m_table->setColumnCount(ColCount);
    m_table->setHorizontalHeaderLabels({tr("#"), tr("Op type"), tr("Op"), tr("IO"), tr("Slot"),
                                        tr("DType"), tr("Shape"), tr("Data"), tr("NaN/Inf")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(Op, QHeaderView::Interactive);
    m_table->setTextElideMode(Qt::ElideLeft);  // the op instance (the end) stays readable
    m_right->addWidget(m_panel);
    m_right->addWidget(m_stats);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    split->addWidget(m_right);
    split->setSizes({620, 520});
    auto* lay = new QVBoxLayout(this);
    lay->addWidget(m_summary);
    lay->addLayout(bar);
    lay->addWidget(split, 1);
    m_scan->setEnabled(false);
    m_summary->setText(
        tr("Open a MindSpore dump folder (rank_<id>/<net>/<graph_id>/<iteration>, "
           "or any level above) with File > Open or `trainscope FOLDER`."));
    connect(m_iterations, &QComboBox::currentIndexChanged, this,
            [this](int i) { showIteration(i); });
    connect(m_scan, &QPushButton::clicked, this, [this] { scanOverflow(); });
    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) { showTensor(row); });
}

void MsDumpView::openFile(const QString& path) {
    struct Loaded {
        ts::debug::msdump::Tree tree;
        QString error;
    };
    m_summary->setText(tr("Reading %1…").arg(path));
    m_ctx->jobs()->run<Loaded>(
        this, QStringLiteral("msdump-tree"), tr("Reading MindSpore dump"),
        [p = path.toStdString()](ts::JobControl&) {
            Loaded out;
            auto t = ts::debug::msdump::scanTree(p);
            if (!t)
                out.error = QString::fromStdString(t.error());
            else
                out.tree = std::move(t.value());
            return out;
        },
        [this](Loaded l) {
            if (!l.error.isEmpty()) {
                m_summary->setText(QStringLiteral("<span style='color:#c62828'>%1</span>")
                                       .arg(l.error.toHtmlEscaped()));
                emit treeLoaded(l.error);
                return;
            }
            m_tree = std::move(l.tree);
            m_iterations->blockSignals(true);
            m_iterations->clear();
            for (const auto& it : m_tree.iterations)
                m_iterations->addItem(it.iteration >= 0
                                          ? tr("rank %1 / %2 / graph %3 / iteration %4")
                                                .arg(it.rank)
                                                .arg(QString::fromStdString(it.net))
                                                .arg(it.graphId)
                                                .arg(it.iteration)
                                          : tr("rank %1 / %2 / graph %3 / constants")
                                                .arg(it.rank)
                                                .arg(QString::fromStdString(it.net))
                                                .arg(it.graphId));
            m_iterations->blockSignals(false);
            emit treeLoaded(QString());
            // The first real iteration, not the constants.
            int first = 0;
            for (size_t i = 0; i < m_tree.iterations.size(); ++i)
                if (m_tree.iterations[i].iteration >= 0) {
                    first = static_cast<int>(i);
                    break;
                }
            m_iterations->setCurrentIndex(first);
            showIteration(first);
        });
}

void MsDumpView::showIteration(int index) {
    if (index < 0 || static_cast<size_t>(index) >= m_tree.iterations.size()) return;
    const auto ref = m_tree.iterations[static_cast<size_t>(index)];
    struct Loaded {
        ts::debug::msdump::Iteration it;
        QString error;
        uint64_t bytes = 0;  // of the .npy files
    };
    m_ctx->jobs()->run<Loaded>(
        this, QStringLiteral("msdump-iteration"), tr("Reading dump iteration"),
        [tree = m_tree, ref](ts::JobControl&) {
            Loaded out;
            auto it = ts::debug::msdump::readIteration(tree, ref);
            if (!it) {
                out.error = QString::fromStdString(it.error());
                return out;
            }
            out.it = std::move(it.value());
            std::error_code ec;
            for (const auto& t : out.it.tensors)
                if (!t.file.empty()) out.bytes += std::filesystem::file_size(t.file, ec);
            return out;
        },
        [this](Loaded l) {
            m_it = std::move(l.it);
            m_firstFinding = -1;
            m_findings = 0;
            const auto& ts = m_it.tensors;
            m_table->setRowCount(static_cast<int>(ts.size()));
            for (size_t i = 0; i < ts.size(); ++i) {
                const auto& t = ts[i];
                QString dtype = QString::fromStdString(t.name.dtype);
                QString shape;
                if (t.stats) {
                    if (dtype.isEmpty()) dtype = QString::fromStdString(t.stats->dtype);
                    shape = QString::fromStdString(t.stats->shape);
                }
                const QStringList cells = {QString::number(i),
                                           QString::fromStdString(t.name.opType),
                                           QString::fromStdString(t.fullName),
                                           QString::fromStdString(t.name.io),
                                           QString::number(t.name.slot),
                                           dtype,
                                           shape,
                                           t.file.empty()
                                               ? tr("statistics")
                                               : (t.stats ? tr("npy + statistics") : tr("npy")),
                                           QString()};
                for (int c = 0; c < ColCount; ++c)
                    m_table->setItem(static_cast<int>(i), c, new QTableWidgetItem(cells[c]));
            }
            m_table->resizeColumnsToContents();
            m_table->setColumnWidth(Op, std::min(m_table->columnWidth(Op), 420));
            m_scan->setEnabled(!ts.empty());
            fillSummary();
            if (!l.error.isEmpty()) m_summary->setText(l.error);
            if (!ts.empty()) m_table->selectRow(0);
            emit iterationShown();
            // Small iterations (or statistics) are scanned for NaN/Inf at once; a big one
            // waits for "Find NaN/Inf".
            if (!ts.empty() && l.bytes <= kAutoScanBytes) scanOverflow();
        });
}

void MsDumpView::fillSummary() {
    size_t files = 0;
    for (const auto& t : m_it.tensors) files += !t.file.empty();
    QString text =
        tr("<b>%1</b> — %2 tensor(s) of %3 op(s) in execution order; %4 .npy file(s)%5")
            .arg(QString::fromStdString(m_it.dir).toHtmlEscaped())
            .arg(m_it.tensors.size())
            .arg([&] {
                std::set<std::string> ops;
                for (const auto& t : m_it.tensors) ops.insert(t.name.opName);
                return ops.size();
            }())
            .arg(files)
            .arg(m_it.statisticsOnly ? tr(", <b>statistics only</b> (statistic.csv)") : QString());
    if (!m_it.skipped.empty()) {
        std::map<std::string, int> reasons;
        for (const auto& s : m_it.skipped) ++reasons[s.reason];
        QStringList r;
        for (const auto& [why, n] : reasons)
            r << tr("%1 × %2").arg(n).arg(QString::fromStdString(why).toHtmlEscaped());
        text += tr("<br><span style='color:#b26a00'>Skipped: %1</span>")
                    .arg(r.join(QStringLiteral("; ")));
    }
    if (!m_it.problems.empty()) {
        QStringList p;
        for (size_t i = 0; i < m_it.problems.size() && i < 5; ++i)
            p << QString::fromStdString(m_it.problems[i]).toHtmlEscaped();
        text += tr("<br><span style='color:#c62828'>%1</span>").arg(p.join(QStringLiteral("; ")));
    }
    if (m_findings > 0 && m_firstFinding >= 0)
        text +=
            tr("<br><span style='color:#c62828'><b>%1 tensor(s) hold NaN/Inf; the first:</b> %2 %3 "
               "%4</span>")
                .arg(m_findings)
                .arg(QString::fromStdString(
                         m_it.tensors[static_cast<size_t>(m_firstFinding)].fullName)
                         .toHtmlEscaped(),
                     QString::fromStdString(
                         m_it.tensors[static_cast<size_t>(m_firstFinding)].name.io),
                     QString::number(m_it.tensors[static_cast<size_t>(m_firstFinding)].name.slot));
    m_summary->setText(text);
}

void MsDumpView::showTensor(int row) {
    if (row < 0 || static_cast<size_t>(row) >= m_it.tensors.size()) return;
    const auto& t = m_it.tensors[static_cast<size_t>(row)];
    if (t.file.empty()) {
        // Statistics only: the row of statistic.csv.
        QString html =
            tr("<h3>%1</h3><p>%2 %3, slot %4 — statistics only (no tensor file)</p><table>")
                .arg(QString::fromStdString(t.fullName).toHtmlEscaped(),
                     QString::fromStdString(t.name.opType), QString::fromStdString(t.name.io))
                .arg(t.name.slot);
        auto row2 = [&html](const QString& k, const QString& v) {
            html += QStringLiteral(
                        "<tr><td style='color:gray;padding-right:12px'>%1</td><td>%2</td></tr>")
                        .arg(k, v);
        };
        if (t.stats) {
            const auto& s = *t.stats;
            row2(tr("dtype"), QString::fromStdString(s.dtype));
            row2(tr("shape"), QString::fromStdString(s.shape));
            row2(tr("bytes"), opt(s.dataSize));
            row2(tr("count"), opt(s.count));
            row2(tr("max"), opt(s.max));
            row2(tr("min"), opt(s.min));
            row2(tr("mean"), opt(s.avg));
            row2(tr("L2 norm"), opt(s.l2norm));
            row2(tr("NaN"), opt(s.nan));
            row2(tr("+Inf"), opt(s.posInf));
            row2(tr("−Inf"), opt(s.negInf));
            row2(tr("zeros"), opt(s.zero));
            for (const auto& [k, v] : s.other)
                row2(QString::fromStdString(k).toHtmlEscaped(),
                     QString::fromStdString(v).toHtmlEscaped());
            row2(tr("task / stream / timestamp"),
                 QStringLiteral("%1 / %2 / %3").arg(s.taskId).arg(s.streamId).arg(s.timestamp));
        }
        html += QStringLiteral("</table>");
        m_stats->setHtml(html);
        m_right->setCurrentWidget(m_stats);
        emit tensorShown();
        return;
    }
    m_right->setCurrentWidget(m_panel);
    if (!m_scratch.isValid()) {
        m_panel->showMessage(tr("No scratch folder: %1").arg(m_scratch.errorString()));
        return;
    }
    struct Written {
        QString file, error, note;
    };
    const QString file = m_scratch.filePath(QStringLiteral("npy_%1.h5").arg(++m_files));
    const std::string op = t.name.opType;
    const int64_t seq = t.seqid;
    const std::string io = t.name.io;
    const int slot = t.name.slot;
    ts::debug::DumpTensorAttrs attrs;
    attrs.opType = t.name.opType;
    attrs.scope = t.fullName;
    attrs.step = m_it.iteration;
    m_ctx->jobs()->run<Written>(
        this, QStringLiteral("msdump-tensor"),
        tr("Reading %1").arg(QString::fromStdString(t.fullName)),
        [file, npy = t.file, op, seq, io, slot, attrs](ts::JobControl&) {
            Written out;
            ts::debug::DumpWriter w;
            if (auto s = w.open(file.toStdString()); !s) {
                out.error = QString::fromStdString(s.error());
                return out;
            }
            auto c = ts::debug::msdump::copyNpy(npy, w, op, seq, io, slot, attrs);
            (void)w.close();
            if (!c) {
                out.error = QString::fromStdString(c.error());
                return out;
            }
            out.note = QString::fromStdString(c.value());
            out.file = file;
            return out;
        },
        [this, path = QStringLiteral("%1/%2/%3/%4")
                          .arg(QString::fromStdString(op))
                          .arg(seq)
                          .arg(QString::fromStdString(io))
                          .arg(slot)](Written w) {
            if (!w.error.isEmpty()) {
                m_panel->showMessage(w.error);
                emit tensorShown();
                return;
            }
            auto f = ts::h5::File::open(w.file.toStdString());
            if (!f) {
                m_panel->showMessage(QString::fromStdString(f.error()));
                emit tensorShown();
                return;
            }
            m_panel->showObject(std::make_shared<const ts::h5::File>(std::move(f.value())), path);
            emit tensorShown();
        });
}

void MsDumpView::scanOverflow() {
    struct Scan {
        std::vector<ts::debug::msdump::NonFinite> results;
        std::vector<std::string> errors;
    };
    m_scan->setEnabled(false);
    m_ctx->jobs()->run<Scan>(
        this, QStringLiteral("msdump-overflow"), tr("Scanning for NaN/Inf"),
        [tensors = m_it.tensors](ts::JobControl& jc) {
            Scan out;
            jc.setTotal(tensors.size());
            for (const auto& t : tensors) {
                if (jc.cancelled()) break;
                auto nf = ts::debug::msdump::nonFiniteOf(t);
                if (!nf) {
                    out.errors.push_back(nf.error());
                    out.results.push_back({});
                } else {
                    out.results.push_back(nf.value());
                }
                jc.addDone(1);
            }
            return out;
        },
        [this](Scan s) {
            m_scan->setEnabled(true);
            m_firstFinding = -1;
            m_findings = 0;
            for (size_t i = 0; i < s.results.size() && i < static_cast<size_t>(m_table->rowCount());
                 ++i) {
                const auto& r = s.results[i];
                QString text = !r.known ? tr("unknown") : QString();
                if (r.known) {
                    const uint64_t total = r.nan + r.posInf + r.negInf;
                    text =
                        total
                            ? tr("NaN %1, +Inf %2, −Inf %3").arg(r.nan).arg(r.posInf).arg(r.negInf)
                            : tr("none");
                    if (r.fromStatistics) text += tr(" (statistics)");
                    if (total) {
                        ++m_findings;
                        if (m_firstFinding < 0) m_firstFinding = static_cast<int>(i);
                    }
                }
                m_table->item(static_cast<int>(i), NonFinite)->setText(text);
                const bool hit = r.nan + r.posInf + r.negInf > 0;
                for (int c = 0; c < ColCount; ++c)
                    if (auto* it = m_table->item(static_cast<int>(i), c))
                        it->setBackground(!hit                                    ? QBrush()
                                          : static_cast<int>(i) == m_firstFinding ? kFirst
                                                                                  : kFinding);
            }
            fillSummary();
            if (m_firstFinding >= 0) {
                m_table->selectRow(m_firstFinding);
                m_table->scrollToItem(m_table->item(m_firstFinding, Op));
            }
            emit overflowScanned(m_findings);
        });
}
