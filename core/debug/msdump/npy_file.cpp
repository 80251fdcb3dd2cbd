#include "core/debug/msdump/npy_file.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "core/engine/tensor/tensor.h"

namespace ts::debug::npy {
namespace {

constexpr uint64_t kMaxElements = uint64_t{1} << 40;

/// A tiny reader of the Python literal NumPy writes (a dict of str -> str | bool | tuple).
class Literal {
public:
    explicit Literal(std::string_view s) : m_s(s) {}
    void ws() {
        while (m_p < m_s.size() && std::isspace(static_cast<unsigned char>(m_s[m_p]))) ++m_p;
    }
    bool eat(char c) {
        ws();
        if (m_p < m_s.size() && m_s[m_p] == c) {
            ++m_p;
            return true;
        }
        return false;
    }
    bool peek(char c) {
        ws();
        return m_p < m_s.size() && m_s[m_p] == c;
    }
    bool string(std::string& out) {
        ws();
        if (m_p >= m_s.size() || (m_s[m_p] != '\'' && m_s[m_p] != '"')) return false;
        const char q = m_s[m_p++];
        out.clear();
        while (m_p < m_s.size() && m_s[m_p] != q) {
            if (out.size() > 256) return false;
            out.push_back(m_s[m_p++]);
        }
        if (m_p >= m_s.size()) return false;
        ++m_p;
        return true;
    }
    bool word(std::string& out) {
        ws();
        out.clear();
        while (m_p < m_s.size() && std::isalpha(static_cast<unsigned char>(m_s[m_p])) &&
               out.size() < 16)
            out.push_back(m_s[m_p++]);
        return !out.empty();
    }
    bool integer(uint64_t& v) {
        ws();
        if (m_p >= m_s.size() || !std::isdigit(static_cast<unsigned char>(m_s[m_p]))) return false;
        v = 0;
        while (m_p < m_s.size() && std::isdigit(static_cast<unsigned char>(m_s[m_p]))) {
            if (v > kMaxElements) return false;
            v = v * 10 + static_cast<uint64_t>(m_s[m_p++] - '0');
        }
        if (m_p < m_s.size() && m_s[m_p] == 'L') ++m_p;  // Python 2 longs
        return true;
    }
    size_t pos() const { return m_p; }

private:
    std::string_view m_s;
    size_t m_p = 0;
};

Status parseDescr(const std::string& d, Header& h) {
    if (d.size() < 2) return Error{"unsupported dtype '" + d + "'"};
    if (d == "bfloat16") {
        h.kind = 'V';
        h.itemSize = 2;
        h.dtype = "bfloat16";
        return {};
    }
    const char order = d[0];
    std::string rest = d.substr(1);
    if (order != '<' && order != '>' && order != '|' && order != '=')
        return Error{"unsupported dtype '" + d + "' (no byte order)"};
    h.bigEndian = order == '>';
    const char kind = rest[0];
    uint64_t size = 0;
    for (size_t i = 1; i < rest.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(rest[i])) || size > 64)
            return Error{"unsupported dtype '" + d + "'"};
        size = size * 10 + static_cast<uint64_t>(rest[i] - '0');
    }
    h.itemSize = static_cast<int>(size);
    h.kind = kind;
    auto bad = [&] { return Error{"unsupported dtype '" + d + "'"}; };
    switch (kind) {
        case 'f':
            if (size != 2 && size != 4 && size != 8) return bad();
            h.dtype = "float" + std::to_string(size * 8);
            return {};
        case 'i':
            if (size != 1 && size != 2 && size != 4 && size != 8) return bad();
            h.dtype = "int" + std::to_string(size * 8);
            return {};
        case 'u':
            if (size != 1 && size != 2 && size != 4 && size != 8) return bad();
            h.dtype = "uint" + std::to_string(size * 8);
            return {};
        case 'b':
            if (size != 1) return bad();
            h.dtype = "bool";
            return {};
        case 'V':
            if (size != 2) return bad();
            h.dtype = "bfloat16";
            return {};
        default:
            return Error{"unsupported dtype '" + d +
                         "' (complex, string and object arrays "
                         "are not tensors the studio reads)"};
    }
}

template <class T>
T load(const char* p, bool swap) {
    char b[sizeof(T)];
    std::memcpy(b, p, sizeof(T));
    if (swap)
        for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
}

}  // namespace

