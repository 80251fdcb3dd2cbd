// Datatype descriptions and attribute rendering for ts::h5::File.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/hdf5/h5_file.h"

namespace ts::h5 {
namespace {

std::string fmtDouble(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

constexpr size_t kMaxShown = 16;

}  // namespace

std::string describeType(hid_t type, ValueClass* cls, std::string* detail) {
    ValueClass c = ValueClass::Other;
    std::string name;
    const size_t size = H5Tget_size(type);
    switch (H5Tget_class(type)) {
        case H5T_INTEGER: {
            c = ValueClass::Integer;
            name = std::string(H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") +
                   std::to_string(size * 8);
            if (detail && size > 1 && H5Tget_order(type) == H5T_ORDER_BE) *detail = "big-endian";
            break;
        }
        case H5T_FLOAT: {
            c = ValueClass::Float;
            name = "float" + std::to_string(size * 8);  // float16 is a custom 2-byte float
            if (detail && H5Tget_order(type) == H5T_ORDER_BE) *detail = "big-endian";
            break;
        }
        case H5T_STRING: {
            c = ValueClass::String;
            name = H5Tis_variable_str(type) > 0 ? "string (vlen)"
                                                : "string (fixed " + std::to_string(size) + ")";
            break;
        }
        case H5T_ENUM: {
            int n = H5Tget_nmembers(type);
            bool isBool = n == 2;
            std::string members;
            for (int i = 0; i < n; ++i) {
                char* m = H5Tget_member_name(type, static_cast<unsigned>(i));
                if (m) {
                    if (!members.empty()) members += ", ";
                    members += m;
                    if (isBool && std::strcmp(m, i == 0 ? "FALSE" : "TRUE") != 0) isBool = false;
                    H5free_memory(m);
                }
            }
            c = isBool ? ValueClass::Bool : ValueClass::Enum;
            name = isBool ? "bool" : "enum";
            if (detail) *detail = "{" + members + "}";
            break;
        }
        case H5T_COMPOUND: {
            c = ValueClass::Compound;
            name = "compound";
            std::string fields;
            int n = H5Tget_nmembers(type);
            for (int i = 0; i < n; ++i) {
                char* m = H5Tget_member_name(type, static_cast<unsigned>(i));
                H5Id mt(H5Tget_member_type(type, static_cast<unsigned>(i)));
                if (!fields.empty()) fields += ", ";
                fields +=
                    std::string(m ? m : "?") + ": " + (mt.valid() ? describeType(mt.get()) : "?");
                if (m) H5free_memory(m);
            }
            if (detail) *detail = "{" + fields + "}";
            break;
        }
        case H5T_ARRAY: {
            H5Id base(H5Tget_super(type));
            int nd = H5Tget_array_ndims(type);
            std::vector<hsize_t> d(static_cast<size_t>(std::max(nd, 0)));
            if (nd > 0) H5Tget_array_dims2(type, d.data());
            std::string dims;
            for (auto v : d) dims += (dims.empty() ? "" : ",") + std::to_string(v);
            name = "array[" + dims + "] of " + (base.valid() ? describeType(base.get()) : "?");
            break;
        }
        case H5T_VLEN:
            name = "vlen sequence";
            break;
        case H5T_OPAQUE:
            name = "opaque (" + std::to_string(size) + " bytes)";
            break;
        case H5T_BITFIELD:
            name = "bitfield" + std::to_string(size * 8);
            break;
        case H5T_REFERENCE:
            name = "reference";
            break;
        case H5T_TIME:
            name = "time";
            break;
        default:
            name = "unknown";
            break;
    }
    if (cls) *cls = c;
    return name;
}

Result<std::vector<Attribute>> File::attributes(const std::string& path) const {
    std::string p = "/";
    size_t a0 = 0;
    while (a0 < path.size() && path[a0] == '/') ++a0;
    p += path.substr(a0);
    H5Id obj(H5Oopen(m_file.get(), p.c_str(), H5P_DEFAULT));
    if (!obj.valid()) return Error{"cannot open object " + p};
    H5O_info_t oi;
    if (H5Oget_info2(obj.get(), &oi, H5O_INFO_NUM_ATTRS) < 0)
        return Error{"cannot read object " + p};
    std::vector<Attribute> out;
    for (hsize_t i = 0; i < oi.num_attrs; ++i) {
        H5Id a(H5Aopen_by_idx(obj.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT,
                              H5P_DEFAULT));
        if (!a.valid()) continue;
        Attribute at;
        ssize_t len = H5Aget_name(a.get(), 0, nullptr);
        at.name.assign(static_cast<size_t>(std::max<ssize_t>(len, 0)), '\0');
        if (len > 0) H5Aget_name(a.get(), at.name.size() + 1, at.name.data());
        H5Id t(H5Aget_type(a.get()));
        H5Id s(H5Aget_space(a.get()));
        ValueClass cls;
        std::string detail;
        at.dtype = describeType(t.get(), &cls, &detail);
        hssize_t n = H5Sget_simple_extent_npoints(s.get());
        if (n < 0) n = 0;
        const bool array = H5Sget_simple_extent_ndims(s.get()) > 0;
        std::string v;
        if (cls == ValueClass::Float || cls == ValueClass::Integer || cls == ValueClass::Bool) {
            std::vector<double> vals(static_cast<size_t>(n));
            if (n > 0 && H5Aread(a.get(), H5T_NATIVE_DOUBLE, vals.data()) < 0) {
                v = "<unreadable>";
            } else {
                for (size_t k = 0; k < vals.size() && k < kMaxShown; ++k)
                    v += (k ? ", " : "") + (cls == ValueClass::Bool
                                                ? (vals[k] != 0 ? std::string("True") : "False")
                                                : fmtDouble(vals[k]));
                if (vals.size() > kMaxShown) v += ", ...";
            }
        } else if (cls == ValueClass::String) {
            if (H5Tis_variable_str(t.get()) > 0) {
                std::vector<char*> strs(static_cast<size_t>(n), nullptr);
                H5Id mt(H5Tcopy(H5T_C_S1));
                H5Tset_size(mt.get(), H5T_VARIABLE);
                H5Tset_cset(mt.get(), H5Tget_cset(t.get()));
                if (n > 0 && H5Aread(a.get(), mt.get(), strs.data()) >= 0) {
                    for (size_t k = 0; k < strs.size(); ++k) {
                        if (k < kMaxShown)
                            v +=
                                std::string(k ? ", " : "") + "\"" + (strs[k] ? strs[k] : "") + "\"";
                    }
                    if (strs.size() > kMaxShown) v += ", ...";
                    H5Dvlen_reclaim(mt.get(), s.get(), H5P_DEFAULT, strs.data());
                } else {
                    v = "<unreadable>";
                }
            } else {
                size_t sz = H5Tget_size(t.get());
                std::vector<char> buf(sz * static_cast<size_t>(n) + 1, '\0');
                if (n > 0 && H5Aread(a.get(), t.get(), buf.data()) >= 0) {
                    for (size_t k = 0; k < static_cast<size_t>(n) && k < kMaxShown; ++k) {
                        std::string e(buf.data() + k * sz, sz);
                        e = e.substr(0, e.find('\0'));
                        v += std::string(k ? ", " : "") + "\"" + e + "\"";
                    }
                    if (static_cast<size_t>(n) > kMaxShown) v += ", ...";
                } else {
                    v = "<unreadable>";
                }
            }
        } else {
            v = "<" + at.dtype + (detail.empty() ? "" : " " + detail) + ", " + std::to_string(n) +
                " value(s)>";
        }
        at.value = array && n != 1 ? "[" + v + "]" : v;
        out.push_back(std::move(at));
    }
    return out;
}

}  // namespace ts::h5
