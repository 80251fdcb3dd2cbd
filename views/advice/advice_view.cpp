#include "views/advice/advice_view.h"

#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "core/timeline/time_axis.h"
#include "views/common/profile_source_box.h"
#include "views/common/session_context.h"
#include "views/common/units_text.h"

using namespace ts::analysis;

namespace {

QString shareOf(double part, double whole) {
    return whole > 0 ? QString::number(100.0 * part / whole, 'f', 1) + QLatin1Char('%')
                     : QStringLiteral("-");
}

}  // namespace

QString AdviceView::costSummary(const ProfileReport& rep) {
    // Where the time goes, whatever the thresholds say: the steady steps' split and the op
    // type with the most self time.
    QString out;
    const StepAnalysis& a = rep.steps;
    const ts::analysis::SteadyTotals st = ts::analysis::steadyTotals(a);
    const auto T = static_cast<double>(st.dur);
    if (st.steps > 0 && a.split == StepSplit::Phases)
        out += tr("<b>Steady steps</b> (%1, median %2): forward %3, backward %4, optimizer %5, "
                  "iteration gap %6, rest of tail %7.")
                   .arg(st.steps)
                   .arg(durationText(a.medianNs), shareOf(static_cast<double>(st.forward), T),
                        shareOf(static_cast<double>(st.backward), T),
                        shareOf(static_cast<double>(st.optimizer), T),
                        shareOf(static_cast<double>(st.iterationGap), T),
                        shareOf(static_cast<double>(st.tailRest), T));
    else if (st.steps > 0)
        out += tr("<b>Steady steps</b> (%1, median %2): data loading %3, CPU ops %4.")
                   .arg(st.steps)
                   .arg(durationText(a.medianNs), shareOf(static_cast<double>(st.iterationGap), T),
                        shareOf(static_cast<double>(st.cpuOps), T));
    if (!rep.ops.empty()) {
        int64_t all = 0;
        for (const auto& o : rep.ops) all += o.selfNs;
        const OpSelfTime& top = rep.ops.front();
        out += tr(" <b>Biggest op cost:</b> %1, %2 of op self time (%3 in %4 calls).")
                   .arg(QString::fromStdString(top.name).toHtmlEscaped(),
                        shareOf(static_cast<double>(top.selfNs), static_cast<double>(all)),
                        durationText(static_cast<double>(top.selfNs)))
                   .arg(top.calls);
    }
    return out;
}

AdviceView::AdviceView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_sources(new ProfileSourceBox(this)),
      m_summary(new QLabel(this)),
      m_findings(new QListWidget(this)),
      m_details(new QTextBrowser(this)),
      m_evidence(new QListWidget(this)) {
    m_pages = addEmptyStatePages(ctx, this);
    auto* layout = new QVBoxLayout(m_pages.content);
    layout->addLayout(m_sources->makeBar(this));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    layout->addWidget(m_summary);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_findings);
    auto* right = new QWidget(split);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_details, 2);
    rightLayout->addWidget(new QLabel(tr("Evidence (click to show in the timeline):"), right));
    rightLayout->addWidget(m_evidence, 1);
    split->addWidget(right);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    m_findings->setWordWrap(true);

    connect(m_findings, &QListWidget::currentRowChanged, this,
            [this](int row) { showFinding(row); });
    connect(m_evidence, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { activateEvidence(m_evidence->row(item)); });
    connect(m_evidence, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { activateEvidence(m_evidence->row(item)); });
    m_sources->follow(m_ctx, this, [this](qint64 id) { reload(id); });
}

