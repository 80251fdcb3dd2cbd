#pragma once
// AdviceView: the "Advice" tab — first the overview that names the biggest cost whatever
// the thresholds (costOverview: top op types with their input shapes, the steady steps'
// split), then the findings of core/analysis/advice for a profile (op bottleneck, copy
// bottleneck, data-loading bottleneck, first-step warm-up), largest cost first; for the
// selected entry its explanation, figures and the slices that prove it.
// Above them, where the time goes whatever the thresholds (steady-step split, biggest op).
// Clicking an evidence slice shows the timeline zoomed to that slice's step and selects it. The
// profile is the newest of the session unless another is chosen.
#include <QWidget>
#include <vector>

#include "core/analysis/profile/advice.h"
#include "core/analysis/profile/profile_report.h"
#include "views/common/empty_state.h"

class QLabel;
class QListWidget;
class QListWidgetItem;
class QTextBrowser;
class ProfileSourceBox;
class SessionContext;

class AdviceView : public QWidget {
    Q_OBJECT
public:
    /// The page shown when the session has no profile (what to do, with buttons).
    EmptyState* emptyState() const { return m_pages.empty; }
    explicit AdviceView(SessionContext* ctx, QWidget* parent = nullptr);

    QListWidget* findingList() const { return m_findings; }
    QListWidget* evidenceList() const { return m_evidence; }
    QTextBrowser* details() const { return m_details; }
    ProfileSourceBox* sourceBox() const { return m_sources; }
    QLabel* summaryLabel() const { return m_summary; }
    const std::vector<ts::analysis::AdviceFinding>& findings() const { return m_list; }
    /// Selects evidence row `row` of the current finding in the timeline (see class comment).
    void activateEvidence(int row);
    /// One paragraph naming where the time goes whatever the thresholds: the steady steps'
    /// split and the op type with the most self time (rich text).
    static QString costSummary(const ts::analysis::ProfileReport& report);

private:
    void reload(qint64 sourceId);
    void showFinding(int row);

    SessionContext* m_ctx;
    ProfileSourceBox* m_sources;
    QLabel* m_summary;
    EmptyStatePages m_pages;  // the empty state when there is no profile
    QListWidget* m_findings;
    QTextBrowser* m_details;
    QListWidget* m_evidence;
    std::vector<ts::analysis::AdviceFinding> m_list;
};
