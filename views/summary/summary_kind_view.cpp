#include "views/summary/summary_kind_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QRegularExpression>
#include <QSplitter>
#include <QVBoxLayout>

#include "core/store/trace_store.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"

using ts::summary::ValueKind;

SummaryKindView::SummaryKindView(SessionContext* ctx, ValueKind kind, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_kind(kind),
      m_runs(new QComboBox(this)),
      m_filter(new QLineEdit(this)),
      m_tags(new QListWidget(this)),
      m_split(new QSplitter(Qt::Horizontal, this)),
      m_status(new QLabel(this)) {
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Run:"), this));
    m_runs->setMinimumContentsLength(24);
    m_runs->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    top->addWidget(m_runs);
    top->addSpacing(12);
    top->addWidget(new QLabel(tr("Tags:"), this));
    m_filter->setPlaceholderText(tr("regular expression"));
    m_filter->setClearButtonEnabled(true);
    top->addWidget(m_filter, 1);
    m_split->addWidget(m_tags);
    m_split->setStretchFactor(0, 0);
    m_tags->setMinimumWidth(180);
    auto* lay = new QVBoxLayout(this);
    lay->addLayout(top);
    lay->addWidget(m_split, 1);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    lay->addWidget(m_status);

    connect(m_runs, &QComboBox::currentIndexChanged, this, [this] { fillTags(); });
    connect(m_filter, &QLineEdit::textChanged, this, [this] { fillTags(); });
    connect(m_tags, &QListWidget::currentRowChanged, this, [this] { loadValues(); });
    connect(ctx, &SessionContext::sessionChanged, this, [this] { reloadIndex(); });
    connect(ctx, &SessionContext::dataChanged, this, [this] { reloadIndex(); });
    // Once the subclass is built (its display is virtual).
    QMetaObject::invokeMethod(
        this, [this] { reloadIndex(); }, Qt::QueuedConnection);
}

void SummaryKindView::setDisplay(QWidget* w) {
    m_split->addWidget(w);
    m_split->setStretchFactor(1, 1);
    m_split->setSizes({220, 900});
}

void SummaryKindView::setStatus(const QString& text) {
    m_status->setText(text);
}

QString SummaryKindView::statusText() const {
    return m_status->text();
}

qint64 SummaryKindView::currentRun() const {
    return m_runs->currentIndex() < 0 ? -1 : m_runs->currentData().toLongLong();
}

QString SummaryKindView::currentTag() const {
    auto* it = m_tags->currentItem();
    return it ? it->text() : QString();
}

void SummaryKindView::select(qint64 runId, const QString& tag) {
    m_wantRun = runId;
    m_wantTag = tag;
    const int i = m_runs->findData(runId);
    if (i >= 0) {
        if (m_runs->currentIndex() != i)
            m_runs->setCurrentIndex(i);
        else
            fillTags();
    }
}

void SummaryKindView::reloadIndex() {
    const QString session = m_ctx->sessionPath();
    if (session.isEmpty()) {
        m_index = {};
        m_runs->clear();
        m_tags->clear();
        showNothing(tr("No session is open."));
        return;
    }
    const ValueKind kind = m_kind;
    m_ctx->jobs()->run<Index>(
        this, QStringLiteral("summary-index-%1").arg(ts::summary::valueKindName(kind)),
        tr("Listing %1 values").arg(ts::summary::valueKindName(kind)),
        [s = session.toStdString(), kind](ts::JobControl&) {
            Index out;
            auto st = ts::store::TraceStore::open(s, ts::store::TraceStore::Mode::ReadOnly);
            if (!st) {
                out.error = QString::fromStdString(st.error());
                return out;
            }
            auto runs = ts::summary::runsWithSummaries(*st.value(), kind);
            if (!runs) {
                out.error = QString::fromStdString(runs.error());
                return out;
            }
            out.runs = runs.value();
            for (const auto& [id, _] : out.runs) {
                auto tags = ts::summary::summaryTags(*st.value(), id, kind);
                out.tags.push_back(tags ? tags.value() : std::vector<std::string>{});
            }
            return out;
        },
        [this](Index idx) {
            const qint64 keep = m_wantRun >= 0 ? m_wantRun : currentRun();
            m_index = std::move(idx);
            m_runs->blockSignals(true);
            m_runs->clear();
            for (const auto& [id, name] : m_index.runs)
                m_runs->addItem(
                    QStringLiteral("%1  (run %2)").arg(QString::fromStdString(name)).arg(id),
                    QVariant::fromValue<qint64>(id));
            const int i = m_runs->findData(keep);
            m_runs->setCurrentIndex(i >= 0 ? i : 0);
            m_runs->blockSignals(false);
            fillTags();
        });
}

void SummaryKindView::fillTags() {
    const QString keep = !m_wantTag.isEmpty() ? m_wantTag : currentTag();
    m_tags->blockSignals(true);
    m_tags->clear();
    const int r = m_runs->currentIndex();
    const QRegularExpression re(m_filter->text());
    int runsWith = 0;
    size_t totalTags = 0;
    for (const auto& t : m_index.tags) {
        runsWith += !t.empty();
        totalTags += t.size();
    }
    if (r >= 0 && static_cast<size_t>(r) < m_index.tags.size())
        for (const auto& tag : m_index.tags[static_cast<size_t>(r)]) {
            const QString t = QString::fromStdString(tag);
            if (!re.isValid() || re.match(t).hasMatch()) m_tags->addItem(t);
        }
    int row = 0;
    for (int i = 0; i < m_tags->count(); ++i)
        if (m_tags->item(i)->text() == keep) row = i;
    m_tags->blockSignals(false);
    QStringList listed;
    for (int i = 0; i < m_tags->count(); ++i) listed << m_tags->item(i)->text();
    tagsListed(currentRun(), listed);
    if (!m_index.error.isEmpty())
        setStatus(tr("Cannot read the session: %1").arg(m_index.error));
    else if (m_index.runs.empty())
        setStatus(tr("No run of this session holds %1 values (import a MindSpore summary "
                     "file or a TensorBoard event file).")
                      .arg(QString::fromLatin1(ts::summary::valueKindName(m_kind))));
    else
        setStatus(tr("%1 run(s) hold %2 values, %3 tag(s) in all%4")
                      .arg(runsWith)
                      .arg(QString::fromLatin1(ts::summary::valueKindName(m_kind)))
                      .arg(totalTags)
                      .arg(re.isValid()
                               ? QString()
                               : tr(" — the tag filter is not a valid regular expression")));
    if (m_tags->count() == 0) {
        showNothing(m_index.runs.empty() ? statusText() : tr("No tag matches the filter."));
        return;
    }
    if (m_tags->currentRow() == row)
        loadValues();
    else
        m_tags->setCurrentRow(row);
}

void SummaryKindView::loadValues() {
    const qint64 run = currentRun();
    const QString tag = currentTag();
    m_wantRun = -1;
    m_wantTag.clear();
    if (run < 0 || tag.isEmpty()) return;
    struct Loaded {
        std::vector<ts::summary::StoredValue> values;
        QString error;
    };
    const ValueKind kind = m_kind;
    m_ctx->jobs()->run<Loaded>(
        this, QStringLiteral("summary-values-%1").arg(ts::summary::valueKindName(kind)),
        tr("Reading %1").arg(tag),
        [s = m_ctx->sessionPath().toStdString(), run, kind,
         t = tag.toStdString()](ts::JobControl&) {
            Loaded out;
            auto st = ts::store::TraceStore::open(s, ts::store::TraceStore::Mode::ReadOnly);
            if (!st) {
                out.error = QString::fromStdString(st.error());
                return out;
            }
            auto v = ts::summary::summaryValues(*st.value(), run, kind, t);
            if (!v)
                out.error = QString::fromStdString(v.error());
            else
                out.values = std::move(v.value());
            return out;
        },
        [this, run, tag](Loaded l) {
            if (!l.error.isEmpty())
                showNothing(tr("Cannot read %1: %2").arg(tag, l.error));
            else
                showValues(run, tag, std::move(l.values));
            emit valuesShown();
        });
}
