#pragma once
// ByteSource: the bytes a reader streams, from a file (plain or gzip, read 1 MiB at a time)
// or from memory (tests, fuzzing). The reader asks for exact counts and learns the offset
// of every byte it reads, for its error messages. No Qt.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/result.h"

namespace ts::memory {

class ByteSource {
public:
    virtual ~ByteSource() = default;
    /// Appends exactly `n` bytes to `out`; false at the end of the input (then `out` holds
    /// what there was).
    bool read(size_t n, std::string& out);
    /// One byte, or -1 at the end.
    int get() {
        if (m_pos == m_buf.size() && !refill()) return -1;
        ++m_offset;
        return static_cast<unsigned char>(m_buf[m_pos++]);
    }
    /// Bytes up to and without the next '\n' (at most `limit`); false when no '\n' came.
    bool readLine(std::string& out, size_t limit);
    /// Bytes consumed so far.
    uint64_t offset() const { return m_offset; }
    /// Size of the input when known (a plain file, memory), else 0.
    virtual uint64_t size() const = 0;
    /// An error reading the input ("" when none).
    const std::string& error() const { return m_error; }

protected:
    /// Fills `buf` with the next bytes; 0 at the end or on an error (set m_error).
    virtual size_t fill(char* buf, size_t capacity) = 0;
    std::string m_error;

private:
    bool refill();
    std::vector<char> m_buf;
    size_t m_pos = 0;
    uint64_t m_offset = 0;
};

/// A file, gunzipped on the fly when it starts with the gzip magic.
Result<std::unique_ptr<ByteSource>> openFileSource(const std::string& path);
/// Bytes in memory; the source keeps no copy, `bytes` must outlive it.
std::unique_ptr<ByteSource> memorySource(std::string_view bytes);

}  // namespace ts::memory
