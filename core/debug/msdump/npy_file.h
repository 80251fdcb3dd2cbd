#pragma once
// NumPy's .npy format as NumPy documents it (numpy.lib.format): the magic "\x93NUMPY", a
// version (1.0, 2.0 or 3.0), the header length (2 bytes in 1.0, 4 in 2.0/3.0) and a Python
// dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded to a
// multiple of 64, then the elements. Read here: booleans, signed and unsigned integers of 1,
// 2, 4 and 8 bytes, float16/32/64 in either byte order, and 2-byte void ('V2', how
// ml_dtypes saves bfloat16) as bfloat16; C and Fortran order. MindSpore's dumps write their
// .npy files with numpy (bfloat16 tensors as float32; statistic.csv keeps the device dtype).
// A bad magic or header, an unknown dtype, or data shorter than the shape needs is a clear
// error. No Qt.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/result.h"

namespace ts::debug::npy {

struct Header {
    std::string descr;  // as written, e.g. "<f4"
    std::string dtype;  // numpy name: "float32", "float16", "bfloat16", "int64", "bool"
    char kind = 0;      // 'f' float, 'i' int, 'u' unsigned, 'b' bool, 'V' bfloat16
    int itemSize = 0;   // bytes per element
    bool bigEndian = false;
    bool fortranOrder = false;
    std::vector<uint64_t> shape;  // empty: a scalar
    uint64_t count = 1;
    uint64_t dataOffset = 0;  // where the elements start
    int major = 1, minor = 0;
};

/// Limits: header text at most 1 MiB, at most 32 dimensions, at most 2^40 elements.
constexpr size_t kMaxHeaderBytes = size_t{1} << 20;
constexpr size_t kMaxDims = 32;

/// Parses the header at the start of `bytes` (which must hold the whole header).
Result<Header> parseHeader(std::string_view bytes);

/// Reads a .npy file's values as doubles in C order, a block at a time.
class Reader {
public:
    static Result<std::unique_ptr<Reader>> open(const std::string& path);
    ~Reader();
    Reader(const Reader&) = delete;
    Reader& operator=(const Reader&) = delete;
    const Header& header() const { return m_h; }
    const std::string& path() const { return m_path; }
    /// Up to `maxElements` next values (C order) into `out`; 0 at the end. Short data is an
    /// error naming how many bytes were expected. A Fortran-order array is transposed in
    /// memory on the first call (bounded by kMaxTransposeElements).
    Result<uint64_t> next(std::vector<double>& out, uint64_t maxElements = uint64_t{1} << 20);
    /// Every value (C order); error beyond `maxElements`.
    Result<std::vector<double>> readAll(uint64_t maxElements = uint64_t{1} << 28);
    static constexpr uint64_t kMaxTransposeElements = uint64_t{1} << 28;

private:
    Reader() = default;
    Status loadFortran();
    std::FILE* m_file = nullptr;
    std::string m_path;
    Header m_h;
    uint64_t m_done = 0;
    std::vector<double> m_cOrder;  // Fortran-order arrays, transposed
    bool m_transposed = false;
};

/// Converts raw elements of `h`'s dtype to doubles (n elements from `raw`).
void toDoubles(const Header& h, const char* raw, size_t n, double* out);

}  // namespace ts::debug::npy
