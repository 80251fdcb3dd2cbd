#include "core/common/json.h"
#include "core/common/json_read.h"

#include <cmath>
#include <cstdio>

namespace ts::json {

size_t escapeByte(unsigned char c, char out[6]) {
    static const char kHex[] = "0123456789abcdef";
    if (c == '"' || c == '\\' || c == '\n' || c == '\t' || c == '\r') {
        out[0] = '\\';
        out[1] = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : static_cast<char>(c);
        return 2;
    }
    if (c < 0x20) {
        const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        for (size_t i = 0; i < 6; ++i) out[i] = esc[i];
        return 6;
    }
    out[0] = static_cast<char>(c);
    return 1;
}

namespace {

// The length of the valid UTF-8 sequence at s[i], or 0 (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF).
size_t sequenceAt(std::string_view s, size_t i) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    if (c < 0x80) return 1;
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (i + n > s.size()) return 0;
    if (b(i + 1) < lo || b(i + 1) > hi) return 0;
    for (size_t k = 2; k < n; ++k)
        if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
    return n;
}

}  // namespace

std::string_view validUtf8(std::string_view s, std::string& scratch) {
    size_t i = 0;
    while (i < s.size()) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            ++i;
            continue;
        }
        const size_t n = sequenceAt(s, i);
        if (n == 0) break;
        i += n;
    }
    if (i == s.size()) return s;
    scratch.assign(s.substr(0, i));
    while (i < s.size()) {
        const size_t n = sequenceAt(s, i);
        if (n == 0) {
            scratch += "\xEF\xBF\xBD";
            ++i;
        } else {
            scratch.append(s.substr(i, n));
            i += n;
        }
    }
    return scratch;
}

bool Writer::String(const char* s, rapidjson::SizeType n, bool copy) {
    const std::string_view v = validUtf8(std::string_view(s, n), m_scratch);
    return Base::String(v.data(), static_cast<rapidjson::SizeType>(v.size()), copy);
}

bool Writer::Key(const char* s, rapidjson::SizeType n, bool copy) {
    const std::string_view v = validUtf8(std::string_view(s, n), m_scratch);
    return Base::Key(v.data(), static_cast<rapidjson::SizeType>(v.size()), copy);
}

void appendQuoted(std::string& out, std::string_view text) {
    std::string scratch;
    const std::string_view s = validUtf8(text, scratch);
    out += '"';
    char buf[6];
    for (const char ch : s) out.append(buf, escapeByte(static_cast<unsigned char>(ch), buf));
    out += '"';
}

std::string quote(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    appendQuoted(out, s);
    return out;
}

void str(RawWriter& w, std::string_view text) {
    std::string scratch;
    const std::string_view s = validUtf8(text, scratch);
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void finiteOrNull(RawWriter& w, double v) {
    if (std::isfinite(v))
        w.Double(v);
    else
        w.Null();
}

void kv(RawWriter& w, const char* key, std::string_view value) {
    w.Key(key);
    str(w, value);
}
void kv(RawWriter& w, const char* key, int64_t value) {
    w.Key(key);
    w.Int64(value);
}
void kv(RawWriter& w, const char* key, int value) {
    w.Key(key);
    w.Int(value);
}
void kv(RawWriter& w, const char* key, uint64_t value) {
    w.Key(key);
    w.Uint64(value);
}
void kv(RawWriter& w, const char* key, double value) {
    w.Key(key);
    finiteOrNull(w, value);
}
void kv(RawWriter& w, const char* key, const std::optional<int64_t>& value) {
    w.Key(key);
    if (value)
        w.Int64(*value);
    else
        w.Null();
}
void kv(RawWriter& w, const char* key, const std::vector<std::string>& values) {
    w.Key(key);
    w.StartArray();
    for (const std::string& v : values) str(w, v);
    w.EndArray();
}

void ArgsJson::key(std::string_view k) {
    m_text += m_text.empty() ? "{" : ",";
    appendQuoted(m_text, k);
    m_text += ':';
}
ArgsJson& ArgsJson::num(std::string_view k, int64_t v) {
    key(k);
    m_text += std::to_string(v);
    return *this;
}
ArgsJson& ArgsJson::real(std::string_view k, double v) {
    key(k);
    if (!std::isfinite(v)) {
        m_text += "null";
        return *this;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    m_text += buf;
    return *this;
}
ArgsJson& ArgsJson::str(std::string_view k, std::string_view v) {
    key(k);
    appendQuoted(m_text, v);
    return *this;
}
ArgsJson& ArgsJson::dims(std::string_view k, int64_t x, int64_t y, int64_t z) {
    key(k);
    m_text += "[" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + "]";
    return *this;
}

std::string shapeText(const rapidjson::Value& v) {
    if (!v.IsArray()) return {};
    std::string out = "[";
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        if (i) out += ',';
        if (v[i].IsInt64())
            out += std::to_string(v[i].GetInt64());
        else if (v[i].IsArray())
            out += shapeText(v[i]);
    }
    return out + "]";
}

}  // namespace ts::json
