#include "core/debug/dump_loader.h"

#include <filesystem>
#include <vector>

namespace ts::debug {

Result<std::unique_ptr<DumpLoader>> DumpLoader::open(const std::string& path) {
    h5::silenceHdf5Errors();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        return Error{"load_file_path: no such file: " + path};
    if (H5Fis_hdf5(path.c_str()) <= 0) return Error{"load_file_path: not an HDF5 file: " + path};
    std::unique_ptr<DumpLoader> l(new DumpLoader());
    l->m_file = h5::H5Id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    if (!l->m_file.valid()) return Error{"load_file_path: damaged or truncated HDF5 file: " + path};
    l->m_f16 = h5::ieeeHalfType();
    l->m_path = path;
    return l;
}

DumpLoader::~DumpLoader() = default;

DumpLoader::Outcome DumpLoader::load(const std::string& op, int64_t seqid, int slot,
                                     const engine::Tensor& live, engine::Tensor& out,
                                     std::string* why) {
    std::string path = "/";
    path += op;
    path += '/';
    path += std::to_string(seqid);
    path += "/input/";
    path += std::to_string(slot);
    // Walk the links one level at a time: H5Lexists on a path whose parent is missing fails.
    for (size_t k = path.find('/', 1); k != std::string::npos; k = path.find('/', k + 1))
        if (H5Lexists(m_file.get(), path.substr(0, k).c_str(), H5P_DEFAULT) <= 0)
            return Outcome::Absent;
    if (H5Lexists(m_file.get(), path.c_str(), H5P_DEFAULT) <= 0) return Outcome::Absent;
    h5::H5Id d(H5Dopen2(m_file.get(), path.c_str(), H5P_DEFAULT));
    h5::H5Id space(d.valid() ? H5Dget_space(d.get()) : H5I_INVALID_HID);
    if (!space.valid()) {
        if (why) *why = "cannot open " + path.substr(1);
        return Outcome::Mismatch;
    }
    const int rank = H5Sget_simple_extent_ndims(space.get());
    std::vector<hsize_t> dims(static_cast<size_t>(rank > 0 ? rank : 0));
    if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    bool same = rank >= 0 && static_cast<size_t>(rank) == live.shape().size();
    for (size_t i = 0; same && i < dims.size(); ++i)
        same = static_cast<int64_t>(dims[i]) == live.shape()[i];
    if (!same) {
        if (why)
            *why = path.substr(1) + " has another shape than the live input " +
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
    if (t.numel() > 0 && H5Dread(d.get(), mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.raw()) < 0) {
        if (why) *why = "cannot read " + path.substr(1) + " as " + engine::dtypeName(live.dtype());
        return Outcome::Mismatch;
    }
    out = std::move(t);
    return Outcome::Loaded;
}

}  // namespace ts::debug
