#pragma once
// TimelineView: the "Timeline" tab. Loads the timeline model of the session on a job when
// the session's data changes, and hosts the canvas, a search bar (name or regex, count,
// next/previous), the details panel of the selected slice and the aggregate table of an
// area selection. Follows SessionContext::timeRangeRequested (zooms there) and
// sliceSelected (selects and frames the slice); a click or an area selection is published
// back through the context (selectSlice / requestTimeRange). Keys: Ctrl+F finds, Enter
// (in the search box) zooms to the next match, Shift+Enter to the previous, Esc clears the
// search. When the session's sources use unrelated clocks, a bar says so and offers to align
// each source (clock_bases.h); an empty timeline says what would fill it.
#include <QWidget>
#include <memory>
#include <optional>
#include <utility>

#include "core/timeline/timeline_query.h"

class QCheckBox;
class QFrame;
class QLabel;
class QStackedWidget;
class QToolButton;
class EmptyState;
class QLineEdit;
class QTabWidget;
class QTableWidget;
class QTimer;
class SessionContext;
class SliceDetailsPanel;
class TimelineCanvas;

class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(SessionContext* ctx, QWidget* parent = nullptr);

    TimelineCanvas* canvas() const { return m_canvas; }
    SliceDetailsPanel* detailsPanel() const { return m_details; }
    QTableWidget* aggregateTable() const { return m_aggregate; }
    QLineEdit* searchBox() const { return m_search; }
    QLabel* matchLabel() const { return m_matchLabel; }
    QLabel* statusLabel() const { return m_status; }
    EmptyState* emptyState() const { return m_empty; }
    /// The bar that says the session's clocks are unrelated (hidden when they are not).
    QFrame* clockBar() const { return m_clockBar; }
    QLabel* clockLabel() const { return m_clockLabel; }
    /// Aligns source `sourceId` by `mode` (a job writing the session; the timeline reloads);
    /// `manualNs` is added to the first-event alignment for AlignMode::Manual.
    void alignSource(int64_t sourceId, ts::timeline::AlignMode mode, int64_t manualNs = 0);
    /// Aligns every source not on the reference clock to its first event.
    void alignAllToFirstEvent();
    /// Clears the search (Esc).
    void clearSearch();

public slots:
    /// Puts the cursor in the search box (Edit > Find, Ctrl+F: the main window calls the
    /// current view's focusSearch slot).
    void focusSearch();

public:
    /// Search results currently shown (empty when none).
    const ts::timeline::SearchResults* searchResults() const { return m_results.get(); }

    /// Runs a search now (the search box runs it after a short pause in typing).
    void runSearch();
    void nextMatch();
    void previousMatch();
    /// Searches `text` and, once the results are in, selects the first match and zooms to
    /// it together with the slices its flows (and those of its nested calls) lead to, so the
    /// arrows are in view (used by `trainscope --find` for screenshots and links).
    void findAndFrame(const QString& text);

private:
    void reload();
    void setModel(std::shared_ptr<const ts::timeline::TimelineModel> m);
    void onSliceClicked(const ts::timeline::SliceRef& ref);
    void onArea(const std::vector<int>& tracks, double t0, double t1);
    void loadDetails(const ts::timeline::SliceRef& ref);
    void selectById(int64_t sliceId);
    void goToMatch(int64_t index);
    void zoomToSelection();
    void updateClockBar();
    void fillAlignMenu();
    /// Zooms to [a, b] in store time (as other views publish ranges), aligned as the
    /// source that holds `a`.
    void zoomToStoreRange(int64_t a, int64_t b);

    SessionContext* m_ctx;
    TimelineCanvas* m_canvas;
    SliceDetailsPanel* m_details;
    QTableWidget* m_aggregate;
    QTabWidget* m_bottom;
    QLineEdit* m_search;
    QCheckBox* m_regex;
    QCheckBox* m_allFlows;
    QLabel* m_matchLabel;
    QLabel* m_status;
    QTimer* m_searchTimer;
    QStackedWidget* m_stack;
    EmptyState* m_empty;
    QFrame* m_clockBar;
    QLabel* m_clockLabel;
    QToolButton* m_alignButton;
    std::shared_ptr<const ts::timeline::TimelineModel> m_model;
    std::shared_ptr<const ts::timeline::SearchResults> m_results;
    int64_t m_matchIndex = -1;
    bool m_publishing = false;  // true while this view emits through the context
    /// The session m_model was loaded from: a request that comes while another session's
    /// model loads (a Cluster view click opening a rank's session) waits for that model.
    QString m_modelPath;
    bool modelIsCurrent() const;
    std::optional<std::pair<int64_t, int64_t>> m_pendingRange;
    int64_t m_pendingSlice = 0;
    bool m_frameFirstMatch = false;  // findAndFrame: act when the search results arrive
    void frameWithFlows(const ts::timeline::SliceRef& ref);
};
