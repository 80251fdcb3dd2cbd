#pragma once
// The work behind the statistics pane, run on a JobTracker worker: one streaming pass for
// the statistics, one more for the histogram (linear bins over [min, max] of the finite
// values, or logarithmic bins of |x| by binary magnitude). Plain functions, so tests and the
// widget share them.
#include <QString>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/common/job_control.h"
#include "core/debug/tensor_stats.h"
#include "core/hdf5/h5_file.h"

struct HistogramData {
    std::vector<double> lower, upper;  // bin edges
    std::vector<double> counts;
    bool log = false;
    uint64_t zeros = 0;    // log bins: exact zeros (not drawn)
    uint64_t outside = 0;  // linear bins: values outside [lo, hi] (none when lo/hi = min/max)
};

struct DatasetStatsResult {
    QString path;
    bool ok = false;
    QString error;
    ts::debug::TensorStats stats;
    HistogramData histogram;
    double seconds = 0;  // statistics pass
    uint64_t bytes = 0;  // bytes of the dataset (elements x element size)
};

/// Statistics and histogram of one numeric dataset.
DatasetStatsResult computeDatasetStats(const ts::h5::File& file, const QString& path, int bins,
                                       bool logBins, ts::JobControl& jc);
/// Only the histogram, for known statistics (bins or scale changed).
HistogramData computeHistogram(const ts::h5::File& file, const QString& path,
                               const ts::debug::TensorStats& stats, int bins, bool logBins,
                               ts::JobControl& jc, QString* error);
