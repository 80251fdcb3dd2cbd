#pragma once
// ClusterMatrix: what the Cluster view's heatmap draws — ranks x steps of one figure per
// cell as floats (ms), NaN where a rank lacks a step, plus which cells are stragglers.
// Built once off the UI thread for every metric, so switching the metric or zooming reads
// plain arrays. No Qt.
#include <array>
#include <cstdint>
#include <vector>

#include "core/analysis/cluster_summary.h"

namespace ts::analysis {

enum class CellMetric { StepTime, Work, Wait, Idle, Count };

/// Short label, e.g. "Step time".
const char* cellMetricName(CellMetric m);

struct ClusterMatrix {
    size_t rows = 0, cols = 0;
    /// Per metric: rows x cols, row-major, ms; NaN for a missing cell.
    std::array<std::vector<float>, static_cast<size_t>(CellMetric::Count)> values;
    /// Per metric: the smallest value and a high bound for the colour scale (the largest value,
    /// or the 99.5th percentile from 200 cells on, so one warm-up step does not wash out the
    /// rest).
    std::array<float, static_cast<size_t>(CellMetric::Count)> low{}, high{};
    std::vector<uint8_t> straggler;  // rows x cols: 1 where the cell is a straggler

    const std::vector<float>& of(CellMetric m) const { return values[static_cast<size_t>(m)]; }
    float at(CellMetric m, size_t r, size_t c) const { return of(m)[r * cols + c]; }
};

ClusterMatrix buildClusterMatrix(const ClusterSummary& summary);

}  // namespace ts::analysis
