#pragma once
// LEB128 varints for the chunk BLOBs (slice_chunk, arg_chunk): 7 bits a byte, low first.
#include <cstdint>
#include <string>

namespace ts::store {

/// Signed values as unsigned, small magnitudes small: 0, -1, 1, -2 -> 0, 1, 2, 3.
inline uint64_t zigzag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t unzigzag(uint64_t u) {
    return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
}

/// Wrapping difference and sum, so deltas of any int64 values round-trip and damaged data
/// never overflows a signed add.
inline int64_t wrappingMinus(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t wrappingPlus(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

inline void putVarint(std::string& out, uint64_t v) {
    char buf[10];
    int n = 0;
    while (v >= 0x80) {
        buf[n++] = static_cast<char>((v & 0x7F) | 0x80);
        v >>= 7;
    }
    buf[n++] = static_cast<char>(v);
    out.append(buf, static_cast<size_t>(n));
}

/// Reads varints from [p, end); ok() turns false (and stays) on a damaged stream.
class VarintReader {
public:
    VarintReader(const uint8_t* p, const uint8_t* end) : m_p(p), m_end(end) {}
    bool ok() const { return m_ok; }
    bool atEnd() const { return m_p == m_end; }
    const uint8_t* pos() const { return m_p; }
    uint64_t next() {
        uint64_t v = 0;
        if (m_end - m_p >= 10) {  // no bound check per byte
            for (int shift = 0; shift < 70; shift += 7) {
                const uint8_t b = *m_p++;
                v |= static_cast<uint64_t>(b & 0x7F) << shift;
                if (!(b & 0x80)) return v;
            }
            m_ok = false;
            return 0;
        }
        for (int shift = 0; shift < 70 && m_p < m_end; shift += 7) {
            const uint8_t b = *m_p++;
            v |= static_cast<uint64_t>(b & 0x7F) << shift;
            if (!(b & 0x80)) return v;
        }
        m_ok = false;
        m_p = m_end;
        return 0;
    }

private:
    const uint8_t* m_p;
    const uint8_t* m_end;
    bool m_ok = true;
};

}  // namespace ts::store
