#include "core/debug/dump_writer.h"

#include <filesystem>

namespace ts::debug {
namespace {

// Out of line so g++ 12 does not warn falsely (-Warray-bounds) on inlined concatenation.
[[gnu::noinline]] Status attrError(const char* what, const char* name) {
    std::string msg(what);
    msg.append(name);
    return Error{msg};
}

hid_t fileType(DumpDType t, hid_t f16) {
    switch (t) {
        case DumpDType::F16:
            return f16;
        case DumpDType::F32:
            return H5T_IEEE_F32LE;
        case DumpDType::F64:
            return H5T_IEEE_F64LE;
        case DumpDType::I8:
            return H5T_STD_I8LE;
        case DumpDType::I16:
            return H5T_STD_I16LE;
        case DumpDType::I32:
            return H5T_STD_I32LE;
        case DumpDType::I64:
            return H5T_STD_I64LE;
        case DumpDType::U8:
            return H5T_STD_U8LE;
        case DumpDType::Bool:
            return H5T_STD_I8LE;  // replaced by the enum in writeTensor
    }
    return H5T_IEEE_F32LE;
}

hid_t memType(DumpDType t, hid_t f16) {
    switch (t) {
        case DumpDType::F16:
            return f16;
        case DumpDType::F32:
            return H5T_NATIVE_FLOAT;
        case DumpDType::F64:
            return H5T_NATIVE_DOUBLE;
        case DumpDType::I8:
            return H5T_NATIVE_INT8;
        case DumpDType::I16:
            return H5T_NATIVE_INT16;
        case DumpDType::I32:
            return H5T_NATIVE_INT32;
        case DumpDType::I64:
            return H5T_NATIVE_INT64;
        case DumpDType::U8:
            return H5T_NATIVE_UINT8;
        case DumpDType::Bool:
            return H5T_NATIVE_INT8;
    }
    return H5T_NATIVE_FLOAT;
}

Status writeStringAttr(hid_t obj, const char* name, const std::string& value) {
    h5::H5Id type(H5Tcopy(H5T_C_S1));
    H5Tset_size(type.get(), H5T_VARIABLE);
    H5Tset_cset(type.get(), H5T_CSET_UTF8);
    h5::H5Id space(H5Screate(H5S_SCALAR));
    h5::H5Id attr(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
    if (!attr.valid()) return attrError("cannot create attribute ", name);
    const char* p = value.c_str();
    if (H5Awrite(attr.get(), type.get(), &p) < 0) return attrError("cannot write attribute ", name);
    return {};
}

template <class T>
Status writeScalarAttr(hid_t obj, const char* name, hid_t fileT, hid_t memT, T value) {
    h5::H5Id space(H5Screate(H5S_SCALAR));
    h5::H5Id attr(H5Acreate2(obj, name, fileT, space.get(), H5P_DEFAULT, H5P_DEFAULT));
    if (!attr.valid() || H5Awrite(attr.get(), memT, &value) < 0)
        return attrError("cannot write attribute ", name);
    return {};
}

}  // namespace

const char* dumpDTypeName(DumpDType t) {
    switch (t) {
        case DumpDType::F16:
            return "float16";
        case DumpDType::F32:
            return "float32";
        case DumpDType::F64:
            return "float64";
        case DumpDType::I8:
            return "int8";
        case DumpDType::I16:
            return "int16";
        case DumpDType::I32:
            return "int32";
        case DumpDType::I64:
            return "int64";
        case DumpDType::U8:
            return "uint8";
        case DumpDType::Bool:
            return "bool";
    }
    return "?";
}

size_t dumpDTypeSize(DumpDType t) {
    switch (t) {
        case DumpDType::F16:
        case DumpDType::I16:
            return 2;
        case DumpDType::F32:
        case DumpDType::I32:
            return 4;
        case DumpDType::F64:
        case DumpDType::I64:
            return 8;
        default:
            return 1;
    }
}

DumpWriter::DumpWriter() {
    h5::silenceHdf5Errors();
}
DumpWriter::~DumpWriter() {
    (void)close();
}

Status DumpWriter::open(const std::string& path) {
    (void)close();
    std::error_code ec;
    auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    m_gcpl = h5::H5Id(H5Pcreate(H5P_GROUP_CREATE));
    H5Pset_link_creation_order(m_gcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    h5::H5Id fcpl(H5Pcreate(H5P_FILE_CREATE));
    H5Pset_link_creation_order(fcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    m_file = h5::H5Id(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT));
    if (!m_file.valid()) return Error{"cannot create HDF5 dump file " + path};
    m_f16 = h5::ieeeHalfType();
    m_path = path;
    m_bytes = 0;
    return writeStringAttr(m_file.get(), "dump_format", "op/seqid/{input,output}/i");
}

Result<hid_t> DumpWriter::ensureGroup(const std::string& path, bool isSeqGroup, int64_t seqid,
                                      int64_t globalSeq) {
    htri_t exists = H5Lexists(m_file.get(), path.c_str(), H5P_DEFAULT);
    if (exists > 0) {
        hid_t g = H5Gopen2(m_file.get(), path.c_str(), H5P_DEFAULT);
        if (g < 0) return Error{"cannot open group " + path};
        return g;
    }
    hid_t g = H5Gcreate2(m_file.get(), path.c_str(), H5P_DEFAULT, m_gcpl.get(), H5P_DEFAULT);
    if (g < 0) return Error{"cannot create group " + path};
    if (isSeqGroup) {
        auto s = writeScalarAttr(g, "seq_id", H5T_STD_I64LE, H5T_NATIVE_INT64, seqid);
        if (s) s = writeScalarAttr(g, "global_seq", H5T_STD_I64LE, H5T_NATIVE_INT64, globalSeq);
        if (!s) {
            H5Gclose(g);
            return Error{s.error()};
        }
    }
    return g;
}

Status DumpWriter::writeTensor(const std::string& opName, int64_t seqid, const std::string& io,
                               int slot, DumpDType dtype, const std::vector<int64_t>& shape,
                               const void* data, const DumpTensorAttrs& attrs) {
    if (!m_file.valid()) return Error{"dump writer is not open"};
    if (io != "input" && io != "output") return Error{"io must be \"input\" or \"output\""};
    if (opName.empty() || opName.find('/') != std::string::npos || opName == ".")
        return Error{"op name must be non-empty and contain no '/': \"" + opName + "\""};
    if (slot < 0 || seqid < 0) return Error{"negative slot or seqid"};
    std::vector<hsize_t> dims;
    uint64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0) return Error{"negative dimension"};
        dims.push_back(static_cast<hsize_t>(d));
        n *= static_cast<uint64_t>(d);
    }
    if (n > 0 && !data) return Error{"null tensor data"};
    const std::string opPath = "/" + opName;
    const std::string seqPath = opPath + "/" + std::to_string(seqid);
    const std::string ioPath = seqPath + "/" + io;
    // The tensors of one op come one after the other: keep its <io> group open between them.
    if (!m_ioGroup.valid() || m_ioPath != ioPath) {
        m_ioGroup.reset();
        m_ioPath.clear();
        auto g1 = ensureGroup(opPath, false, 0, 0);
        if (!g1) return Error{g1.error()};
        h5::H5Id op(g1.value());
        auto g2 = ensureGroup(seqPath, true, seqid, attrs.globalSeq);
        if (!g2) return Error{g2.error()};
        h5::H5Id seq(g2.value());
        auto g3 = ensureGroup(ioPath, false, 0, 0);
        if (!g3) return Error{g3.error()};
        m_ioGroup = h5::H5Id(g3.value());
        m_ioPath = ioPath;
    }
    const h5::H5Id& ioGroup = m_ioGroup;
    const std::string name = std::to_string(slot);
    if (H5Lexists(ioGroup.get(), name.c_str(), H5P_DEFAULT) > 0)
        return Error{"tensor already dumped: " + ioPath.substr(1) + "/" + name};

