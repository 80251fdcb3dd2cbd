#include "core/hdf5/h5_text.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace ts::h5 {
namespace {

constexpr size_t kMaxItems = 16;  // array / sequence members shown

std::string fmtFloat(double v, int digits) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

std::string fmtInteger(hid_t type, const unsigned char* p) {
    const size_t size = H5Tget_size(type);
    const bool sign = H5Tget_sign(type) != H5T_SGN_NONE;
    char buf[32];
    if (sign) {
        int64_t v = 0;
        if (size == 1) {
            int8_t x;
            std::memcpy(&x, p, 1);
            v = x;
        } else if (size == 2) {
            int16_t x;
            std::memcpy(&x, p, 2);
            v = x;
        } else if (size == 4) {
            int32_t x;
            std::memcpy(&x, p, 4);
            v = x;
        } else if (size == 8) {
            std::memcpy(&v, p, 8);
        } else {
            return "?";
        }
        std::snprintf(buf, sizeof buf, "%" PRId64, v);
    } else {
        uint64_t v = 0;
        if (size <= 8) {
            std::memcpy(&v, p, size);  // little-endian host: the low bytes
        } else {
            return "?";
        }
        std::snprintf(buf, sizeof buf, "%" PRIu64, v);
    }
    return buf;
}

std::string hex(const unsigned char* p, size_t n) {
    static const char* d = "0123456789abcdef";
    std::string s = "0x";
    for (size_t i = 0; i < n && i < 32; ++i) {
        s += d[p[i] >> 4];
        s += d[p[i] & 15];
    }
    if (n > 32) s += "...";
    return s;
}

std::string fixedString(const unsigned char* p, size_t n) {
    size_t len = 0;
    while (len < n && p[len] != 0) ++len;
    std::string s(reinterpret_cast<const char*>(p), len);
    while (!s.empty() && s.back() == ' ') s.pop_back();  // space-padded strings
    return s;
}

bool containsVlen(hid_t type) {
    if (H5Tis_variable_str(type) > 0) return true;
    return H5Tdetect_class(type, H5T_VLEN) > 0;
}

}  // namespace

std::string formatElement(hid_t type, const unsigned char* p) {
    switch (H5Tget_class(type)) {
        case H5T_INTEGER:
            return fmtInteger(type, p);
        case H5T_FLOAT: {
            const size_t size = H5Tget_size(type);
            if (size == sizeof(float)) {
                float f;
                std::memcpy(&f, p, sizeof f);
                return fmtFloat(f, 7);
            }
            if (size == sizeof(double)) {
                double f;
                std::memcpy(&f, p, sizeof f);
                return fmtFloat(f, 15);
            }
            if (size == sizeof(long double)) {
                long double f;
                std::memcpy(&f, p, sizeof f);
                return fmtFloat(static_cast<double>(f), 18);
            }
            return "?";
        }
        case H5T_STRING: {
            if (H5Tis_variable_str(type) > 0) {
                const char* s = nullptr;
                std::memcpy(&s, p, sizeof s);
                return s ? std::string(s) : std::string();
            }
            return fixedString(p, H5Tget_size(type));
        }
        case H5T_ENUM: {
            char name[256] = {};
            if (H5Tenum_nameof(type, p, name, sizeof name) < 0) {
                H5Id base(H5Tget_super(type));
                return base.valid() ? formatElement(base.get(), p) : "?";
            }
            if (H5Tget_nmembers(type) == 2) {  // h5py's bool
                if (std::strcmp(name, "TRUE") == 0) return "True";
                if (std::strcmp(name, "FALSE") == 0) return "False";
            }
            return name;
        }
        case H5T_COMPOUND: {
            std::string s = "{";
            const int n = H5Tget_nmembers(type);
            for (int i = 0; i < n; ++i) {
                const auto u = static_cast<unsigned>(i);
                char* m = H5Tget_member_name(type, u);
                H5Id mt(H5Tget_member_type(type, u));
                const size_t off = H5Tget_member_offset(type, u);
                if (i) s += ", ";
                s += m ? m : "?";
                s += ": ";
                if (m) H5free_memory(m);
                if (!mt.valid()) {
                    s += "?";
                    continue;
                }
                const bool str = H5Tget_class(mt.get()) == H5T_STRING;
                if (str) s += '"';
                s += formatElement(mt.get(), p + off);
                if (str) s += '"';
            }
            return s + "}";
        }
        case H5T_ARRAY: {
            H5Id base(H5Tget_super(type));
            if (!base.valid()) return "?";
            const size_t bs = H5Tget_size(base.get());
            const size_t n = bs ? H5Tget_size(type) / bs : 0;
            std::string s = "[";
            for (size_t i = 0; i < n && i < kMaxItems; ++i) {
                if (i) s += ", ";
                s += formatElement(base.get(), p + i * bs);
            }
            if (n > kMaxItems) s += ", ...";
            return s + "]";
        }
        case H5T_VLEN: {
            H5Id base(H5Tget_super(type));
            hvl_t v;
            std::memcpy(&v, p, sizeof v);
            if (!base.valid()) return "?";
            const size_t bs = H5Tget_size(base.get());
            const auto* q = static_cast<const unsigned char*>(v.p);
            std::string s = "[";
            for (size_t i = 0; q && i < v.len && i < kMaxItems; ++i) {
                if (i) s += ", ";
                s += formatElement(base.get(), q + i * bs);
            }
            if (v.len > kMaxItems) s += ", ...";
            return s + "]";
        }
        case H5T_OPAQUE:
        case H5T_BITFIELD:
            return hex(p, H5Tget_size(type));
        case H5T_REFERENCE:
            return "<reference>";
        default:
            return "?";
    }
}

