#pragma once
// HistogramsView (view "histograms"): the histograms of a summary tag over steps, as
// TensorBoard shows them. Distribution: the 9 percentile lines of each step (min, ±1.5σ,
// ±1σ, ±0.5σ and median of a normal distribution's basis points) as nested bands over
// steps. Offset: each step's histogram as a ridge line, the oldest at the back (top),
// the newest in front. A step
// slider picks the step whose figures (count, NaN, +Inf, -Inf, min, max, sum, mean) show
// below. MindSpore's histograms (buckets of left/width/count with NaN/Inf counts) and
// PyTorch's add_histogram values (converted on import) look the same here.
#include "views/summary/summary_kind_view.h"

#include "core/summary/summary_values.h"

class QCustomPlot;
class QComboBox;
class QLabel;
class QSlider;

class HistogramsView : public SummaryKindView {
    Q_OBJECT
public:
    explicit HistogramsView(SessionContext* ctx, QWidget* parent = nullptr);

    enum class Mode { Distribution, Offset };
    void setMode(Mode m);
    Mode mode() const;
    QCustomPlot* plot() const { return m_plot; }
    QSlider* stepSlider() const { return m_step; }
    /// The figures of the step the slider is on.
    QString stepText() const;
    /// Steps shown (one per stored histogram that decoded).
    int stepCount() const { return static_cast<int>(m_steps.size()); }

protected:
    void showValues(qint64 runId, const QString& tag,
                    std::vector<ts::summary::StoredValue> values) override;
    void showNothing(const QString& message) override;

private:
    void redraw();
    void showStep(int index);

    QComboBox* m_mode;
    QCustomPlot* m_plot;
    QSlider* m_step;
    QLabel* m_stepInfo;
    QString m_tag;
    std::vector<int64_t> m_steps;
    std::vector<ts::summary::HistogramValues> m_hists;
    std::vector<std::vector<double>> m_percentiles;
    int m_bad = 0;  // values that did not decode
};
