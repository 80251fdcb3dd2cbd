#include "core/hdf5/h5_read.h"

#include <algorithm>

namespace ts::h5 {
namespace {
std::string slashed(const std::string& p) {
    return p.empty() || p[0] != '/' ? "/" + p : p;
}
}  // namespace

Status checkStoredSize(const DatasetInfo& info) {
    const uint64_t size = std::max<uint64_t>(info.elementSize, 1);
    const uint64_t declared =
        info.count > UINT64_MAX / size ? UINT64_MAX : info.count * size;  // saturating
    if (info.layout == "virtual" || declared <= kFreeReadBytes ||
        declared / kMaxStoredExpansion <= info.storageBytes)
        return {};
    return Error{"dataset " + info.path + " declares " + std::to_string(info.count) +
                 " elements (" + std::to_string(declared) + " bytes) but stores only " +
                 std::to_string(info.storageBytes) +
                 " bytes: not read (a damaged header, or chunks that were never written)"};
}

Result<BlockReader> BlockReader::open(const File& file, const std::string& path, bool asDouble,
                                      uint64_t targetElems) {
    auto info = file.datasetInfo(path);
    if (!info) return Error{info.error()};
    if (!info->numeric())
        return Error{"dataset " + info->path + " is not numeric (" + info->dtype + ")"};
    if (auto s = checkStoredSize(info.value()); !s) return Error{s.error()};
    BlockReader r;
    r.m_info = std::move(info.value());
    r.m_dset = H5Id(H5Dopen2(file.id(), slashed(path).c_str(), H5P_DEFAULT));
    if (!r.m_dset.valid()) return Error{"cannot open dataset " + r.m_info.path};
    r.m_float = !asDouble && r.m_info.valueClass == ValueClass::Float && r.m_info.elementSize <= 4;
    auto s = r.setup(std::max<uint64_t>(targetElems, 1));
    if (!s) return Error{s.error()};
    return r;
}

Status BlockReader::setup(uint64_t targetElems) {
    m_fspace = H5Id(H5Dget_space(m_dset.get()));
    if (!m_fspace.valid()) return Error{"cannot read dataspace of " + m_info.path};
    m_scalar = m_info.shape.empty();
    if (m_scalar) return {};
    for (auto d : m_info.shape) m_dims.push_back(d);
    // Split at the outermost dim whose inner product fits the target.
    const size_t rank = m_dims.size();
    m_split = rank - 1;
    uint64_t inner = 1;
    for (size_t k = rank; k-- > 0;) {
        m_split = k;
        if (k + 1 < rank) inner *= m_dims[k + 1];
        if (inner * m_dims[k] > targetElems || k == 0) break;
    }
    // Recompute inner for the chosen split.
    m_inner = 1;
    for (size_t k = m_split + 1; k < rank; ++k) m_inner *= m_dims[k];
    m_blockLen = std::max<hsize_t>(1, targetElems / std::max<uint64_t>(m_inner, 1));
    if (!m_info.chunks.empty() && m_info.chunks.size() == rank &&
        m_blockLen > m_info.chunks[m_split])
        m_blockLen -= m_blockLen % m_info.chunks[m_split];  // whole chunks per block
    m_blockLen = std::min<hsize_t>(m_blockLen, m_dims[m_split]);
    m_pos.assign(m_split + 1, 0);
    return {};
}

Result<uint64_t> BlockReader::next(std::vector<float>& fbuf, std::vector<double>& dbuf) {
    const hid_t mt = m_float ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    if (m_scalar) {
        if (m_done >= m_info.count) return uint64_t{0};
        fbuf.resize(1);
        dbuf.resize(1);
        void* p = m_float ? static_cast<void*>(fbuf.data()) : static_cast<void*>(dbuf.data());
        if (H5Dread(m_dset.get(), mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, p) < 0)
            return Error{"read failed for " + m_info.path};
        m_done = 1;
        return uint64_t{1};
    }
    if (m_info.count == 0 || m_done >= m_info.count) return uint64_t{0};
    const size_t rank = m_dims.size();
    std::vector<hsize_t> start(rank, 0), count(rank, 1);
    for (size_t k = 0; k < m_split; ++k) start[k] = m_pos[k];
    start[m_split] = m_pos[m_split];
    count[m_split] = std::min<hsize_t>(m_blockLen, m_dims[m_split] - m_pos[m_split]);
    for (size_t k = m_split + 1; k < rank; ++k) count[k] = m_dims[k];
    const uint64_t n = count[m_split] * m_inner;
    if (H5Sselect_hyperslab(m_fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                            nullptr) < 0)
        return Error{"bad selection in " + m_info.path};
    hsize_t mn = n;
    H5Id mspace(H5Screate_simple(1, &mn, nullptr));
    void* p;
    if (m_float) {
        if (fbuf.size() < n) fbuf.resize(n);
        p = fbuf.data();
    } else {
        if (dbuf.size() < n) dbuf.resize(n);
        p = dbuf.data();
    }
    if (H5Dread(m_dset.get(), mt, mspace.get(), m_fspace.get(), H5P_DEFAULT, p) < 0)
        return Error{"read failed for " + m_info.path + " (damaged data or missing filter)"};
    // Advance the odometer over dims [0, m_split].
    m_pos[m_split] += count[m_split];
    for (size_t k = m_split; k > 0 && m_pos[k] >= m_dims[k]; --k) {
        m_pos[k] = 0;
        m_pos[k - 1] += 1;
    }
    m_done += n;
    return n;
}

Result<std::vector<uint64_t>> datasetShape(const File& file, const std::string& path) {
    H5Id d(H5Dopen2(file.id(), slashed(path).c_str(), H5P_DEFAULT));
    H5Id space(d.valid() ? H5Dget_space(d.get()) : H5I_INVALID_HID);
    if (!space.valid()) return Error{"cannot open dataset " + path};
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0) return Error{"cannot read dataspace of " + path};
    std::vector<hsize_t> dims(static_cast<size_t>(rank));
    if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    return std::vector<uint64_t>(dims.begin(), dims.end());
}

