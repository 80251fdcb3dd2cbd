#pragma once
// Writes per-op tensor dumps to HDF5 in the seeds' layout:
//   /<op name>/<seqid>/input/<i>, /<op name>/<seqid>/output/<i>
// Each dataset carries attributes op_type, scope, step, wall_time, global_seq, dtype,
// direction and shape; the <seqid> group carries seq_id and global_seq (the order of the op's first
// tensor). Groups track creation order. h5py and h5dump read the files; float16 is
// written as IEEE half (the type h5py writes and reads as numpy float16).
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/hdf5/h5_handle.h"

namespace ts::debug {

enum class DumpDType { F16, F32, F64, I8, I16, I32, I64, U8, Bool };

/// Name used in the "dtype" attribute (numpy spelling: float16, float32, int64, bool...).
const char* dumpDTypeName(DumpDType t);
/// Size in bytes of one element.
size_t dumpDTypeSize(DumpDType t);

struct DumpTensorAttrs {
    std::string opType;  // e.g. "Conv2d"
    std::string scope;   // full scope name, e.g. "model/features/0"
    int64_t step = 0;
    double wallTime = 0;    // seconds since the epoch
    int64_t globalSeq = 0;  // global execution sequence of this tensor write
    bool backward = false;  // written as direction = "forward" | "backward"
};

class DumpWriter {
public:
    DumpWriter();
    ~DumpWriter();
    DumpWriter(const DumpWriter&) = delete;
    DumpWriter& operator=(const DumpWriter&) = delete;

    /// Creates (truncates) the file; parent directories are created.
    Status open(const std::string& path);
    bool isOpen() const { return m_file.valid(); }
    const std::string& path() const { return m_path; }
    /// Writes one tensor as /<opName>/<seqid>/<io>/<slot>; io is "input" or "output".
    /// `data` holds product(shape) elements of dtype, C order. An existing dataset of the
    /// same path is an error.
    Status writeTensor(const std::string& opName, int64_t seqid, const std::string& io, int slot,
                       DumpDType dtype, const std::vector<int64_t>& shape, const void* data,
                       const DumpTensorAttrs& attrs);
    /// Bytes of tensor data written since open().
    uint64_t bytesWritten() const { return m_bytes; }
    /// Flushes and closes; safe to call twice.
    Status close();

private:
    Result<hid_t> ensureGroup(const std::string& path, bool isSeqGroup, int64_t seqid,
                              int64_t globalSeq);
    h5::H5Id m_file;
    h5::H5Id m_gcpl;
    h5::H5Id m_f16;
    h5::H5Id m_ioGroup;  // the <io> group written last, kept open for the op's next tensor
    std::string m_ioPath;
    std::string m_path;
    uint64_t m_bytes = 0;
};

}  // namespace ts::debug
