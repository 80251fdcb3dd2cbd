#include "core/analysis/cluster_matrix.h"

#include <algorithm>
#include <cmath>
#include <limits>

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
    std::vector<float> finite;
    for (size_t k = 0; k < m.values.size(); ++k) {
        finite.clear();
        for (float v : m.values[k])
            if (std::isfinite(v)) finite.push_back(v);
        if (finite.empty()) continue;
        // Small matrices: the largest value; large ones: the 99.5th percentile.
        const size_t last = finite.size() - 1;
        const size_t hiIndex =
            finite.size() < 200 ? last : static_cast<size_t>(0.995 * static_cast<double>(last));
        std::nth_element(finite.begin(), finite.begin() + static_cast<std::ptrdiff_t>(hiIndex),
                         finite.end());
        m.high[k] = finite[hiIndex];
        m.low[k] = *std::min_element(finite.begin(), finite.end());
        if (m.high[k] <= m.low[k]) m.high[k] = m.low[k] + 1e-3f;
    }
    return m;
}

}  // namespace ts::analysis
