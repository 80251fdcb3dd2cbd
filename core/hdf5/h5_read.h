#pragma once
// Streaming and sliced reads of numeric HDF5 datasets. BlockReader walks a dataset in
// C order by hyperslabs of bounded size (never the whole dataset at once), converting to
// float (for float16/float32 sources) or double (everything else numeric).
#include <cstdint>
#include <string>
#include <vector>

#include "core/hdf5/h5_file.h"

namespace ts::h5 {

/// Reads are bounded by what a file stores: a dataset declaring more than kFreeReadBytes and
/// more than kMaxStoredExpansion times its allocated storage (past any compression of real
/// data: deflate's limit is 1032:1) is refused with its declared size. A damaged header can
/// declare 1e16 elements in a 5 KB file; chunks that were never written would be read as
/// fill values, one block at a time, for days.
inline constexpr uint64_t kFreeReadBytes = uint64_t{64} << 20;
inline constexpr uint64_t kMaxStoredExpansion = 4096;
/// The refusal above, or success.
Status checkStoredSize(const DatasetInfo& info);

class BlockReader {
public:
    /// Opens a numeric dataset (float, int, bool, enum), refused by checkStoredSize() when it
    /// declares far more than it stores. targetElems bounds a block.
    static Result<BlockReader> open(const File& file, const std::string& path,
                                    bool asDouble = false,
                                    uint64_t targetElems = uint64_t{1} << 20);
    const DatasetInfo& info() const { return m_info; }
    /// True when blocks come as float (float16/float32 source, not forced to double).
    bool floatBlocks() const { return m_float; }
    /// Reads the next block into buf (float or double per floatBlocks()); returns the
    /// element count, 0 at the end, or an error.
    Result<uint64_t> next(std::vector<float>& fbuf, std::vector<double>& dbuf);
    uint64_t elementsRead() const { return m_done; }

private:
    Status setup(uint64_t targetElems);
    H5Id m_dset, m_fspace;
    DatasetInfo m_info;
    bool m_float = false;
    std::vector<hsize_t> m_dims, m_pos;  // current position over dims [0, m_split]
    size_t m_split = 0;                  // dimension chopped into blocks
    hsize_t m_blockLen = 1;              // block length along m_split
    uint64_t m_inner = 1;                // elements per index of m_split
    uint64_t m_done = 0;
    bool m_scalar = false;
};

/// The shape of dataset `path` (empty for a scalar), without describing its type or layout.
Result<std::vector<uint64_t>> datasetShape(const File& file, const std::string& path);

/// Reads all of dataset `path` into `out` as memory type `memType` (HDF5 converts the element
/// type, e.g. a float32 dataset into float16 memory); `out` holds the dataset's element count
/// of `memType`.
Status readAll(const File& file, const std::string& path, hid_t memType, void* out);

/// Reads a hyperslab (start/count, optional stride, per dimension; rank must match) as
/// doubles in C order. For strings, compound and other non-numeric types returns an error.
Result<std::vector<double>> readHyperslab(const File& file, const std::string& path,
                                          const std::vector<uint64_t>& start,
                                          const std::vector<uint64_t>& count,
                                          const std::vector<uint64_t>& stride = {});

}  // namespace ts::h5
