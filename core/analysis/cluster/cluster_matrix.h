#pragma once
// ClusterMatrix: what the Cluster view's heatmap draws — ranks x steps of one figure per
// cell as floats (ms), NaN where a rank lacks a step, plus which cells are stragglers.
// Built once off the UI thread for every metric, so switching the metric or zooming reads
// plain arrays. No Qt.
#include <array>
#include <cstdint>
#include <vector>

#include "core/analysis/cluster/cluster_summary.h"

namespace ts::analysis {

enum class CellMetric { StepTime, Work, Wait, Idle, Count };

/// Short label, e.g. "Step time".
const char* cellMetricName(CellMetric m);

struct ClusterMatrix {
    size_t rows = 0, cols = 0;
    /// Per metric: rows x cols, row-major, ms; NaN for a missing cell.
    std::array<std::vector<float>, static_cast<size_t>(CellMetric::Count)> values;
    /// Per metric: the colour scale, from the smallest value to the largest outside columns
    /// whose median is over kWarmupFactor x the median column (a warm-up step: drawn at the
    /// top colour, so it does not wash out the rest). Single slow cells stay in the range.
    std::array<float, static_cast<size_t>(CellMetric::Count)> low{}, high{};
    std::vector<uint8_t> straggler;  // rows x cols: 1 where the cell is a straggler

    const std::vector<float>& of(CellMetric m) const { return values[static_cast<size_t>(m)]; }
    float at(CellMetric m, size_t r, size_t c) const { return of(m)[r * cols + c]; }
};

ClusterMatrix buildClusterMatrix(const ClusterSummary& summary);

}  // namespace ts::analysis
