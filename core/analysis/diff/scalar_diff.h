#pragma once
// The difference of two runs' scalar series by step, for the curves view's difference series
// (run against run: B's loss minus A's at every step both logged). No Qt.
#include <vector>

#include "core/curves/scalar_series.h"

namespace ts::analysis {

/// B - A at every step both series have (the last sample of a step when it has several), by
/// step; the wall time is B's. Non-finite values give a non-finite difference.
std::vector<curves::ScalarPoint> differenceByStep(const curves::ScalarSeries& a,
                                                  const curves::ScalarSeries& b);

}  // namespace ts::analysis
