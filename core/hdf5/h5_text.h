#pragma once
// Values of any HDF5 dataset as text, for the inspector's value table: numbers (integers
// exactly, float32 with 7 and float64 with 15 significant digits, nan/inf/-inf), strings
// (fixed or variable length, any padding), enum member names (h5py's bool as True/False),
// compounds as {field: value, ...}, arrays and variable-length sequences as [a, b, ...],
// opaque and bitfield data as hex, references as <reference>. Reads a hyperslab only.
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/hdf5/h5_file.h"

namespace ts::h5 {

/// Elements of the hyperslab (start/count/stride per dimension; stride empty = 1) in C
/// order. A scalar dataset takes empty vectors. At most 1<<22 elements per call.
Result<std::vector<std::string>> readHyperslabText(const File& file, const std::string& path,
                                                   const std::vector<uint64_t>& start,
                                                   const std::vector<uint64_t>& count,
                                                   const std::vector<uint64_t>& stride = {});

/// One element of memory type `type` at `p` as text (see above).
std::string formatElement(hid_t type, const unsigned char* p);

}  // namespace ts::h5