Result<Header> parseHeader(std::string_view bytes) {
    if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
        return Error{"not a .npy file (no \\x93NUMPY magic)"};
    Header h;
    h.major = static_cast<unsigned char>(bytes[6]);
    h.minor = static_cast<unsigned char>(bytes[7]);
    uint64_t len = 0;
    size_t start = 0;
    if (h.major == 1) {
        len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
        start = 10;
    } else if (h.major == 2 || h.major == 3) {
        if (bytes.size() < 12) return Error{".npy header cut short"};
        for (int i = 3; i >= 0; --i) len = (len << 8) | static_cast<unsigned char>(bytes[8 + i]);
        start = 12;
    } else {
        return Error{".npy version " + std::to_string(h.major) + "." + std::to_string(h.minor) +
                     " is not one NumPy writes (1.0, 2.0, 3.0)"};
    }
    if (len > kMaxHeaderBytes) return Error{".npy header longer than 1 MiB"};
    if (bytes.size() < start + len)
        return Error{".npy header cut short (" + std::to_string(len) + " bytes announced)"};
    h.dataOffset = start + len;
    Literal lit(bytes.substr(start, len));
    if (!lit.eat('{')) return Error{".npy header is not a dict literal"};
    bool haveDescr = false, haveOrder = false, haveShape = false;
    while (!lit.eat('}')) {
        std::string key;
        if (!lit.string(key) || !lit.eat(':')) return Error{".npy header: malformed key"};
        if (key == "descr") {
            std::string d;
            if (!lit.string(d))
                return Error{
                    ".npy header: 'descr' is not a string (structured "
                    "arrays are not tensors the studio reads)"};
            h.descr = d;
            if (auto s = parseDescr(d, h); !s) return Error{s.error()};
            haveDescr = true;
        } else if (key == "fortran_order") {
            std::string w;
            if (!lit.word(w) || (w != "True" && w != "False"))
                return Error{".npy header: 'fortran_order' is not True or False"};
            h.fortranOrder = w == "True";
            haveOrder = true;
        } else if (key == "shape") {
            if (!lit.eat('(')) return Error{".npy header: 'shape' is not a tuple"};
            while (!lit.eat(')')) {
                uint64_t d = 0;
                if (!lit.integer(d)) return Error{".npy header: 'shape' holds a non-integer"};
                if (h.shape.size() >= kMaxDims)
                    return Error{".npy shape of more than 32 dimensions"};
                h.shape.push_back(d);
                if (!lit.eat(',') && !lit.peek(')'))
                    return Error{".npy header: malformed 'shape' tuple"};
            }
            haveShape = true;
        } else {
            return Error{".npy header: unknown key '" + key + "'"};
        }
        if (!lit.eat(',') && !lit.peek('}')) return Error{".npy header: malformed dict"};
    }
    if (!haveDescr || !haveOrder || !haveShape)
        return Error{".npy header lacks 'descr', 'fortran_order' or 'shape'"};
    h.count = 1;
    for (uint64_t d : h.shape) {
        if (d != 0 && h.count > kMaxElements / d) return Error{".npy shape too large"};
        h.count *= d;
    }
    return h;
}

void toDoubles(const Header& h, const char* raw, size_t n, double* out) {
    const bool swap = h.bigEndian && h.itemSize > 1;
    const size_t sz = static_cast<size_t>(h.itemSize);
    for (size_t i = 0; i < n; ++i) {
        const char* p = raw + i * sz;
        double v = 0;
        switch (h.kind) {
            case 'f':
                if (sz == 2)
                    v = engine::halfToFloat(load<uint16_t>(p, swap));
                else if (sz == 4)
                    v = load<float>(p, swap);
                else
                    v = load<double>(p, swap);
                break;
            case 'V': {
                const uint32_t bits = uint32_t{load<uint16_t>(p, swap)} << 16;
                float f;
                std::memcpy(&f, &bits, 4);
                v = f;
                break;
            }
            case 'b':
                v = *p ? 1.0 : 0.0;
                break;
            case 'i':
                v = sz == 1   ? static_cast<double>(static_cast<int8_t>(*p))
                    : sz == 2 ? static_cast<double>(load<int16_t>(p, swap))
                    : sz == 4 ? static_cast<double>(load<int32_t>(p, swap))
                              : static_cast<double>(load<int64_t>(p, swap));
                break;
            default:  // 'u'
                v = sz == 1   ? static_cast<double>(static_cast<uint8_t>(*p))
                    : sz == 2 ? static_cast<double>(load<uint16_t>(p, swap))
                    : sz == 4 ? static_cast<double>(load<uint32_t>(p, swap))
                              : static_cast<double>(load<uint64_t>(p, swap));
                break;
        }
        out[i] = v;
    }
}