    h5::H5Id space(shape.empty()
                       ? H5Screate(H5S_SCALAR)
                       : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    h5::H5Id boolType;
    hid_t ft = fileType(dtype, m_f16.get());
    hid_t mt = memType(dtype, m_f16.get());
    if (dtype == DumpDType::Bool) {  // h5py's bool: enum of int8 {FALSE=0, TRUE=1}
        boolType = h5::H5Id(H5Tenum_create(H5T_NATIVE_INT8));
        int8_t v0 = 0, v1 = 1;
        H5Tenum_insert(boolType.get(), "FALSE", &v0);
        H5Tenum_insert(boolType.get(), "TRUE", &v1);
        ft = mt = boolType.get();
    }
    h5::H5Id dset(H5Dcreate2(ioGroup.get(), name.c_str(), ft, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT));
    if (!dset.valid()) return Error{"cannot create dataset " + ioPath + "/" + name};
    if (n > 0 && H5Dwrite(dset.get(), mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        return Error{"cannot write dataset " + ioPath + "/" + name};
    hid_t d = dset.get();
    Status s = writeStringAttr(d, "op_type", attrs.opType);
    if (s) s = writeStringAttr(d, "scope", attrs.scope);
    if (s) s = writeStringAttr(d, "dtype", dumpDTypeName(dtype));
    if (s) s = writeStringAttr(d, "direction", attrs.backward ? "backward" : "forward");
    if (s) s = writeScalarAttr(d, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, attrs.step);
    if (s) s = writeScalarAttr(d, "wall_time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, attrs.wallTime);
    if (s) s = writeScalarAttr(d, "global_seq", H5T_STD_I64LE, H5T_NATIVE_INT64, attrs.globalSeq);
    if (s) {
        hsize_t rank = dims.size();
        h5::H5Id sp(H5Screate_simple(1, &rank, nullptr));
        h5::H5Id attr(H5Acreate2(d, "shape", H5T_STD_I64LE, sp.get(), H5P_DEFAULT, H5P_DEFAULT));
        if (!attr.valid() || (rank > 0 && H5Awrite(attr.get(), H5T_NATIVE_INT64, shape.data()) < 0))
            s = Error{"cannot write attribute shape"};
    }
    if (!s) return s;
    m_bytes += n * dumpDTypeSize(dtype);
    return {};
}

Status DumpWriter::close() {
    if (!m_file.valid()) return {};
    m_ioGroup.reset();
    m_ioPath.clear();
    herr_t rc = H5Fflush(m_file.get(), H5F_SCOPE_LOCAL);
    m_f16.reset();
    m_gcpl.reset();
    m_file.reset();
    if (rc < 0) return Error{"cannot flush " + m_path};
    return {};
}

}  // namespace ts::debug
