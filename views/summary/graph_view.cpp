#include "views/summary/graph_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <filesystem>
#include <functional>

#include "core/debug/msdump/ms_dump.h"
#include "core/store/trace_store.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"

namespace {
constexpr int kNodeRole = Qt::UserRole + 1;  // index into graph().nodes, -1 for scopes
constexpr int kKindRole = Qt::UserRole + 2;  // 0 scope, 1 node, 2 parameter, 3 constant

}  // namespace

GraphView::GraphView(SessionContext* ctx, QWidget* parent)
    : SummaryKindView(ctx, ts::summary::ValueKind::Graph, parent),
      m_search(new QLineEdit(this)),
      m_found(new QLabel(this)),
      m_tree(new QTreeWidget(this)),
      m_details(new QTextBrowser(this)),
      m_showInTimeline(new QPushButton(tr("Show in timeline"), this)) {
    auto* w = new QWidget(this);
    auto* lay = new QVBoxLayout(w);
    lay->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Find:"), w));
    m_search->setPlaceholderText(tr("node name, op type or scope (Enter: next)"));
    m_search->setClearButtonEnabled(true);
    bar->addWidget(m_search, 1);
    bar->addWidget(m_found);
    lay->addLayout(bar);
    auto* split = new QSplitter(Qt::Horizontal, w);
    m_tree->setHeaderLabels({tr("Scope / node"), tr("Op type"), tr("Output")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_tree->setColumnWidth(0, 300);
    m_tree->setColumnWidth(1, 120);
    m_tree->setUniformRowHeights(true);
    split->addWidget(m_tree);
    auto* right = new QWidget(split);
    auto* rl = new QVBoxLayout(right);
    rl->setContentsMargins(0, 0, 0, 0);
    m_details->setOpenLinks(false);
    rl->addWidget(m_details, 1);
    m_showInTimeline->setEnabled(false);
    rl->addWidget(m_showInTimeline, 0, Qt::AlignLeft);
    split->addWidget(right);
    split->setSizes({520, 420});
    lay->addWidget(split, 1);
    setDisplay(w);

    connect(m_tree, &QTreeWidget::currentItemChanged, this,
            [this](QTreeWidgetItem* cur) { showDetails(cur); });
    connect(m_search, &QLineEdit::returnPressed, this, [this] { find(m_search->text()); });
    connect(m_search, &QLineEdit::textChanged, this, [this] {
        m_matches.clear();
        m_found->clear();
    });
    connect(m_details, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        const QString name = url.toString().mid(5);  // "node:<name>"
        for (size_t i = 0; i < m_graph.nodes.size(); ++i)
            if (QString::fromStdString(m_graph.nodes[i].name) == name) {
                selectNode(i);
                return;
            }
        for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
            QTreeWidgetItem* top = m_tree->topLevelItem(i);
            for (int c = 0; c < top->childCount(); ++c)
                if (top->child(c)->text(0) == name) m_tree->setCurrentItem(top->child(c));
        }
    });
    connect(m_showInTimeline, &QPushButton::clicked, this, [this] {
        if (m_firstSlice < 0) return;
        context()->selectSlice(m_firstSlice);
        context()->requestView(QStringLiteral("timeline"));
    });
}

void GraphView::showNothing(const QString& message) {
    m_graph = {};
    m_nodeItems.clear();
    m_tree->clear();
    m_details->setPlainText(message);
}

void GraphView::showValues(qint64, const QString&, std::vector<ts::summary::StoredValue> values) {
    if (values.empty()) {
        showNothing(tr("No graph."));
        return;
    }
    // The last graph of the tag (a run that recompiled writes it again).
    auto g = ts::summary::decodeGraph(values.back().data);
    if (!g) {
        showNothing(tr("The graph cannot be read: %1").arg(QString::fromStdString(g.error())));
        return;
    }
    m_graph = std::move(g.value());
    buildTree();
}