Result<std::unique_ptr<Reader>> Reader::open(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return Error{"cannot open " + path};
    std::unique_ptr<Reader> r(new Reader());
    r->m_file = f;
    r->m_path = path;
    std::string head(12, '\0');
    const size_t got = std::fread(head.data(), 1, head.size(), f);
    head.resize(got);
    // The first 12 bytes give the header length; read the whole header, then parse.
    if (got >= 10 && std::memcmp(head.data(), "\x93NUMPY", 6) == 0) {
        const int major = static_cast<unsigned char>(head[6]);
        uint64_t len = 0;
        size_t start = 10;
        if (major == 1) {
            len = static_cast<unsigned char>(head[8]) | (static_cast<unsigned char>(head[9]) << 8);
        } else if (got >= 12) {
            for (int i = 3; i >= 0; --i) len = (len << 8) | static_cast<unsigned char>(head[8 + i]);
            start = 12;
        }
        if (len <= kMaxHeaderBytes && start + len > got) {
            head.resize(start + len);
            const size_t more = std::fread(head.data() + got, 1, start + len - got, f);
            head.resize(got + more);
        }
    }
    auto h = parseHeader(head);
    if (!h) return Error{path + ": " + h.error()};
    r->m_h = h.value();
    // The data must be all there: the file size tells before any value is read.
    if (std::fseek(f, 0, SEEK_END) != 0) return Error{path + ": cannot seek"};
    const long size = std::ftell(f);
    const uint64_t need = r->m_h.count * static_cast<uint64_t>(r->m_h.itemSize);
    if (size < 0 || static_cast<uint64_t>(size) < r->m_h.dataOffset + need)
        return Error{path + ": short data: " + std::to_string(need) + " bytes of " + r->m_h.dtype +
                     " expected after the header, " +
                     std::to_string(size < 0 ? 0
                                             : static_cast<uint64_t>(size) -
                                                   std::min<uint64_t>(static_cast<uint64_t>(size),
                                                                      r->m_h.dataOffset)) +
                     " present"};
    if (std::fseek(f, static_cast<long>(r->m_h.dataOffset), SEEK_SET) != 0)
        return Error{path + ": cannot seek to the data"};
    return r;
}

Reader::~Reader() {
    if (m_file) std::fclose(m_file);
}

Status Reader::loadFortran() {
    if (m_h.count > kMaxTransposeElements)
        return Error{m_path + ": Fortran-order array too large to transpose in memory"};
    std::vector<char> raw(static_cast<size_t>(m_h.count) * static_cast<size_t>(m_h.itemSize));
    if (std::fread(raw.data(), 1, raw.size(), m_file) != raw.size())
        return Error{m_path + ": short data"};
    std::vector<double> f(static_cast<size_t>(m_h.count));
    toDoubles(m_h, raw.data(), f.size(), f.data());
    m_cOrder.resize(f.size());
    // Fortran index: first dimension fastest. Walk C order, carrying the Fortran offset.
    const size_t nd = m_h.shape.size();
    std::vector<uint64_t> idx(nd, 0), fstride(nd, 1);
    for (size_t d = 1; d < nd; ++d) fstride[d] = fstride[d - 1] * m_h.shape[d - 1];
    uint64_t foff = 0;
    for (uint64_t c = 0; c < m_h.count; ++c) {
        m_cOrder[c] = f[foff];
        for (size_t d = nd; d-- > 0;) {
            if (++idx[d] < m_h.shape[d]) {
                foff += fstride[d];
                break;
            }
            foff -= fstride[d] * (idx[d] - 1);
            idx[d] = 0;
        }
    }
    m_transposed = true;
    return {};
}

Result<uint64_t> Reader::next(std::vector<double>& out, uint64_t maxElements) {
    if (maxElements == 0) maxElements = 1;
    const uint64_t left = m_h.count - m_done;
    const uint64_t n = std::min(left, maxElements);
    out.resize(n);
    if (n == 0) return uint64_t{0};
    if (m_h.fortranOrder && m_h.shape.size() > 1) {
        if (!m_transposed)
            if (auto s = loadFortran(); !s) return Error{s.error()};
        std::copy(m_cOrder.begin() + static_cast<ptrdiff_t>(m_done),
                  m_cOrder.begin() + static_cast<ptrdiff_t>(m_done + n), out.begin());
    } else {
        std::vector<char> raw(static_cast<size_t>(n) * static_cast<size_t>(m_h.itemSize));
        if (std::fread(raw.data(), 1, raw.size(), m_file) != raw.size())
            return Error{m_path + ": short data at element " + std::to_string(m_done)};
        toDoubles(m_h, raw.data(), static_cast<size_t>(n), out.data());
    }
    m_done += n;
    return n;
}

Result<std::vector<double>> Reader::readAll(uint64_t maxElements) {
    if (m_h.count > maxElements)
        return Error{m_path + ": " + std::to_string(m_h.count) + " elements, more than " +
                     std::to_string(maxElements) + " can be loaded at once"};
    std::vector<double> all;
    all.reserve(static_cast<size_t>(m_h.count));
    std::vector<double> block;
    for (;;) {
        auto n = next(block);
        if (!n) return Error{n.error()};
        if (n.value() == 0) break;
        all.insert(all.end(), block.begin(), block.end());
    }
    return all;
}

}  // namespace ts::debug::npy
