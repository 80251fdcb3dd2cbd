#pragma once
// Load mode (the seeds' load_file_path): reads an op input recorded in a dump as
// /<op>/<seqid>/input/<slot> into a fresh engine tensor, so the op runs on recorded data
// instead of its live input. The recorded dataset must have the live input's shape; its
// element type is converted by HDF5 to the live dtype (a float32 GPU dump can feed a
// float16 run and the other way round).
#include <cstdint>
#include <memory>
#include <string>

#include "core/common/result.h"
#include "core/engine/tensor/tensor.h"
#include "core/hdf5/h5_file.h"

namespace ts::debug {

class DumpLoader {
public:
    /// Opens the dump read-only; a missing, truncated or non-HDF5 file is an error.
    static Result<std::unique_ptr<DumpLoader>> open(const std::string& path);
    ~DumpLoader();
    DumpLoader(const DumpLoader&) = delete;
    DumpLoader& operator=(const DumpLoader&) = delete;

    enum class Outcome { Loaded, Absent, Mismatch };
    /// Loads input `slot` of `<op>/<seqid>` shaped and typed like `live` into `out`
    /// (allocated from the calling thread's pool). Absent: the dump has no such tensor.
    /// Mismatch: it has one of another shape or a type that cannot convert; `why` says so.
    Outcome load(const std::string& op, int64_t seqid, int slot, const engine::Tensor& live,
                 engine::Tensor& out, std::string* why = nullptr);
    const std::string& path() const { return m_file.path(); }

private:
    DumpLoader() = default;
    h5::File m_file;
    h5::H5Id m_f16;
};

}  // namespace ts::debug
