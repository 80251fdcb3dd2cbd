#include "core/analysis/cluster/cluster_matrix.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/analysis/profile/step_analysis.h"

namespace ts::analysis {

const char* cellMetricName(CellMetric m) {
    switch (m) {
        case CellMetric::StepTime:
            return "Step time";
        case CellMetric::Work:
            return "Work (step - wait)";
        case CellMetric::Wait:
            return "Wait (exposed communication)";
        case CellMetric::Idle:
            return "Idle";
        case CellMetric::Count:
            break;
    }
    return "";
}

ClusterMatrix buildClusterMatrix(const ClusterSummary& s) {
    ClusterMatrix m;
    m.rows = s.rankCount();
    m.cols = s.stepCount();
    const size_t n = m.rows * m.cols;
    constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
    for (auto& v : m.values) v.assign(n, kNaN);
    m.straggler.assign(n, 0);
    for (size_t r = 0; r < m.rows; ++r)
        for (size_t c = 0; c < m.cols; ++c) {
            const RankStep* st = s.cell(r, c);
            if (!st) continue;
            const size_t i = r * m.cols + c;
            m.values[0][i] = static_cast<float>(static_cast<double>(st->dur) / 1e6);
            m.values[1][i] = static_cast<float>(static_cast<double>(st->workNs()) / 1e6);
            m.values[2][i] = static_cast<float>(static_cast<double>(st->waitNs()) / 1e6);
            m.values[3][i] = static_cast<float>(static_cast<double>(st->idleNs) / 1e6);
        }
    for (const Straggler& g : s.stragglers) m.straggler[g.rankIndex * m.cols + g.stepIndex] = 1;
    // Colour scale: the smallest value to the largest, leaving out whole columns far above
    // the rest (a warm-up step, > kWarmupFactor x the median column: they show at the top
    // colour) so they do not flatten everything else. Single slow cells — stragglers — stay
    // in: they are what the heatmap is for.
    std::vector<double> columnMedian(m.cols), column;
    for (size_t k = 0; k < m.values.size(); ++k) {
        const auto& v = m.values[k];
        float lo = std::numeric_limits<float>::infinity(), hi = -lo, hiAll = -lo;
        for (size_t c = 0; c < m.cols; ++c) {
            column.clear();
            for (size_t r = 0; r < m.rows; ++r)
                if (std::isfinite(v[r * m.cols + c])) column.push_back(v[r * m.cols + c]);
            columnMedian[c] =
                column.empty() ? std::numeric_limits<double>::quiet_NaN() : median(column);
        }
        std::vector<double> medians;
        for (double x : columnMedian)
            if (std::isfinite(x)) medians.push_back(x);
        const double typical = median(medians);
        for (size_t c = 0; c < m.cols; ++c) {
            const bool warmup = std::isfinite(columnMedian[c]) && typical > 0 &&
                                columnMedian[c] > kWarmupFactor * typical;
            for (size_t r = 0; r < m.rows; ++r) {
                const float x = v[r * m.cols + c];
                if (!std::isfinite(x)) continue;
                lo = std::min(lo, x);
                hiAll = std::max(hiAll, x);
                if (!warmup) hi = std::max(hi, x);
            }
        }
        if (!std::isfinite(lo)) continue;
        if (!std::isfinite(hi)) hi = hiAll;
        m.low[k] = lo;
        m.high[k] = hi > lo ? hi : lo + 1e-3f;
    }
    return m;
}

}  // namespace ts::analysis
