#pragma once
// ProfileSourceBox: the "Profile:" chooser shared by the Step, Memory and Advice views — one
// entry per profile source of the session (newest first, as core/analysis lists them).
// Emits sourceChosen only when the user picks an entry, not when the list is refilled.
// loadProfileReport: runs core's analyzeProfile on a job for those views.
#include <QComboBox>
#include <functional>
#include <vector>

#include "core/analysis/profile/profile_report.h"

class QHBoxLayout;
class SessionContext;

class ProfileSourceBox : public QComboBox {
    Q_OBJECT
public:
    explicit ProfileSourceBox(QWidget* parent = nullptr);
    /// Replaces the entries and selects `current` (the analysed source).
    void setSources(const std::vector<ts::analysis::ProfileSourceInfo>& sources, qint64 current);
    /// Source id of the selected entry, -1 when empty.
    qint64 currentSource() const;
    /// A "Profile:" label and this box, left-aligned: the top bar of the profile views.
    QHBoxLayout* makeBar(QWidget* owner);
    /// Keeps a view's report current: calls `reload` (while `receiver` lives) with the
    /// picked source when the user picks one, with -1 (the newest) when another session
    /// opens, with the current source when the session's data change, and once now with -1.
    void follow(SessionContext* ctx, QObject* receiver, const std::function<void(qint64)>& reload);

signals:
    void sourceChosen(qint64 sourceId);
};

using ProfileReportResult = ts::Result<ts::analysis::ProfileReport>;

/// Analyses the profile `sourceId` of the open session on a job (tag: supersedes an older
/// job of the same tag) and hands the result to `done` on the UI thread while `receiver`
/// lives. `sourceId` < 0 picks the newest profile.
void loadProfileReport(SessionContext* ctx, QObject* receiver, const QString& tag, qint64 sourceId,
                       std::function<void(const ProfileReportResult&)> done);
