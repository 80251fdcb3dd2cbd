#pragma once
// TensorBoard's scalar smoothing: an exponential moving average with debiasing
// (tensorboard/webapp/widgets/line_chart_v2/lib/data_transformer_utils.ts):
//   last = last * w + (1 - w) * v;  n += 1;  smoothed = last / (1 - w^n)
// Non-finite values pass through unsmoothed and do not enter the average; w = 0 gives the
// raw values. A series whose values are all equal is returned unchanged.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace ts::curves {

/// Incremental form, for series that grow while a run is live: push() each new value.
/// It does not know the whole series, so it skips the "all values equal" rule (the
/// result differs from smoothSeries() then by rounding only).
class EmaSmoother {
public:
    /// `weight` is clamped to [0, 1).
    explicit EmaSmoother(double weight = 0);
    double weight() const { return m_weight; }
    /// The smoothed value for the next sample `v`.
    double push(double v);
    void reset();

private:
    double m_weight = 0;
    double m_last = 0;
    double m_decay = 1;  // weight^n
};

/// Smoothed values of a whole series (same length as `values`).
std::vector<double> smoothSeries(std::span<const double> values, double weight);

/// Whether a tag is smoothed: not "lr" and "loss_scale", which are settings the run chose,
/// not noisy measurements (smoothing would only blur their steps), and not "eval/*", a few
/// per-epoch evaluations whose average over epochs would read as a value never measured.
bool isSmoothedTag(std::string_view tag);

/// Clamps a smoothing weight to [0, 0.999] (NaN -> 0).
double clampWeight(double weight);

}  // namespace ts::curves
