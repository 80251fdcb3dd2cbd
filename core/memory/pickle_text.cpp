#include "core/memory/pickle_text.h"

#include <cmath>
#include <cstdint>

namespace ts::memory::pickle {

namespace {

void appendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
        out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
}

int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// Decodes one code point at s[i]; advances i. -1 when malformed. Python's pickler writes
/// lone surrogates with "surrogatepass", so they are accepted here.
int64_t nextCodePoint(std::string_view s, size_t& i) {
    const auto c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + static_cast<size_t>(len) > s.size()) return -1;
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
    for (int k = 1; k < len; ++k) {
        const auto cc = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
        if ((cc >> 6) != 2) return -1;
        cp = (cp << 6) | (cc & 0x3f);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10ffff) return -1;
    i += static_cast<size_t>(len);
    return cp;
}

}  // namespace

bool validUtf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            ++i;
            continue;
        }
        if (nextCodePoint(s, i) < 0) return false;
    }
    return true;
}

std::optional<std::string> utf8ToLatin1(std::string_view utf8) {
    std::string out;
    out.reserve(utf8.size());
    for (size_t i = 0; i < utf8.size();) {
        const int64_t cp = nextCodePoint(utf8, i);
        if (cp < 0 || cp > 255) return std::nullopt;
        out.push_back(static_cast<char>(cp));
    }
    return out;
}

std::optional<std::string> unquotePythonString(std::string_view q) {
    if (q.size() < 2 || (q.front() != '\'' && q.front() != '"') || q.back() != q.front())
        return std::nullopt;
    q = q.substr(1, q.size() - 2);
    std::string out;
    for (size_t i = 0; i < q.size(); ++i) {
        if (q[i] != '\\') {
            out.push_back(q[i]);
            continue;
        }
        if (++i == q.size()) return std::nullopt;
        const char c = q[i];
        switch (c) {
            case 'n':
                out.push_back('\n');
                break;
            case 't':
                out.push_back('\t');
                break;
            case 'r':
                out.push_back('\r');
                break;
            case '\\':
            case '\'':
            case '"':
                out.push_back(c);
                break;
            case 'x': {
                if (i + 2 >= q.size()) return std::nullopt;
                const int h = hexDigit(q[i + 1]), l = hexDigit(q[i + 2]);
                if (h < 0 || l < 0) return std::nullopt;
                out.push_back(static_cast<char>(h * 16 + l));
                i += 2;
                break;
            }
            default:
                if (c >= '0' && c <= '7') {
                    int v = 0, n = 0;
                    while (n < 3 && i < q.size() && q[i] >= '0' && q[i] <= '7') {
                        v = v * 8 + (q[i] - '0');
                        ++i;
                        ++n;
                    }
                    --i;
                    out.push_back(static_cast<char>(v & 0xff));
                } else {
                    out.push_back('\\');
                    out.push_back(c);
                }
        }
    }
    return out;
}

std::optional<std::string> rawUnicodeEscape(std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '\\' && i + 1 < s.size() && (s[i + 1] == 'u' || s[i + 1] == 'U')) {
            const size_t n = s[i + 1] == 'u' ? 4 : 8;
            if (i + 2 + n > s.size()) return std::nullopt;
            uint32_t cp = 0;
            for (size_t k = 0; k < n; ++k) {
                const int h = hexDigit(s[i + 2 + k]);
                if (h < 0) return std::nullopt;
                cp = cp * 16 + static_cast<uint32_t>(h);
            }
            if (cp > 0x10ffff) return std::nullopt;
            appendUtf8(out, cp);
            i += 1 + n;
        } else {
            appendUtf8(out, c);
        }
    }
    return out;
}

Value littleEndianInteger(std::string_view b) {
    if (b.empty()) return Value::integer(0);
    const bool negative = static_cast<unsigned char>(b.back()) & 0x80;
    // Fits in int64 when every byte above the 8th is the sign's fill.
    bool fits = true;
    for (size_t i = 8; i < b.size(); ++i)
        if (static_cast<unsigned char>(b[i]) != (negative ? 0xff : 0x00)) fits = false;
    if (fits && b.size() > 8) {
        const bool top = static_cast<unsigned char>(b[7]) & 0x80;
        if (top != negative) fits = false;
    }
    if (fits) {
        uint64_t v = negative ? ~uint64_t(0) : 0;
        const size_t n = b.size() < 8 ? b.size() : 8;
        for (size_t i = 0; i < n; ++i) {
            v &= ~(uint64_t(0xff) << (8 * i));
            v |= uint64_t(static_cast<unsigned char>(b[i])) << (8 * i);
        }
        return Value::integer(static_cast<int64_t>(v));
    }
    double d = 0;
    for (size_t i = b.size(); i-- > 0;) d = d * 256 + static_cast<unsigned char>(b[i]);
    if (negative) d -= std::ldexp(1.0, static_cast<int>(8 * b.size()));
    return Value::real(d);
}

}  // namespace ts::memory::pickle