void AdviceView::reload(qint64 sourceId) {
    auto fill = [this](std::vector<AdviceFinding> list, const QString& summary) {
        m_list = std::move(list);
        m_findings->clear();
        for (const auto& f : m_list) {
            auto* item = new QListWidgetItem(QString::fromStdString(f.title), m_findings);
            QStringList terms;
            for (const auto& [en, zh] : f.glossary)
                terms << QString::fromStdString(en) + QStringLiteral(": ") +
                             QString::fromStdString(zh);
            if (!terms.isEmpty()) item->setToolTip(terms.join(QLatin1Char('\n')));
            if (f.kind == AdviceKind::BiggestCost) {  // the overview: set apart from the rules
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
                item->setBackground(palette().color(QPalette::AlternateBase));
            }
        }
        m_summary->setText(summary);
        // The largest finding when there is one, else the overview.
        const bool overview = !m_list.empty() && m_list.front().kind == AdviceKind::BiggestCost;
        if (m_list.empty())
            showFinding(-1);
        else
            m_findings->setCurrentRow(overview && m_list.size() > 1 ? 1 : 0);
    };
    if (m_ctx->sessionPath().isEmpty()) {
        fill({}, tr("No session open."));
        return;
    }
    loadProfileReport(
        m_ctx, this, QStringLiteral("advice-view"), sourceId,
        [this, fill](const ProfileReportResult& r) {
            if (!r) {
                const QString error = QString::fromStdString(r.error());
                fill({}, error.toHtmlEscaped());
                if (isNoProfileError(error)) showNoProfile(m_pages.empty, tr("advice"));
                m_pages.showEmpty(isNoProfileError(error));
                return;
            }
            m_pages.showEmpty(false);
            const auto& rep = r.value();
            m_sources->setSources(rep.sources, rep.sourceId);
            const QString label = QString::fromStdString(rep.sourceLabel);
            QString text = rep.advice.empty()
                               ? tr("%1: no bottleneck above the thresholds (one op type > "
                                    "40% of op self time, copies > 10% of op time, "
                                    "iteration gap > 20% of step time, first step > 2x the "
                                    "median).")
                                     .arg(label)
                               : tr("%1: %n finding(s), largest cost first.", nullptr,
                                    static_cast<int>(rep.advice.size()))
                                     .arg(label);
            std::vector<AdviceFinding> list;
            if (rep.overview) list.push_back(*rep.overview);
            list.insert(list.end(), rep.advice.begin(), rep.advice.end());
            fill(std::move(list), text.toHtmlEscaped() + QStringLiteral("<br>") + costSummary(rep));
        });
}

void AdviceView::showFinding(int row) {
    m_evidence->clear();
    if (row < 0 || row >= static_cast<int>(m_list.size())) {
        m_details->clear();
        return;
    }
    const AdviceFinding& f = m_list[static_cast<size_t>(row)];
    QString html = QStringLiteral("<h3>%1</h3><p>%2</p><table>")
                       .arg(QString::fromStdString(f.title).toHtmlEscaped(),
                            QString::fromStdString(f.explanation).toHtmlEscaped());
    for (const auto& [k, v] : f.figures)
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                    .arg(QString::fromStdString(k).toHtmlEscaped(),
                         QString::fromStdString(v).toHtmlEscaped());
    html += QStringLiteral("</table><p><i>%1</i></p>")
                .arg(f.kind == AdviceKind::BiggestCost
                         ? tr("Overview (%1): not a rule, always shown.").arg(adviceKindKey(f.kind))
                         : tr("Rule: %1 (%2 advice)")
                               .arg(adviceKindKey(f.kind), QString::fromStdString(f.device)));
    if (!f.glossary.empty()) {
        QStringList terms;
        for (const auto& [en, zh] : f.glossary)
            terms << QStringLiteral("%1 = %2").arg(QString::fromStdString(en).toHtmlEscaped(),
                                                   QString::fromStdString(zh).toHtmlEscaped());
        html +=
            QStringLiteral("<p style='color:gray'><small>%1 %2</small></p>")
                .arg(tr("Glossary (the porting guide's terms):"), terms.join(QStringLiteral("; ")));
    }
    m_details->setHtml(html);
    for (size_t i = 0; i < f.evidence.size(); ++i) {
        const QString label =
            i < f.evidenceLabels.size() ? QString::fromStdString(f.evidenceLabels[i]) : QString();
        m_evidence->addItem(tr("slice %1  %2").arg(f.evidence[i]).arg(label));
    }
}

void AdviceView::activateEvidence(int row) {
    const int finding = m_findings->currentRow();
    if (finding < 0 || finding >= static_cast<int>(m_list.size())) return;
    const AdviceFinding& f = m_list[static_cast<size_t>(finding)];
    if (row < 0 || row >= static_cast<int>(f.evidence.size())) return;
    const auto i = static_cast<size_t>(row);
    const auto range = i < f.evidenceRanges.size() ? f.evidenceRanges[i]
                                                   : std::make_pair(f.rangeStart, f.rangeEnd);
    // The view first: a timeline created by the request then receives range and selection.
    m_ctx->requestView(QStringLiteral("timeline"));
    m_ctx->requestTimeRange(range.first, range.second);
    m_ctx->selectSlice(f.evidence[i]);
}
