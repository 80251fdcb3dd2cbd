#pragma once
// SummaryKindView: what the views of summary values (histograms, images, tensors, loss
// landscapes, graphs) share. Top: the run (runs holding values of the view's kind) and a
// tag filter (regular expression); left: the tags of the run; right: the subclass's
// display of the selected tag's values. Everything is read on JobTracker jobs from the
// view's own read-only connection (core/summary/summary_store.h); the session's
// dataChanged (an import, a live run writing) lists again.
#include <QString>
#include <QWidget>
#include <vector>

#include "core/summary/summary_event.h"
#include "core/summary/summary_store.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QSplitter;
class SessionContext;

class SummaryKindView : public QWidget {
    Q_OBJECT
public:
    SummaryKindView(SessionContext* ctx, ts::summary::ValueKind kind, QWidget* parent = nullptr);

    QComboBox* runCombo() const { return m_runs; }
    QListWidget* tagList() const { return m_tags; }
    QLineEdit* tagFilter() const { return m_filter; }
    /// Selects run `runId` and tag `tag` (when present); values load on a job.
    void select(qint64 runId, const QString& tag);
    qint64 currentRun() const;
    QString currentTag() const;
    /// What the status line says (e.g. "3 runs, 5 tags" or why nothing is shown).
    QString statusText() const;

signals:
    /// The selected tag's values arrived (after select() or a click).
    void valuesShown();

protected:
    /// The subclass's display, put right of the tag list.
    void setDisplay(QWidget* w);
    /// The values of the selected tag, by step (called on the UI thread).
    virtual void showValues(qint64 runId, const QString& tag,
                            std::vector<ts::summary::StoredValue> values) = 0;
    /// Nothing to show (no run, no tag, an error): `message` says why.
    virtual void showNothing(const QString& message) = 0;
    /// The tags listed for `runId` changed (after the filter); for views that show every tag.
    virtual void tagsListed(qint64 runId, const QStringList& tags) {
        Q_UNUSED(runId);
        Q_UNUSED(tags);
    }
    SessionContext* context() const { return m_ctx; }
    void setStatus(const QString& text);

private:
    void reloadIndex();
    void fillTags();
    void loadValues();

    struct Index {
        std::vector<std::pair<int64_t, std::string>> runs;
        std::vector<std::vector<std::string>> tags;  // per run
        QString error;
    };

    SessionContext* m_ctx;
    ts::summary::ValueKind m_kind;
    QComboBox* m_runs;
    QLineEdit* m_filter;
    QListWidget* m_tags;
    QSplitter* m_split;
    QLabel* m_status;
    Index m_index;
    qint64 m_wantRun = -1;
    QString m_wantTag;
};
