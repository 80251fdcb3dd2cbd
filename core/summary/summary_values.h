#pragma once
// Reading the values the summary decoder keeps (summary_event.h) back for the views and the
// CLI: a MindSpore TensorProto as shape, dtype and doubles; a histogram as buckets with its
// NaN/Inf counts and TensorBoard's distribution percentiles; an image's PNG; a loss
// landscape's grid and path. Every function takes the serialized message (as stored in
// summary_values.data) and fails with a clear error on damaged bytes. No Qt.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/result.h"

namespace ts::summary {

struct TensorValues {
    std::vector<int64_t> dims;   // empty: a scalar
    std::string dtype;           // numpy-like: "float32", "float16", "int64", "bool", ...
    std::vector<double> values;  // row-major
};

/// At most this many elements are decoded (larger tensors are refused, not cut).
constexpr uint64_t kMaxTensorElements = uint64_t{1} << 26;

/// MindSpore's mindinsight.TensorProto (float_data, int32/int64/double/uint64 data, or
/// raw_data of fixed-width little-endian elements, float16 included).
Result<TensorValues> decodeTensor(std::string_view serialized);
/// numpy-like name of a MindSpore DataType number ("float32" for DT_FLOAT32, ...), or
/// "dtype_<n>" for one that is not a tensor element type.
std::string mindsporeDtypeName(int dataType);

struct HistogramBucket {
    double left = 0, width = 0;
    int64_t count = 0;
};
struct HistogramValues {
    std::vector<HistogramBucket> buckets;  // ascending left
    int64_t nan = 0, posInf = 0, negInf = 0, count = 0;
    double min = 0, max = 0, sum = 0;
};
Result<HistogramValues> decodeHistogram(std::string_view serialized);

/// TensorBoard's distribution: the values at basis points 0, 668, 1587, 3085, 5000, 6915,
/// 8413, 9332, 10000 (min, -1.5σ, -1σ, -0.5σ, median, ... max of a normal distribution) by
/// linear interpolation inside the buckets. Empty for a histogram without finite values.
std::vector<double> distributionPercentiles(const HistogramValues& h);
/// The basis points of distributionPercentiles, in the same order.
const std::vector<int>& distributionBasisPoints();

struct ImageValue {
    int width = 0, height = 0, colorspace = 0;
    std::string encoded;  // PNG (or another format Qt reads)
};
Result<ImageValue> decodeImage(std::string_view serialized);

/// A loss landscape (MindSpore's SummaryLandscape): the surface as a grid of z over x and y
/// (xs.size() columns, ys.size() rows, z row-major), the training path (x, y, z and the
/// step or epoch of each point) and the convergence point.
struct LandscapeValues {
    std::vector<double> xs, ys, z;
    std::vector<double> pathX, pathY, pathZ;
    std::vector<int32_t> pathIntervals;
    double convergenceX = 0, convergenceY = 0, convergenceZ = 0;
    bool hasConvergence = false;
    std::string decomposition, unit;
    int stepPerEpoch = 0;
    bool is1D = false;  // a curve (one direction): z over xs, ys empty
};
Result<LandscapeValues> decodeLandscape(std::string_view serialized);

}  // namespace ts::summary