void GraphView::buildTree() {
    m_tree->clear();
    m_nodeItems.assign(m_graph.nodes.size(), nullptr);
    const auto scopes = ts::summary::buildScopeTree(m_graph);
    std::function<void(size_t, QTreeWidgetItem*)> add = [&](size_t s, QTreeWidgetItem* parent) {
        for (size_t child : scopes[s].children) {
            auto* it = new QTreeWidgetItem(parent);
            it->setText(0, QString::fromStdString(scopes[child].name));
            it->setText(1, tr("%1 nodes").arg(scopes[child].totalNodes));
            it->setData(0, kNodeRole, -1);
            it->setData(0, kKindRole, 0);
            add(child, it);
        }
        for (size_t n : scopes[s].graphNodes) {
            const auto& node = m_graph.nodes[n];
            auto* it = new QTreeWidgetItem(parent);
            const std::string path = node.displayPath();
            const size_t slash = path.rfind('/');
            it->setText(0, QString::fromStdString(
                               slash == std::string::npos ? path : path.substr(slash + 1)));
            it->setText(1, QString::fromStdString(node.opType));
            it->setText(2, QString::fromStdString(node.outputType));
            it->setData(0, kNodeRole, static_cast<qlonglong>(n));
            it->setData(0, kKindRole, 1);
            m_nodeItems[n] = it;
        }
    };
    auto* root = new QTreeWidgetItem(m_tree);
    root->setText(0, m_graph.name.empty() ? tr("graph") : QString::fromStdString(m_graph.name));
    root->setText(1, tr("%1 nodes").arg(m_graph.nodes.size()));
    root->setData(0, kNodeRole, -1);
    root->setData(0, kKindRole, 0);
    add(0, root);
    auto group = [&](const QString& title, const std::vector<ts::summary::GraphNode>& list,
                     int kind) {
        if (list.empty()) return;
        auto* g = new QTreeWidgetItem(m_tree);
        g->setText(0, title);
        g->setText(1, tr("%1").arg(list.size()));
        g->setData(0, kNodeRole, -1);
        g->setData(0, kKindRole, 0);
        for (size_t i = 0; i < list.size(); ++i) {
            auto* it = new QTreeWidgetItem(g);
            it->setText(0, QString::fromStdString(list[i].name));
            it->setText(1, QString::fromStdString(list[i].opType));
            it->setText(2, QString::fromStdString(list[i].outputType));
            it->setData(0, kNodeRole, static_cast<qlonglong>(i));
            it->setData(0, kKindRole, kind);
        }
    };
    group(tr("Parameters"), m_graph.parameters, 2);
    group(tr("Constants"), m_graph.constants, 3);
    m_tree->expandToDepth(3);
    // The first node, with its details (the scope tree above it open).
    if (!m_nodeItems.empty() && m_nodeItems.front())
        selectNode(0);
    else
        m_tree->setCurrentItem(root);
}

void GraphView::selectNode(size_t index) {
    if (index >= m_nodeItems.size() || !m_nodeItems[index]) return;
    for (QTreeWidgetItem* p = m_nodeItems[index]->parent(); p; p = p->parent())
        p->setExpanded(true);
    m_tree->setCurrentItem(m_nodeItems[index]);
    m_tree->scrollToItem(m_nodeItems[index]);
}

int GraphView::find(const QString& text) {
    if (m_matches.empty() || m_search->text() != text) {
        if (m_search->text() != text) m_search->setText(text);
        m_matches = ts::summary::searchGraph(m_graph, text.toStdString());
        m_matchPos = 0;
    } else {
        m_matchPos = (m_matchPos + 1) % m_matches.size();
    }
    if (m_matches.empty()) {
        m_found->setText(tr("no match"));
        return 0;
    }
    m_found->setText(tr("%1 of %2").arg(m_matchPos + 1).arg(m_matches.size()));
    selectNode(m_matches[m_matchPos]);
    return static_cast<int>(m_matches.size());
}

void GraphView::showDetails(QTreeWidgetItem* item) {
    m_showInTimeline->setEnabled(false);
    m_firstSlice = -1;
    if (!item) {
        m_details->clear();
        return;
    }
    const int kind = item->data(0, kKindRole).toInt();
    const qlonglong idx = item->data(0, kNodeRole).toLongLong();
    if (kind == 0 || idx < 0) {
        m_details->setHtml(
            tr("<h3>%1</h3><p>%2</p>").arg(item->text(0).toHtmlEscaped(), item->text(1)));
        return;
    }
    const auto& list = kind == 1   ? m_graph.nodes
                       : kind == 2 ? m_graph.parameters
                                   : m_graph.constants;
    if (static_cast<size_t>(idx) >= list.size()) return;
    const auto& n = list[static_cast<size_t>(idx)];
    QString html = QStringLiteral("<h3>%1</h3><table>")
                       .arg(QString::fromStdString(n.displayPath()).toHtmlEscaped());
    auto row = [&html](const QString& k, const QString& v) {
        html +=
            QStringLiteral("<tr><td style='color:gray;padding-right:12px'>%1</td><td>%2</td></tr>")
                .arg(k, v);
    };
    row(tr("op type"), QString::fromStdString(n.opType).toHtmlEscaped());
    row(tr("node"), QString::fromStdString(n.name).toHtmlEscaped());
    if (!n.scope.empty()) row(tr("scope"), QString::fromStdString(n.scope).toHtmlEscaped());
    if (!n.outputType.empty())
        row(tr("output"), QString::fromStdString(n.outputType).toHtmlEscaped());
    if (!n.inputs.empty()) {
        QStringList ins;
        for (const auto& in : n.inputs) {
            const QString name = QString::fromStdString(in[0] == '^' ? in.substr(1) : in);
            ins << QStringLiteral("<a href='node:%1'>%2</a>%3")
                       .arg(name.toHtmlEscaped(), name.toHtmlEscaped(),
                            in[0] == '^' ? tr(" (control)") : QString());
        }
        row(tr("inputs"), ins.join(QStringLiteral(", ")));
    }
    html += QStringLiteral("</table>");
    if (!n.attributes.empty()) {
        html += tr("<h4>Attributes</h4><table>");
        for (const auto& [k, v] : n.attributes)
            row(QString::fromStdString(k).toHtmlEscaped(),
                QString::fromStdString(v).toHtmlEscaped());
        html += QStringLiteral("</table>");
    }
    m_details->setHtml(html);
    if (kind == 1) lookUpLinks(static_cast<size_t>(idx));
}

