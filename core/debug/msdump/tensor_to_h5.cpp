#include "core/debug/msdump/tensor_to_h5.h"

#include <cstdio>
#include <cstring>

#include "core/debug/msdump/npy_file.h"

namespace ts::debug::msdump {

Result<std::string> copyNpy(const std::string& npyPath, DumpWriter& w, const std::string& op,
                            int64_t seqid, const std::string& io, int slot,
                            const DumpTensorAttrs& attrs) {
    auto r = npy::Reader::open(npyPath);
    if (!r) return Error{r.error()};
    const npy::Header& h = r.value()->header();
    std::vector<int64_t> shape(h.shape.begin(), h.shape.end());
    DumpDType t = DumpDType::F64;
    bool raw = !h.bigEndian && !(h.fortranOrder && h.shape.size() > 1);
    std::string note;
    switch (h.kind) {
        case 'f':
            t = h.itemSize == 2   ? DumpDType::F16
                : h.itemSize == 4 ? DumpDType::F32
                                  : DumpDType::F64;
            break;
        case 'i':
            t = h.itemSize == 1   ? DumpDType::I8
                : h.itemSize == 2 ? DumpDType::I16
                : h.itemSize == 4 ? DumpDType::I32
                                  : DumpDType::I64;
            break;
        case 'b':
            t = DumpDType::Bool;
            break;
        case 'u':
            if (h.itemSize == 1) {
                t = DumpDType::U8;
            } else {
                raw = false;
                t = h.itemSize == 8 ? DumpDType::F64 : DumpDType::I64;
                note = h.dtype + " shown as " + dumpDTypeName(t);
            }
            break;
        default:  // bfloat16
            raw = false;
            t = DumpDType::F32;
            note = "bfloat16 shown as float32";
            break;
    }
    if (raw) {
        const size_t bytes = static_cast<size_t>(h.count) * static_cast<size_t>(h.itemSize);
        std::vector<char> data(bytes);
        std::FILE* f = std::fopen(npyPath.c_str(), "rb");
        if (!f) return Error{"cannot open " + npyPath};
        const bool ok = std::fseek(f, static_cast<long>(h.dataOffset), SEEK_SET) == 0 &&
                        std::fread(data.data(), 1, bytes, f) == bytes;
        std::fclose(f);
        if (!ok) return Error{npyPath + ": short data"};
        if (auto s = w.writeTensor(op, seqid, io, slot, t, shape, data.data(), attrs); !s)
            return Error{s.error()};
        return note;
    }
    auto all = r.value()->readAll();
    if (!all) return Error{all.error()};
    if (auto s = writeValues(w, op, seqid, io, slot, shape,
                             t == DumpDType::F32   ? "float32"
                             : t == DumpDType::I64 ? "int64"
                                                   : "float64",
                             all.value(), attrs);
        !s)
        return Error{s.error()};
    return note;
}

Status writeValues(DumpWriter& w, const std::string& op, int64_t seqid, const std::string& io,
                   int slot, const std::vector<int64_t>& dims, const std::string& dtype,
                   const std::vector<double>& values, const DumpTensorAttrs& attrs) {
    if (dtype == "float32" || dtype == "float16" || dtype == "bfloat16") {
        std::vector<float> f(values.begin(), values.end());
        return w.writeTensor(op, seqid, io, slot, DumpDType::F32, dims, f.data(), attrs);
    }
    if (dtype.rfind("int", 0) == 0 || dtype.rfind("uint", 0) == 0 || dtype == "bool") {
        std::vector<int64_t> v(values.size());
        for (size_t i = 0; i < values.size(); ++i) v[i] = static_cast<int64_t>(values[i]);
        return w.writeTensor(op, seqid, io, slot, DumpDType::I64, dims, v.data(), attrs);
    }
    return w.writeTensor(op, seqid, io, slot, DumpDType::F64, dims, values.data(), attrs);
}

}  // namespace ts::debug::msdump
