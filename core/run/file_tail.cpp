#include "core/run/file_tail.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ts::run {

std::string FileTail::readNew(size_t maxBytes) {
    m_restarted = false;
    const int fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {};
    struct stat st {};
    std::string out;
    if (::fstat(fd, &st) == 0) {
        const auto size = static_cast<uint64_t>(st.st_size);
        if (size < m_offset) {
            m_offset = 0;
            m_restarted = true;
        }
        const uint64_t want = std::min<uint64_t>(size - m_offset, maxBytes);
        out.resize(want);
        size_t got = 0;
        while (got < want) {
            const ssize_t n =
                ::pread(fd, out.data() + got, want - got, static_cast<off_t>(m_offset + got));
            if (n <= 0) break;
            got += static_cast<size_t>(n);
        }
        out.resize(got);
        m_offset += got;
    }
    ::close(fd);
    return out;
}

}  // namespace ts::run
