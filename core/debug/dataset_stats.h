#pragma once
// Statistics of one numeric HDF5 dataset (a dumped tensor or any other), read in one
// streaming pass of bounded blocks (core/hdf5's BlockReader), never the whole dataset.
#include <string>

#include "core/common/job_control.h"
#include "core/common/result.h"
#include "core/debug/tensor_stats.h"
#include "core/hdf5/h5_file.h"

namespace ts::debug {

/// Statistics of the numeric dataset `path`; cancel (between blocks) through `job`, and
/// progress too unless `progress` is false (the caller counts datasets instead). A dataset
/// that declares far more than it stores is refused (h5::checkStoredSize).
Result<TensorStats> datasetStats(const h5::File& file, const std::string& path,
                                 JobControl* job = nullptr, bool progress = true);

}  // namespace ts::debug
