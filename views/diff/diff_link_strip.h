#pragma once
// DiffLinkStrip: the band between A's and B's timelines in the Diff view. Each aligned pair
// of ops in view is a line from the op's middle in A (above) to its partner's middle in B
// (below), coloured by how B's duration compares (slower red, faster green, else grey); the
// focused pair is drawn thick. Ops without a partner get a mark on their side (deleted from A
// at the top, inserted in B at the bottom). diffLinks() computes what to draw (tested alone).
#include <QColor>
#include <QWidget>
#include <vector>

#include "core/analysis/diff/run_diff.h"
#include "core/timeline/time_axis.h"

class TimelineCanvas;

struct DiffLink {
    double xA = 0, xB = 0;  // widget x of the op's middle in A and in B
    QColor colour;
    bool focus = false;
};

struct DiffMark {
    double x = 0;
    bool inB = false;  // inserted in B (else deleted from A)
};

/// The links and marks in view, at most `maxLinks` (when more are in view, the outermost ops,
/// those of the smallest depth, first). `gutter`: x where the time axes start.
void diffLinks(const ts::analysis::DiffAlignment& al, const ts::timeline::TimeAxis& axisA,
               int64_t originA, const ts::timeline::TimeAxis& axisB, int64_t originB, double gutter,
               int64_t focusPair, std::vector<DiffLink>& links, std::vector<DiffMark>& marks,
               size_t maxLinks = 400);

class DiffLinkStrip : public QWidget {
    Q_OBJECT
public:
    explicit DiffLinkStrip(QWidget* parent = nullptr);
    /// What to link: the alignment, the two canvases (their axes and gutter) and the origins of
    /// their models; `focusPair` is drawn thick (-1: none). Repaints.
    void setSource(const ts::analysis::DiffAlignment* al, const TimelineCanvas* a,
                   const TimelineCanvas* b, int64_t originA, int64_t originB, int64_t focusPair);
    const std::vector<DiffLink>& links() const { return m_links; }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    const ts::analysis::DiffAlignment* m_al = nullptr;
    const TimelineCanvas* m_a = nullptr;
    const TimelineCanvas* m_b = nullptr;
    int64_t m_originA = 0, m_originB = 0, m_focus = -1;
    std::vector<DiffLink> m_links;
    std::vector<DiffMark> m_marks;
};
