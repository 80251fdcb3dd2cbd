#include "views/problems/problems_view.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "views/common/job_tracker.h"
#include "views/common/session_context.h"

namespace {
using Overview = ts::Result<ts::session::SessionOverview>;
using Records = ts::Result<std::vector<ts::session::ImportProblemRecord>>;
constexpr int kRecordLimit = 1000;
}  // namespace

ProblemsView::ProblemsView(SessionContext* ctx, QWidget* parent) : QWidget(parent), m_ctx(ctx) {
    auto* layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_showExpected = new QCheckBox(tr("Show expected skips too"), this);
    m_showExpected->setToolTip(
        tr("Records skipped in normal use of a format (Kineto's flow ends without a start): "
           "counted, nothing lost"));
    layout->addWidget(m_summary);
    layout->addWidget(m_showExpected);
    auto* split = new QSplitter(Qt::Vertical, this);
    m_groups = new QTreeWidget(split);
    m_groups->setRootIsDecorated(false);
    m_groups->setHeaderLabels({tr("Source"), tr("Reason"), tr("Records"), tr("What it means")});
    m_groups->header()->setStretchLastSection(true);
    m_groups->setWordWrap(true);
    m_records = new QTableWidget(0, 3, split);
    m_records->setHorizontalHeaderLabels({tr("File position"), tr("Phase"), tr("Message")});
    m_records->verticalHeader()->hide();
    m_records->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_records->horizontalHeader()->setStretchLastSection(true);
    split->addWidget(m_groups);
    split->addWidget(m_records);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    connect(m_showExpected, &QCheckBox::toggled, this, &ProblemsView::fill);
    connect(m_groups, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item) showGroup(m_groups->indexOfTopLevelItem(item));
    });
    connect(ctx, &SessionContext::dataChanged, this, &ProblemsView::reload);
    reload();
}

void ProblemsView::reload() {
    if (m_ctx->sessionPath().isEmpty()) return;
    m_ctx->jobs()->run<Overview>(
        this, QStringLiteral("problems"), tr("Reading import problems"),
        [p = m_ctx->sessionPath().toStdString()](ts::JobControl&) {
            return ts::session::readOverview(p);
        },
        [this](Overview ov) {
            if (!ov) {
                m_summary->setText(
                    tr("Cannot read the session: %1").arg(QString::fromStdString(ov.error())));
                return;
            }
            m_overview = std::move(ov.value());
            fill();
        });
}

void ProblemsView::fill() {
    m_groups->clear();
    m_records->setRowCount(0);
    const int64_t problems = m_overview.problemCount(), expected = m_overview.expectedSkipCount();
    QString text = problems == 0
                       ? tr("No import problem: everything the files hold was read.")
                       : tr("<b>%L1 import problem(s)</b>: records the importers could not read. "
                            "Select a reason to list its records by their position in the file.")
                             .arg(problems);
    if (expected > 0)
        text += tr(" %L1 expected skip(s) (normal for the format, nothing lost) are %2.")
                    .arg(expected)
                    .arg(m_showExpected->isChecked() ? tr("listed too") : tr("not listed"));
    m_summary->setText(text);
    auto sourceName = [this](int64_t id) {
        for (const auto& s : m_overview.sources)
            if (s.id == id) return QFileInfo(QString::fromStdString(s.path)).fileName();
        return tr("source %1").arg(id);
    };
    for (const auto& p : m_overview.problems) {
        if (p.expected && !m_showExpected->isChecked()) continue;
        auto* item = new QTreeWidgetItem(
            m_groups, {sourceName(p.sourceId), QString::fromStdString(p.key),
                       QLocale().toString(static_cast<qlonglong>(p.count)),
                       QString::fromStdString(p.explanation.empty() ? p.message : p.explanation)});
        item->setData(0, Qt::UserRole, static_cast<qlonglong>(p.sourceId));
        item->setToolTip(3, item->text(3));
        QFont f = item->font(1);
        f.setBold(!p.expected);
        item->setFont(1, f);
        if (p.expected)
            for (int c = 0; c < 4; ++c)
                item->setForeground(c, palette().color(QPalette::PlaceholderText));
    }
    for (int c = 0; c < 3; ++c) m_groups->resizeColumnToContents(c);
    if (m_groups->topLevelItemCount() > 0) m_groups->setCurrentItem(m_groups->topLevelItem(0));
}

void ProblemsView::showGroup(int row) {
    QTreeWidgetItem* item = m_groups->topLevelItem(row);
    if (!item) return;
    const int64_t source = item->data(0, Qt::UserRole).toLongLong();
    const std::string key = item->text(1).toStdString();
    m_ctx->jobs()->run<Records>(
        this, QStringLiteral("problem-records"), tr("Reading problem records"),
        [p = m_ctx->sessionPath().toStdString(), source, key](ts::JobControl&) {
            return ts::session::readImportProblemRecords(p, source, key, kRecordLimit);
        },
        [this](Records r) {
            m_records->setRowCount(0);
            if (!r) return;
            const auto& rows = r.value();
            m_records->setRowCount(static_cast<int>(rows.size()));
            for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
                const auto& rec = rows[static_cast<size_t>(i)];
                m_records->setItem(
                    i, 0,
                    new QTableWidgetItem(rec.byteOffset >= 0 ? tr("byte %L1").arg(rec.byteOffset)
                                                             : tr("— (not known)")));
                m_records->setItem(i, 1, new QTableWidgetItem(QString::fromStdString(rec.phase)));
                m_records->setItem(i, 2, new QTableWidgetItem(QString::fromStdString(rec.message)));
            }
            m_records->resizeColumnsToContents();
            emit recordsLoaded();
        });
}

ViewInfo problemsViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("problems");
    v.title = QObject::tr("Import problems");
    v.create = [](SessionContext* ctx, QWidget* parent) { return new ProblemsView(ctx, parent); };
    return v;
}
