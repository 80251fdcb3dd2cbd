#pragma once
// CSV export of scalar series (the curves view's "Export CSV" and `trainscope-cli scalars`
// without --json). One row per sample, long format:
//   run_id,run,tag,step,wall_time_ns,value,smoothed
// Fields with commas, quotes or line breaks are quoted (RFC 4180); numbers are written in
// their shortest round-trip form, non-finite values as nan, inf, -inf.
#include <span>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/curves/scalar_series.h"

namespace ts::curves {

/// The CSV text (header included) of every series of `runs`; `smoothing` is the weight
/// of the `smoothed` column (see smoothing.h; 0, and tags isSmoothedTag() refuses, repeat
/// the value).
std::string scalarsCsv(std::span<const RunScalars> runs, double smoothing);

/// Writes scalarsCsv() to `path` whole or not at all (core/common/file_io.h); error when it
/// cannot be written or is one of `inputs` (the session the scalars come from).
Status writeScalarsCsv(const std::string& path, std::span<const RunScalars> runs, double smoothing,
                       const std::vector<std::string>& inputs = {});

}  // namespace ts::curves