Result<std::vector<std::string>> readHyperslabText(const File& file, const std::string& path,
                                                   const std::vector<uint64_t>& start,
                                                   const std::vector<uint64_t>& count,
                                                   const std::vector<uint64_t>& stride) {
    auto info = file.datasetInfo(path);
    if (!info) return Error{info.error()};
    const std::string p = "/" + info->path;
    H5Id d(H5Dopen2(file.id(), p.c_str(), H5P_DEFAULT));
    H5Id ft(d.valid() ? H5Dget_type(d.get()) : H5I_INVALID_HID);
    H5Id fs(d.valid() ? H5Dget_space(d.get()) : H5I_INVALID_HID);
    if (!ft.valid() || !fs.valid()) return Error{"cannot open dataset " + info->path};
    const size_t rank = info->shape.size();
    if (start.size() != rank || count.size() != rank || (!stride.empty() && stride.size() != rank))
        return Error{"slice rank does not match dataset rank"};
    uint64_t n = 1;
    for (size_t k = 0; k < rank; ++k) {
        const uint64_t st = stride.empty() ? 1 : std::max<uint64_t>(1, stride[k]);
        if (count[k] > 0 && start[k] + (count[k] - 1) * st >= info->shape[k])
            return Error{"slice outside the dataset"};
        n *= count[k];
    }
    if (n > (uint64_t{1} << 22)) return Error{"slice too large"};
    std::vector<std::string> out;
    if (n == 0 || info->count == 0) return out;
    H5Id mt(H5Tget_native_type(ft.get(), H5T_DIR_ASCEND));
    if (!mt.valid()) return Error{"no memory type for " + info->dtype};
    const size_t es = H5Tget_size(mt.get());
    std::vector<unsigned char> buf(n * es);
    H5Id ms;
    if (rank > 0) {
        std::vector<hsize_t> s(start.begin(), start.end()), c(count.begin(), count.end()), t;
        if (!stride.empty()) t.assign(stride.begin(), stride.end());
        if (H5Sselect_hyperslab(fs.get(), H5S_SELECT_SET, s.data(), t.empty() ? nullptr : t.data(),
                                c.data(), nullptr) < 0)
            return Error{"bad selection"};
        hsize_t mn = n;
        ms = H5Id(H5Screate_simple(1, &mn, nullptr));
    } else {
        ms = H5Id(H5Screate(H5S_SCALAR));
    }
    if (H5Dread(d.get(), mt.get(), ms.get(), rank > 0 ? fs.get() : H5S_ALL, H5P_DEFAULT,
                buf.data()) < 0)
        return Error{"read failed for " + info->path + " (damaged data or missing filter)"};
    out.reserve(n);
    for (uint64_t i = 0; i < n; ++i) out.push_back(formatElement(mt.get(), buf.data() + i * es));
    if (containsVlen(mt.get())) H5Dvlen_reclaim(mt.get(), ms.get(), H5P_DEFAULT, buf.data());
    return out;
}

}  // namespace ts::h5
