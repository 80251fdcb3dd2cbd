#pragma once
// Comparison of two dumps of any formats (dump_source.h): MindSpore .npy against
// MindSpore .npy (two iterations, two runs), MindSpore against the studio's or PyTorch's
// HDF5 dumps, HDF5 against HDF5. Pairing (by path, or ops aligned by name / scope / a name
// map: core/debug/dump_pairing.h), the figures, the pass rules and the root cause are the
// HDF5 comparison's (importers/hdf5/dump_scan.h), so the CLI's `dump compare` and the
// Compare view show every combination the same way.
#include <string>

#include "core/common/job_control.h"
#include "core/debug/dump_scan.h"
#include "importers/msdump/dump_source.h"

namespace ts::dumps {

Result<h5::CompareReport> compareSources(const DumpSource& a, const DumpSource& b,
                                         const h5::CompareThresholds& t,
                                         const h5::DumpPairOptions& how, JobControl* job = nullptr);

/// Opens both paths (openDumpSource) and compares them.
Result<h5::CompareReport> compareAnyDumps(const std::string& a, const std::string& b,
                                          const h5::CompareThresholds& t,
                                          const h5::DumpPairOptions& how,
                                          JobControl* job = nullptr);

}  // namespace ts::dumps
