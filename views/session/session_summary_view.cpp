#include "views/session/session_summary_view.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "views/common/job_tracker.h"
#include "views/common/session_context.h"

namespace {

using Overview = ts::Result<ts::session::SessionOverview>;

QTableWidget* makeTable(const QStringList& headers, QWidget* parent) {
    auto* t = new QTableWidget(0, headers.size(), parent);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setAlternatingRowColors(true);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setSortingEnabled(false);
    return t;
}

void setRow(QTableWidget* t, int row, const QStringList& cells) {
    for (int c = 0; c < cells.size(); ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        item->setToolTip(cells[c]);
        t->setItem(row, c, item);
    }
}

/// The figures of a finished run from its summary JSON ("" where absent).
QStringList runFigures(const std::string& summaryJson) {
    const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(summaryJson)).object();
    auto num = [](const QJsonValue& v, int decimals) {
        return v.isDouble() ? QString::number(v.toDouble(), 'f', decimals) : QString();
    };
    const QJsonValue acc = o.value("eval").toObject().value("accuracy");
    return {o.contains("steps") ? QString::number(o.value("steps").toInteger()) : QString(),
            num(o.value("final").toObject().value("loss"), 4),
            acc.isDouble() ? QString::number(acc.toDouble() * 100.0, 'f', 2) + "%" : QString(),
            num(o.value("samples_per_s"), 0), num(o.value("train_seconds"), 2)};
}

QString spanMs(std::optional<int64_t> lo, std::optional<int64_t> hi) {
    if (!lo || !hi) return QStringLiteral("—");
    return QStringLiteral("%1 ms").arg(static_cast<double>(*hi - *lo) / 1e6, 0, 'f', 3);
}

}  // namespace

SessionSummaryView::SessionSummaryView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent), m_ctx(ctx) {
    auto* layout = new QVBoxLayout(this);
    m_header = new QLabel(this);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_header);
    auto* split = new QSplitter(Qt::Vertical, this);
    m_sources = makeTable({tr("Source"), tr("Kind"), tr("Status"), tr("Events"), tr("Slices"),
                           tr("Skipped"), tr("Span"), tr("Error")},
                          split);
    m_runs = makeTable({tr("Run"), tr("Name"), tr("Status"), tr("Steps"), tr("Final loss"),
                        tr("Test accuracy"), tr("Samples/s"), tr("Train s"), tr("Reason")},
                       split);
    m_problems = makeTable(
        {tr("Source"), tr("Problem"), tr("Count"), tr("First offset"), tr("Example")}, split);
    layout->addWidget(split, 1);
    connect(ctx, &SessionContext::dataChanged, this, &SessionSummaryView::reload);
    reload();
}

void SessionSummaryView::reload() {
    if (m_ctx->sessionPath().isEmpty()) return;
    m_ctx->jobs()->run<Overview>(
        this, QStringLiteral("summary"), tr("Reading session"),
        [p = m_ctx->sessionPath().toStdString()](ts::JobControl&) {
            return ts::session::readOverview(p);
        },
        [this](Overview ov) {
            if (ov)
                show(ov.value());
            else
                m_header->setText(
                    tr("Cannot read session: %1").arg(QString::fromStdString(ov.error())));
        });
}

void SessionSummaryView::show(const ts::session::SessionOverview& ov) {
    m_header->setText(
        tr("<b>%1</b> — schema v%2 · %3 sources · %4 slices · %5 runs · %6 log records")
            .arg(QString::fromStdString(ov.path).toHtmlEscaped())
            .arg(ov.schemaVersion)
            .arg(ov.sources.size())
            .arg(ov.count("slices"))
            .arg(ov.runs.size())
            .arg(ov.logs));
    m_sources->setRowCount(static_cast<int>(ov.sources.size()));
    for (int i = 0; i < static_cast<int>(ov.sources.size()); ++i) {
        const auto& s = ov.sources[i];
        setRow(
            m_sources, i,
            {QFileInfo(QString::fromStdString(s.path)).fileName(), QString::fromStdString(s.kind),
             QString::fromLatin1(ts::store::statusName(s.status)), QString::number(s.events),
             QString::number(s.slices), QString::number(s.skipped), spanMs(s.tsMin, s.tsMax),
             QString::fromStdString(s.error)});
        m_sources->item(i, 0)->setToolTip(QString::fromStdString(s.path));
    }
    m_runs->setRowCount(static_cast<int>(ov.runs.size()));
    for (int i = 0; i < static_cast<int>(ov.runs.size()); ++i) {
        const auto& r = ov.runs[i];
        setRow(m_runs, i,
               QStringList{QString::number(r.id), QString::fromStdString(r.name),
                           QString::fromLatin1(ts::store::statusName(r.status))}
                   << runFigures(r.summary) << QString::fromStdString(r.reason));
    }
    m_runs->resizeColumnsToContents();
    m_runs->setVisible(!ov.runs.empty());
    m_sources->setVisible(!ov.sources.empty());
    m_problems->setRowCount(static_cast<int>(ov.problems.size()));
    for (int i = 0; i < static_cast<int>(ov.problems.size()); ++i) {
        const auto& p = ov.problems[i];
        setRow(
            m_problems, i,
            {QString::number(p.sourceId), QString::fromStdString(p.key), QString::number(p.count),
             p.byteOffset >= 0 ? QString::number(p.byteOffset) : QStringLiteral("—"),
             QString::fromStdString(p.message)});
    }
    m_problems->setVisible(!ov.problems.empty());
    m_sources->resizeColumnsToContents();
    m_problems->resizeColumnsToContents();
}

ViewInfo summaryViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("summary");
    v.title = QObject::tr("Session");
    v.create = [](SessionContext* ctx, QWidget* parent) {
        return new SessionSummaryView(ctx, parent);
    };
    v.openByDefault = true;
    return v;
}