Status readAll(const File& file, const std::string& path, hid_t memType, void* out) {
    H5Id d(H5Dopen2(file.id(), slashed(path).c_str(), H5P_DEFAULT));
    if (!d.valid()) return Error{"cannot open dataset " + path};
    if (H5Dread(d.get(), memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
        return Error{"read failed for " + path};
    return {};
}

namespace {
Status selectSlab(hid_t space, const DatasetInfo& info, const std::vector<uint64_t>& start,
                  const std::vector<uint64_t>& count, const std::vector<uint64_t>& stride,
                  uint64_t& n) {
    if (start.size() != info.shape.size() || count.size() != info.shape.size() ||
        (!stride.empty() && stride.size() != info.shape.size()))
        return Error{"slice rank does not match dataset rank"};
    n = 1;
    for (size_t k = 0; k < start.size(); ++k) {
        const uint64_t st = stride.empty() ? 1 : std::max<uint64_t>(1, stride[k]);
        if (count[k] > 0 && start[k] + (count[k] - 1) * st >= info.shape[k])
            return Error{"slice outside the dataset"};
        n *= count[k];
    }
    if (n > (uint64_t{1} << 28)) return Error{"slice too large"};
    if (info.shape.empty() || n == 0) return {};
    std::vector<hsize_t> s(start.begin(), start.end()), c(count.begin(), count.end()), t;
    for (size_t k = 0; k < stride.size(); ++k) t.push_back(std::max<uint64_t>(1, stride[k]));
    if (H5Sselect_hyperslab(space, H5S_SELECT_SET, s.data(), t.empty() ? nullptr : t.data(),
                            c.data(), nullptr) < 0)
        return Error{"bad selection"};
    return {};
}
}  // namespace

Result<std::vector<double>> readHyperslab(const File& file, const std::string& path,
                                          const std::vector<uint64_t>& start,
                                          const std::vector<uint64_t>& count,
                                          const std::vector<uint64_t>& stride) {
    auto info = file.datasetInfo(path);
    if (!info) return Error{info.error()};
    if (!info->numeric())
        return Error{"dataset " + info->path + " is not numeric (" + info->dtype + ")"};
    H5Id d(H5Dopen2(file.id(), slashed(path).c_str(), H5P_DEFAULT));
    H5Id fs(H5Dget_space(d.get()));
    uint64_t n = 0;
    auto s = selectSlab(fs.get(), info.value(), start, count, stride, n);
    if (!s) return Error{s.error()};
    std::vector<double> out(n);
    if (n == 0) return out;
    hsize_t mn = n;
    H5Id ms(H5Screate_simple(1, &mn, nullptr));
    if (H5Dread(d.get(), H5T_NATIVE_DOUBLE, info->shape.empty() ? H5S_ALL : ms.get(),
                info->shape.empty() ? H5S_ALL : fs.get(), H5P_DEFAULT, out.data()) < 0)
        return Error{"read failed for " + info->path};
    return out;
}

}  // namespace ts::h5
