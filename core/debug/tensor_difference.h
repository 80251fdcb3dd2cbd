#pragma once
// A - B of two tensors of a dump comparison, element by element (issue 26, item 18: the
// Compare view's A−B panel): where they differ most and a series small enough to plot.
// Both datasets are streamed in blocks (BlockReader), never read whole. No Qt.
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/job_control.h"
#include "core/common/result.h"

namespace ts::debug {

struct TensorDifference {
    uint64_t count = 0;      // elements compared
    uint64_t nonFinite = 0;  // elements where A or B is NaN/Inf (left out of the figures)
    double maxAbs = 0;       // max |A - B|
    uint64_t maxAt = 0;      // flat index (C order) of the max
    double aAtMax = 0, bAtMax = 0;
    double mean = 0, rms = 0;  // of A - B over finite elements
    /// A - B by flat index, in at most `points` buckets: each bucket's value of largest
    /// magnitude (so a spike is never averaged away); bucketSize elements per bucket.
    std::vector<double> series;
    uint64_t bucketSize = 1;
};

/// Compares dataset `pathA` of `fileA` with `pathB` of `fileB` (same element count; error
/// otherwise, or when either is not numeric). Cancellable through `job`.
Result<TensorDifference> tensorDifference(const std::string& fileA, const std::string& pathA,
                                          const std::string& fileB, const std::string& pathB,
                                          size_t points = 2000, JobControl* job = nullptr);

}  // namespace ts::debug
