#include "core/debug/rdr/rdr_fd_writer.h"

#include "core/common/json.h"

#include <unistd.h>

#include <cerrno>

namespace ts::rdr {

bool FdWriter::flush() {
    size_t off = 0;
    while (off < m_len) {
        ssize_t n = ::write(m_fd, m_buf + off, m_len - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            m_ok = false;
            break;
        }
        off += static_cast<size_t>(n);
    }
    m_len = 0;
    return m_ok;
}

FdWriter& FdWriter::bytes(const char* s, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (m_len == sizeof(m_buf)) flush();
        m_buf[m_len++] = s[i];
    }
    return *this;
}

FdWriter& FdWriter::str(const char* s) {
    size_t n = 0;
    while (s[n]) ++n;
    return bytes(s, n);
}

FdWriter& FdWriter::ch(char c) {
    return bytes(&c, 1);
}

FdWriter& FdWriter::u64(uint64_t v) {
    char tmp[24];
    int i = 0;
    do {
        tmp[i++] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v);
    while (i) ch(tmp[--i]);
    return *this;
}

FdWriter& FdWriter::i64(int64_t v) {
    if (v < 0) {
        ch('-');
        return u64(static_cast<uint64_t>(-(v + 1)) + 1);
    }
    return u64(static_cast<uint64_t>(v));
}

FdWriter& FdWriter::jsonString(const char* s) {
    ch('"');
    char esc[6];
    for (; *s; ++s) bytes(esc, json::escapeByte(static_cast<unsigned char>(*s), esc));
    return ch('"');
}

namespace {
void two(FdWriter& w, int64_t v) {
    w.ch(static_cast<char>('0' + v / 10)).ch(static_cast<char>('0' + v % 10));
}
}  // namespace

FdWriter& FdWriter::isoTime(int64_t unixNs) {
    int64_t secs = unixNs / 1000000000;
    const int64_t ms = (unixNs % 1000000000) / 1000000;
    int64_t days = secs / 86400;
    int64_t rem = secs % 86400;
    // Civil-from-days (H. Hinnant), valid for all dates after 1970.
    days += 719468;
    const int64_t era = days / 146097;
    const int64_t doe = days - era * 146097;
    const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const int64_t mp = (5 * doy + 2) / 153;
    const int64_t d = doy - (153 * mp + 2) / 5 + 1;
    const int64_t m = mp < 10 ? mp + 3 : mp - 9;
    const int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
    i64(y).ch('-');
    two(*this, m);
    ch('-');
    two(*this, d);
    ch('T');
    two(*this, rem / 3600);
    ch(':');
    two(*this, rem % 3600 / 60);
    ch(':');
    two(*this, rem % 60);
    ch('.').ch(static_cast<char>('0' + ms / 100)).ch(static_cast<char>('0' + ms / 10 % 10));
    return ch(static_cast<char>('0' + ms % 10)).ch('Z');
}

void copyField(char* dst, size_t cap, const char* src, size_t srcLen, bool flatten) {
    if (cap == 0) return;
    size_t n = srcLen < cap - 1 ? srcLen : cap - 1;
    for (size_t i = 0; i < n; ++i) {
        char c = src[i];
        if (flatten && (c == '\t' || c == '\n' || c == '\r')) c = ' ';
        dst[i] = c;
    }
    dst[n] = '\0';
}

}  // namespace ts::rdr