void GraphView::lookUpLinks(size_t index) {
    const auto& n = m_graph.nodes[index];
    struct Links {
        qint64 slices = 0, firstSlice = -1, dumpTensors = 0, msDumpFiles = 0;
        double totalMs = 0;
        QString matchedName;
        QStringList msDumpDirs;
    };
    const std::string full = n.displayPath();
    const size_t slash = full.rfind('/');
    const std::string leaf = slash == std::string::npos ? full : full.substr(slash + 1);
    context()->jobs()->run<Links>(
        this, QStringLiteral("graph-links"), tr("Looking up %1").arg(QString::fromStdString(leaf)),
        [s = context()->sessionPath().toStdString(), full, leaf, op = n.opType](ts::JobControl&) {
            Links out;
            auto st = ts::store::TraceStore::open(s, ts::store::TraceStore::Mode::ReadOnly);
            if (!st) return out;
            // Profilers name an op by its full scope name or by its instance ("Conv2D-op12").
            for (const std::string& name : {full, leaf}) {
                auto q = st.value()->db().prepare(
                    "SELECT count(*), coalesce(sum(dur), 0), min(id) FROM slices WHERE name_id = "
                    "(SELECT id FROM strings WHERE str = ?1)");
                if (!q.ok()) break;
                q.bind(1, name);
                if (q.step() && q.int64(0) > 0) {
                    out.slices = q.int64(0);
                    out.totalMs = static_cast<double>(q.int64(1)) / 1e6;
                    out.firstSlice = q.int64(2);
                    out.matchedName = QString::fromStdString(name);
                    break;
                }
            }
            auto d = st.value()->db().prepare("SELECT count(*) FROM dump_tensors WHERE op = ?1");
            if (d.ok()) {
                d.bind(1, op);
                if (d.step()) out.dumpTensors = d.int64(0);
            }
            // MindSpore dump iterations registered in the session: their file names carry the
            // op's full name with '/' as '_' (docs/MINDSPORE.md).
            const std::string safe = "." + ts::debug::msdump::fileSafeName(full) + ".";
            auto m = st.value()->db().prepare("SELECT DISTINCT path FROM dump_files");
            while (m.ok() && m.step()) {
                std::error_code ec;
                const std::string dir = m.text(0);
                if (!std::filesystem::is_directory(dir, ec)) continue;
                qint64 n = 0;
                for (const auto& e : std::filesystem::directory_iterator(dir, ec))
                    n += e.path().filename().string().find(safe) != std::string::npos;
                if (n > 0) {
                    out.msDumpFiles += n;
                    out.msDumpDirs << QString::fromStdString(dir);
                }
            }
            return out;
        },
        [this](Links l) {
            QString links = tr("<h4>In this session</h4>");
            if (l.slices > 0)
                links += tr("<p>Profile: %1 call(s) of <b>%2</b>, %3 ms in all.</p>")
                             .arg(l.slices)
                             .arg(l.matchedName.toHtmlEscaped())
                             .arg(l.totalMs, 0, 'f', 3);
            else
                links += tr("<p>Profile: no op of this name.</p>");
            links += l.dumpTensors > 0
                         ? tr("<p>Dumps: %1 tensor(s) of this op type.</p>").arg(l.dumpTensors)
                         : tr("<p>Dumps: none of this op type.</p>");
            if (l.msDumpFiles > 0)
                links += tr("<p>MindSpore dumps: %1 tensor file(s) of this op in %2.</p>")
                             .arg(l.msDumpFiles)
                             .arg(l.msDumpDirs.join(QStringLiteral(", ")).toHtmlEscaped());
            m_details->append(links);
            m_firstSlice = l.firstSlice;
            m_showInTimeline->setEnabled(l.firstSlice >= 0);
            emit linksLooked();
        });
}
