#include "core/debug/dump_loader.h"

#include "core/hdf5/h5_read.h"

namespace ts::debug {

Result<std::unique_ptr<DumpLoader>> DumpLoader::open(const std::string& path) {
    auto file = h5::File::open(path);
    if (!file) return Error{"load_file_path: " + file.error()};
    std::unique_ptr<DumpLoader> l(new DumpLoader());
    l->m_file = std::move(file.value());
    l->m_f16 = h5::ieeeHalfType();
    return l;
}

DumpLoader::~DumpLoader() = default;

DumpLoader::Outcome DumpLoader::load(const std::string& op, int64_t seqid, int slot,
                                     const engine::Tensor& live, engine::Tensor& out,
                                     std::string* why) {
    const std::string path = op + '/' + std::to_string(seqid) + "/input/" + std::to_string(slot);
    if (!m_file.exists(path)) return Outcome::Absent;
    auto dims = h5::datasetShape(m_file, path);
    if (!dims) {
        if (why) *why = "cannot open " + path;
        return Outcome::Mismatch;
    }
    bool same = dims->size() == live.shape().size();
    for (size_t i = 0; same && i < dims->size(); ++i)
        same = static_cast<int64_t>((*dims)[i]) == live.shape()[i];
    if (!same) {
        if (why)
            *why = path + " has another shape than the live input " +
                   engine::shapeString(live.shape());
        return Outcome::Mismatch;
    }
    hid_t mem = H5T_NATIVE_FLOAT;
    switch (live.dtype()) {
        case engine::DType::Float32:
            mem = H5T_NATIVE_FLOAT;
            break;
        case engine::DType::Float16:
            mem = m_f16.get();
            break;
        case engine::DType::Int32:
            mem = H5T_NATIVE_INT32;
            break;
        case engine::DType::Int64:
            mem = H5T_NATIVE_INT64;
            break;
        case engine::DType::UInt8:
            mem = H5T_NATIVE_UINT8;
            break;
    }
    engine::Tensor t = engine::Tensor::empty(live.shape(), live.dtype());
    if (t.numel() > 0 && !h5::readAll(m_file, path, mem, t.raw())) {
        if (why) *why = "cannot read " + path + " as " + engine::dtypeName(live.dtype());
        return Outcome::Mismatch;
    }
    out = std::move(t);
    return Outcome::Loaded;
}

}  // namespace ts::debug
