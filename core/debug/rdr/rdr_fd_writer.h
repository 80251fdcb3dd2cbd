#pragma once
// FdWriter: buffered text output to a file descriptor using only async-signal-safe calls
// (write(2)); no allocation, no locale, no stdio. Used by the RDR exporter both in normal
// context and inside a fatal-signal handler.
#include <cstddef>
#include <cstdint>

namespace ts::rdr {

class FdWriter {
public:
    explicit FdWriter(int fd) : m_fd(fd) {}
    ~FdWriter() { flush(); }
    FdWriter(const FdWriter&) = delete;
    FdWriter& operator=(const FdWriter&) = delete;

    FdWriter& str(const char* s);
    FdWriter& bytes(const char* s, size_t n);
    FdWriter& ch(char c);
    FdWriter& i64(int64_t v);
    FdWriter& u64(uint64_t v);
    /// A JSON string literal with quotes; control characters become \u00XX.
    FdWriter& jsonString(const char* s);
    /// ISO-8601 UTC time "YYYY-MM-DDTHH:MM:SS.mmmZ" of ns since the epoch (no libc calls).
    FdWriter& isoTime(int64_t unixNs);
    /// Writes the buffer out; false when a write failed (also remembered in ok()).
    bool flush();
    bool ok() const { return m_ok; }

private:
    int m_fd;
    bool m_ok = true;
    size_t m_len = 0;
    char m_buf[4096];
};

/// Copies `src` into `dst` (capacity `cap` incl. NUL), truncating; tabs, CR and LF become
/// spaces when `flatten` is set. Async-signal-safe.
void copyField(char* dst, size_t cap, const char* src, size_t srcLen, bool flatten);

}  // namespace ts::rdr
