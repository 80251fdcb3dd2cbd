#include "views/session/session_sidebar.h"

#include <QFileInfo>
#include <QHeaderView>

#include "views/common/job_tracker.h"
#include "views/common/session_context.h"

namespace {

using Overview = ts::Result<ts::session::SessionOverview>;

QString statusMark(ts::store::SourceStatus status) {
    if (status == ts::store::SourceStatus::Complete) return QStringLiteral("✓");
    if (status == ts::store::SourceStatus::Failed) return QStringLiteral("✗");
    return QStringLiteral("⚠");  // partial, incomplete, importing
}

QTreeWidgetItem* section(QTreeWidget* tree, const QString& title, const QString& view) {
    auto* item = new QTreeWidgetItem(tree, {title});
    QFont f = item->font(0);
    f.setBold(true);
    item->setFont(0, f);
    item->setData(0, Qt::UserRole, view);
    item->setExpanded(true);
    return item;
}

}  // namespace

SessionSidebar::SessionSidebar(SessionContext* ctx, QWidget* parent)
    : QTreeWidget(parent), m_ctx(ctx) {
    setObjectName(QStringLiteral("sessionSidebar"));
    setHeaderHidden(true);
    header()->setStretchLastSection(true);
    setRootIsDecorated(true);
    setUniformRowHeights(true);
    connect(ctx, &SessionContext::dataChanged, this, &SessionSidebar::reload);
    // The problems entries open their list on a single click.
    connect(this, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        if (item->data(0, Qt::UserRole).toString() == QLatin1String("problems"))
            m_ctx->requestView(QStringLiteral("problems"));
    });
    connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        for (QTreeWidgetItem* i = item; i; i = i->parent()) {
            const QString view = i->data(0, Qt::UserRole).toString();
            if (!view.isEmpty()) {
                m_ctx->requestView(view);
                return;
            }
        }
    });
}

void SessionSidebar::reload() {
    const QString path = m_ctx->sessionPath();
    if (path.isEmpty()) {
        clear();
        return;
    }
    m_ctx->jobs()->run<Overview>(
        this, QStringLiteral("sidebar"), tr("Reading session"),
        [p = path.toStdString()](ts::JobControl&) { return ts::session::readOverview(p); },
        [this](Overview ov) {
            if (ov)
                show(ov.value());
            else
                showError(QString::fromStdString(ov.error()));
            emit overviewLoaded();
        });
}

void SessionSidebar::show(const ts::session::SessionOverview& ov) {
    clear();
    auto* file = new QTreeWidgetItem(this, {QFileInfo(QString::fromStdString(ov.path)).fileName()});
    file->setToolTip(0, QString::fromStdString(ov.path));
    file->setData(0, Qt::UserRole, QStringLiteral("summary"));

    auto* sources = section(this, tr("Sources (%1)").arg(ov.sources.size()), "timeline");
    for (const auto& s : ov.sources) {
        const QString name = QFileInfo(QString::fromStdString(s.path)).fileName();
        auto* item =
            new QTreeWidgetItem(sources, {QStringLiteral("%1 %2").arg(statusMark(s.status), name)});
        QString tip = QStringLiteral("%1\n%2 · %3\n%4 events, %5 slices")
                          .arg(QString::fromStdString(s.path), QString::fromStdString(s.kind),
                               QString::fromLatin1(ts::store::statusName(s.status)))
                          .arg(s.events)
                          .arg(s.slices);
        if (!s.error.empty()) tip += "\n" + QString::fromStdString(s.error);
        item->setToolTip(0, tip);
    }
    if (!ov.runs.empty()) {
        auto* runs = section(this, tr("Runs (%1)").arg(ov.runs.size()), "curves");
        for (const auto& r : ov.runs)
            new QTreeWidgetItem(runs,
                                {QStringLiteral("#%1 %2 [%3]")
                                     .arg(r.id)
                                     .arg(QString::fromStdString(r.name),
                                          QString::fromLatin1(ts::store::statusName(r.status)))});
    }
    if (!ov.dumps.empty()) {
        auto* dumps = section(this, tr("Dumps (%1)").arg(ov.dumps.size()), "dumps");
        for (const auto& d : ov.dumps)
            new QTreeWidgetItem(dumps, {QFileInfo(QString::fromStdString(d.path)).fileName()});
    }
    if (ov.overflowFindings > 0)
        section(this, tr("Overflow findings (%1)").arg(ov.overflowFindings), "dumps");
    if (!ov.rdr.empty()) {
        auto* rdr = section(this, tr("Crash records (%1)").arg(ov.rdr.size()), "rdr");
        for (const auto& r : ov.rdr) new QTreeWidgetItem(rdr, {QString::fromStdString(r.reason)});
    }
    if (ov.logs > 0) section(this, tr("Logs (%1 records)").arg(ov.logs), "logs");
    // Real problems loudly (bold, they open the list of them); expected skips quietly.
    if (const int64_t n = ov.problemCount(); n > 0) {
        auto* item = section(this, tr("%L1 import problem(s)", nullptr, static_cast<int>(n)).arg(n),
                             "problems");
        item->setToolTip(0, tr("Records the importers could not read: double-click to list them "
                               "by reason and file position"));
    }
    if (const int64_t n = ov.expectedSkipCount(); n > 0) {
        auto* item = new QTreeWidgetItem(
            this, {tr("%L1 expected skip(s)", nullptr, static_cast<int>(n)).arg(n)});
        item->setData(0, Qt::UserRole, QStringLiteral("problems"));
        item->setForeground(0, palette().color(QPalette::PlaceholderText));
        item->setToolTip(0, tr("Records skipped in normal use of the format (Kineto's flow ends "
                               "whose start fell before the profiler's window): nothing lost"));
    }
}

void SessionSidebar::showError(const QString& message) {
    clear();
    auto* item = new QTreeWidgetItem(this, {tr("Cannot read session")});
    item->setToolTip(0, message);
    new QTreeWidgetItem(item, {message});
    item->setExpanded(true);
}

QStringList SessionSidebar::sourceLabels() const {
    QStringList out;
    for (int i = 0; i < topLevelItemCount(); ++i) {
        QTreeWidgetItem* top = topLevelItem(i);
        if (!top->text(0).startsWith(tr("Sources"))) continue;
        for (int c = 0; c < top->childCount(); ++c) out << top->child(c)->text(0);
    }
    return out;
}
