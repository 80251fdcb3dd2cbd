#pragma once
// A tensor dump of any format the studio reads, as a comparison sees it: an HDF5 dump (the
// engine's, PyTorch hooks', any /<op>/<seqid>/<io>/<slot> file) or a MindSpore dump
// iteration folder (.npy files: core/debug/msdump/ms_dump.h). Each lists its tensors in
// execution order with their op, seqid, io, slot and scope, and reads one as blocks of
// doubles; compareSources (dump_scan.h) pairs and compares two of them with one set of rules,
// so MindSpore against MindSpore, MindSpore against HDF5 and HDF5 against HDF5 read alike.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/debug/dump_scan.h"
#include "core/hdf5/h5_file.h"

namespace ts::debug {

struct SourceTensor {
    DumpTensor tensor;  // path "<op>/<seqid>/<io>/<slot>", op, seqid, io, slot, order
    std::string scope;  // full scope name ("" when unknown or not asked for)
};

class TensorBlocks {
public:
    virtual ~TensorBlocks() = default;
    virtual const std::string& dtype() const = 0;
    virtual const std::vector<uint64_t>& shape() const = 0;
    /// Next values in C order into `out`; the count (0 at the end).
    virtual Result<uint64_t> next(std::vector<double>& out) = 0;
};

class DumpSource {
public:
    virtual ~DumpSource() = default;
    /// "HDF5 dump x.h5", "MindSpore dump rank_0/Net/0/1".
    virtual std::string describe() const = 0;
    /// The tensors in execution order; `scopes`: fill SourceTensor::scope (an HDF5 dump reads
    /// an attribute per tensor for it).
    virtual Result<std::vector<SourceTensor>> tensors(OrderSource* order, std::string* detail,
                                                      bool scopes) const = 0;
    virtual Result<std::unique_ptr<TensorBlocks>> open(const SourceTensor& t) const = 0;
};

/// An HDF5 dump over `file`, which must outlive it.
std::unique_ptr<DumpSource> hdf5DumpSource(const h5::File& file);

/// Opens `path` as a dump: an HDF5 file, or a MindSpore dump iteration folder (a tree with
/// exactly one iteration folder counts as it; with several, the error lists them).
Result<std::unique_ptr<DumpSource>> openDumpSource(const std::string& path);

/// True when `path` is not HDF5 but a MindSpore dump (folder, or a .npy inside one).
bool isMindSporeDumpPath(const std::string& path);

/// Opens both paths (openDumpSource) and compares them (compareSources).
Result<CompareReport> compareAnyDumps(const std::string& a, const std::string& b,
                                      const CompareThresholds& t, const DumpPairOptions& how,
                                      JobControl* job = nullptr);

}  // namespace ts::debug
