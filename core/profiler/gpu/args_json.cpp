#include "core/profiler/gpu/args_json.h"

#include <cstdio>

namespace ts::profiler::gpu {
namespace {
void appendEscaped(std::string& out, std::string_view s) {
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += ch;
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += ch;
        }
    }
    out += '"';
}
}  // namespace

void ArgsJson::key(std::string_view k) {
    m_text += m_text.empty() ? "{" : ",";
    appendEscaped(m_text, k);
    m_text += ':';
}
ArgsJson& ArgsJson::num(std::string_view k, int64_t v) {
    key(k);
    m_text += std::to_string(v);
    return *this;
}
ArgsJson& ArgsJson::real(std::string_view k, double v) {
    key(k);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    m_text += buf;
    return *this;
}
ArgsJson& ArgsJson::str(std::string_view k, std::string_view v) {
    key(k);
    appendEscaped(m_text, v);
    return *this;
}
ArgsJson& ArgsJson::dims(std::string_view k, int64_t x, int64_t y, int64_t z) {
    key(k);
    m_text += "[" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + "]";
    return *this;
}

}  // namespace ts::profiler::gpu
