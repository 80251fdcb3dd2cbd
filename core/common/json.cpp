#include "core/common/json.h"

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

void appendQuoted(std::string& out, std::string_view s) {
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

void str(Writer& w, std::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void finiteOrNull(Writer& w, double v) {
    if (std::isfinite(v))
        w.Double(v);
    else
        w.Null();
}

void kv(Writer& w, const char* key, std::string_view value) {
    w.Key(key);
    str(w, value);
}
void kv(Writer& w, const char* key, int64_t value) {
    w.Key(key);
    w.Int64(value);
}
void kv(Writer& w, const char* key, int value) {
    w.Key(key);
    w.Int(value);
}
void kv(Writer& w, const char* key, uint64_t value) {
    w.Key(key);
    w.Uint64(value);
}
void kv(Writer& w, const char* key, double value) {
    w.Key(key);
    finiteOrNull(w, value);
}
void kv(Writer& w, const char* key, const std::optional<int64_t>& value) {
    w.Key(key);
    if (value)
        w.Int64(*value);
    else
        w.Null();
}
void kv(Writer& w, const char* key, const std::vector<std::string>& values) {
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

}  // namespace ts::json
