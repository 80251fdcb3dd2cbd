#pragma once
// LandscapeView (view "landscape"): MindSpore's loss landscapes (SummaryLandscape /
// SummaryCollector collect_landscape): a 2-D landscape as a colour map of the loss over the
// two directions with iso-lines (contour) and the training path (its points numbered by the
// step or epoch interval) and the convergence point on top; a 1-D landscape as a curve. The
// decomposition, unit and loss range are listed below.
#include "views/summary/summary_kind_view.h"

#include "core/summary/summary_values.h"

class QCPColorScale;
class QCustomPlot;
class QLabel;
class QSlider;

class LandscapeView : public SummaryKindView {
    Q_OBJECT
public:
    explicit LandscapeView(SessionContext* ctx, QWidget* parent = nullptr);
    QCustomPlot* plot() const { return m_plot; }
    QString infoText() const;
    /// The landscape shown (empty xs when none).
    const ts::summary::LandscapeValues& landscape() const { return m_land; }

protected:
    void showValues(qint64 runId, const QString& tag,
                    std::vector<ts::summary::StoredValue> values) override;
    void showNothing(const QString& message) override;

private:
    void showIndex(int i);
    QSlider* m_which;
    QCustomPlot* m_plot;
    QCPColorScale* m_scale;
    QLabel* m_info;
    std::vector<ts::summary::StoredValue> m_values;
    ts::summary::LandscapeValues m_land;
};
