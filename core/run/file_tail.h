#pragma once
// FileTail: reads what was appended to a file since the last call (event files of the
// Python package, TensorBoard event files). A file that shrank (rewritten) is read again
// from its start. Used from one thread.
#include <cstdint>
#include <string>

namespace ts::run {

class FileTail {
public:
    explicit FileTail(std::string path) : m_path(std::move(path)) {}
    const std::string& path() const { return m_path; }
    /// Bytes appended since the last call, at most `maxBytes` ("" when none or unreadable).
    std::string readNew(size_t maxBytes = 16 << 20);
    /// True when the last readNew() found the file shorter than before (it was rewritten).
    bool restarted() const { return m_restarted; }
    uint64_t offset() const { return m_offset; }

private:
    std::string m_path;
    uint64_t m_offset = 0;
    bool m_restarted = false;
};

}  // namespace ts::run
