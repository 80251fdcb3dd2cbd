#include "importers/chrome_trace/slice_spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

namespace ts::importers::chrome {
namespace {

constexpr size_t kReadRecords = 4096;

// An unlinked file in `folder`: O_TMPFILE, else a named file removed at once.
int unlinkedFile(const std::string& folder) {
    int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    std::string name = (std::filesystem::path(folder) / ".trainscope-spill-XXXXXX").string();
    fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(name.c_str());
    return fd;
}

}  // namespace

Result<SliceSpill> SliceSpill::open(const std::string& folder) {
    SliceSpill s;
    s.m_fd = unlinkedFile(folder.empty() ? "." : folder);
    if (s.m_fd < 0) s.m_fd = unlinkedFile(std::filesystem::temp_directory_path().string());
    if (s.m_fd < 0)
        return Error{std::string("cannot make a temporary file for the import: ") +
                     std::strerror(errno)};
    return s;
}

SliceSpill::SliceSpill(SliceSpill&& o) noexcept
    : m_fd(std::exchange(o.m_fd, -1)), m_records(o.m_records) {}

SliceSpill& SliceSpill::operator=(SliceSpill&& o) noexcept {
    if (this != &o) {
        if (m_fd >= 0) ::close(m_fd);
        m_fd = std::exchange(o.m_fd, -1);
        m_records = o.m_records;
    }
    return *this;
}

SliceSpill::~SliceSpill() {
    if (m_fd >= 0) ::close(m_fd);
}

Result<SliceSpill::Run> SliceSpill::write(const HeldSlice* s, size_t n) {
    Run run{m_records, n};
    const auto* p = reinterpret_cast<const char*>(s);
    size_t left = n * sizeof(HeldSlice);
    auto at = static_cast<off_t>(m_records * sizeof(HeldSlice));
    while (left > 0) {
        const ssize_t w = ::pwrite(m_fd, p, left, at);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            return Error{std::string("cannot write the import's temporary file: ") +
                         (w < 0 ? std::strerror(errno) : "disk full")};
        p += w;
        at += w;
        left -= static_cast<size_t>(w);
    }
    m_records += n;
    return run;
}

bool SliceSpill::Reader::next(HeldSlice& out) {
    if (m_pos == m_buf.size()) {
        const uint64_t want = std::min<uint64_t>(kReadRecords, m_run.count - m_read);
        if (want == 0) return false;
        m_buf.resize(static_cast<size_t>(want));
        auto* p = reinterpret_cast<char*>(m_buf.data());
        size_t left = m_buf.size() * sizeof(HeldSlice);
        auto at = static_cast<off_t>((m_run.offset + m_read) * sizeof(HeldSlice));
        while (left > 0) {
            const ssize_t r = ::pread(m_fd, p, left, at);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) {
                m_error = std::string("cannot read the import's temporary file: ") +
                          (r < 0 ? std::strerror(errno) : "it ended early");
                m_buf.clear();
                m_pos = 0;
                return false;
            }
            p += r;
            at += r;
            left -= static_cast<size_t>(r);
        }
        m_read += want;
        m_pos = 0;
    }
    out = m_buf[m_pos++];
    return true;
}

}  // namespace ts::importers::chrome
