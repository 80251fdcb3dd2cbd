#pragma once
// DiffSplitPlot: the step split of a run diff as paired bars — for each part (iteration gap,
// forward, backward, optimizer, CPU ops, idle, communication, kernels, device idle) A's bar
// beside B's, per step; the part that explains the change of step time is marked with its
// change. Parts that overlap the others (communication, kernels, device idle) are labelled in
// parentheses.
#include <qcustomplot.h>

#include "core/analysis/diff/run_diff.h"

class DiffSplitPlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit DiffSplitPlot(QWidget* parent = nullptr);
    /// Shows `d`'s split (clears the plot when it has none).
    void setDiff(const ts::analysis::RunDiff& d);
    QCPBars* barsA() const { return m_a; }
    QCPBars* barsB() const { return m_b; }

private:
    QCPBars* m_a = nullptr;
    QCPBars* m_b = nullptr;
};
