#include "views/advice/advice_view.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "views/common/session_context.h"
#include "views/steps/profile_source_box.h"

using namespace ts::analysis;

AdviceView::AdviceView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_sources(new ProfileSourceBox(this)),
      m_summary(new QLabel(this)),
      m_findings(new QListWidget(this)),
      m_details(new QTextBrowser(this)),
      m_evidence(new QListWidget(this)) {
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Profile:"), this));
    bar->addWidget(m_sources);
    bar->addStretch(1);
    layout->addLayout(bar);
    m_summary->setWordWrap(true);
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
    connect(m_sources, &ProfileSourceBox::sourceChosen, this, [this](qint64 id) { reload(id); });
    connect(m_ctx, &SessionContext::sessionChanged, this, [this] { reload(-1); });
    connect(m_ctx, &SessionContext::dataChanged, this,
            [this] { reload(m_sources->currentSource()); });
    reload(-1);
}

void AdviceView::reload(qint64 sourceId) {
    auto fill = [this](std::vector<AdviceFinding> list, const QString& summary) {
        m_list = std::move(list);
        m_findings->clear();
        for (const auto& f : m_list) m_findings->addItem(QString::fromStdString(f.title));
        m_summary->setText(summary);
        if (m_list.empty())
            showFinding(-1);
        else
            m_findings->setCurrentRow(0);
    };
    if (m_ctx->sessionPath().isEmpty()) {
        fill({}, tr("No session open."));
        return;
    }
    loadProfileReport(m_ctx, this, QStringLiteral("advice-view"), sourceId,
                      [this, fill](const ProfileReportResult& r) {
                          if (!r) {
                              fill({}, QString::fromStdString(r.error()));
                              return;
                          }
                          const auto& rep = r.value();
                          m_sources->setSources(rep.sources, rep.sourceId);
                          const QString label = QString::fromStdString(rep.sourceLabel);
                          fill(rep.advice,
                               rep.advice.empty()
                                   ? tr("%1: no bottleneck above the thresholds (one op type > 40% "
                                        "of op self time, copies > 10% of op time, iteration gap "
                                        "> 20% of step time, first step > 2x the median).")
                                         .arg(label)
                                   : tr("%1: %n finding(s), largest cost first.", nullptr,
                                        static_cast<int>(rep.advice.size()))
                                         .arg(label));
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
    html +=
        QStringLiteral("</table><p><i>%1</i></p>").arg(tr("Rule: %1").arg(adviceKindKey(f.kind)));
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
    m_ctx->selectSlice(f.evidence[static_cast<size_t>(row)]);
    m_ctx->requestTimeRange(f.rangeStart, f.rangeEnd);
    m_ctx->requestView(QStringLiteral("timeline"));
}
