#pragma once
// Minimal protocol-buffer wire encoding and decoding over memory, for the checkpoint and
// TensorBoard event messages (the layouts are documented in docs/ENGINE.md). The decoder is
// bounds-checked: malformed input gives false, never a crash.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace ts::engine::wire {

inline void varint(std::string& out, uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}
inline void tag(std::string& out, uint32_t field, int type) {
    varint(out, (uint64_t(field) << 3) | uint64_t(type));
}
inline void fieldVarint(std::string& out, uint32_t f, uint64_t v) {
    tag(out, f, 0);
    varint(out, v);
}
inline void fieldBytes(std::string& out, uint32_t f, std::string_view b) {
    tag(out, f, 2);
    varint(out, b.size());
    out.append(b);
}
inline void fieldDouble(std::string& out, uint32_t f, double d) {
    tag(out, f, 1);
    char b[8];
    std::memcpy(b, &d, 8);
    out.append(b, 8);
}
inline void fieldFloat(std::string& out, uint32_t f, float d) {
    tag(out, f, 5);
    char b[4];
    std::memcpy(b, &d, 4);
    out.append(b, 4);
}

/// Field-by-field reader of one message.
class Reader {
public:
    explicit Reader(std::string_view data) : m_d(data) {}
    bool atEnd() const { return m_pos >= m_d.size(); }
    bool ok() const { return m_ok; }
    /// Next field; false at the end or on malformed data (then ok() is false).
    bool next(uint32_t& field, int& type) {
        if (atEnd()) return false;
        uint64_t t;
        if (!readVarint(t)) return fail();
        field = static_cast<uint32_t>(t >> 3);
        type = static_cast<int>(t & 7);
        return true;
    }
    bool readVarint(uint64_t& v) {
        v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_pos >= m_d.size()) return fail();
            const uint8_t b = static_cast<uint8_t>(m_d[m_pos++]);
            v |= uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80)) return true;
        }
        return fail();
    }
    bool readBytes(std::string_view& out) {
        uint64_t n;
        if (!readVarint(n) || n > m_d.size() - m_pos) return fail();
        out = m_d.substr(m_pos, n);
        m_pos += n;
        return true;
    }
    bool readFixed(void* out, size_t n) {
        if (n > m_d.size() - m_pos) return fail();
        std::memcpy(out, m_d.data() + m_pos, n);
        m_pos += n;
        return true;
    }
    bool skip(int type) {
        uint64_t v;
        std::string_view s;
        char b[8];
        switch (type) {
            case 0:
                return readVarint(v);
            case 1:
                return readFixed(b, 8);
            case 2:
                return readBytes(s);
            case 5:
                return readFixed(b, 4);
            default:
                return fail();
        }
    }

private:
    bool fail() {
        m_ok = false;
        m_pos = m_d.size();
        return false;
    }
    std::string_view m_d;
    size_t m_pos = 0;
    bool m_ok = true;
};

}  // namespace ts::engine::wire
