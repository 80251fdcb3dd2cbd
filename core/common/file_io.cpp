#include "core/common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

namespace fs = std::filesystem;

namespace ts {

bool sameFile(const std::string& a, const std::string& b) {
    struct stat sa {};
    struct stat sb {};
    return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

Status refuseInputAsOutput(const std::string& output, const std::vector<std::string>& inputs) {
    for (const std::string& in : inputs)
        if (sameFile(output, in))
            return Error{"refusing to write '" + output + "': it is the input '" + in +
                         "' (the same file), which writing would destroy; choose another output"};
    return {};
}

namespace {

// The file a path names once its links are followed (the path itself when nothing exists).
std::string resolvedTarget(const std::string& path) {
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(fs::path(path), ec);
    return ec || p.empty() ? path : p.string();
}

int openTemp(const std::string& target, std::string& tempOut) {
    static std::atomic<unsigned> counter{0};
    const fs::path t(target);
    for (int attempt = 0; attempt < 100; ++attempt) {
        const std::string name = "." + t.filename().string() + ".tmp" + std::to_string(::getpid()) +
                                 "." + std::to_string(++counter);
        tempOut = (t.parent_path() / name).string();
        // 0666 less the umask, as a plain open would create it.
        const int fd = ::open(tempOut.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

void syncFolder(const std::string& file) {
    const std::string dir = fs::path(file).parent_path().string();
    const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)::fsync(fd);
    ::close(fd);
}

}  // namespace

Result<AtomicFile> AtomicFile::create(const std::string& path,
                                      const std::vector<std::string>& inputs) {
    if (auto s = refuseInputAsOutput(path, inputs); !s) return Error{s.error()};
    AtomicFile f;
    f.m_target = resolvedTarget(path);
    struct stat old {};
    const bool replacing = ::stat(f.m_target.c_str(), &old) == 0;
    if (replacing && S_ISDIR(old.st_mode))
        return Error{"cannot write '" + path + "': it is a folder"};
    const int fd = openTemp(f.m_target, f.m_temp);
    if (fd < 0) return Error{"cannot write '" + path + "': " + std::strerror(errno)};
    if (replacing && S_ISREG(old.st_mode)) (void)::fchmod(fd, old.st_mode & 07777);
    f.m_file = ::fdopen(fd, "wb");
    if (!f.m_file) {
        ::close(fd);
        ::unlink(f.m_temp.c_str());
        return Error{"cannot write '" + path + "'"};
    }
    return f;
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : m_target(std::move(o.m_target)),
      m_temp(std::move(o.m_temp)),
      m_file(std::exchange(o.m_file, nullptr)) {
    o.m_temp.clear();
}

AtomicFile::~AtomicFile() {
    if (m_file) std::fclose(m_file);
    if (!m_temp.empty()) ::unlink(m_temp.c_str());
}

void AtomicFile::write(std::string_view bytes) {
    if (m_file && !bytes.empty()) std::fwrite(bytes.data(), 1, bytes.size(), m_file);
}

Status AtomicFile::commit() {
    if (!m_file) return Error{"cannot write '" + m_target + "': already written"};
    bool ok = !std::ferror(m_file) && std::fflush(m_file) == 0;
    ok = ok && ::fsync(::fileno(m_file)) == 0;
    const int err = errno;
    ok = std::fclose(std::exchange(m_file, nullptr)) == 0 && ok;
    if (!ok) {
        ::unlink(m_temp.c_str());
        m_temp.clear();
        return Error{"cannot write '" + m_target + "': " + std::strerror(err ? err : EIO) +
                     " (disk full?); the old file, if any, is unchanged"};
    }
    if (::rename(m_temp.c_str(), m_target.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(m_temp.c_str());
        m_temp.clear();
        return Error{"cannot write '" + m_target + "': " + why};
    }
    m_temp.clear();
    syncFolder(m_target);
    return {};
}

Status writeFileAtomically(const std::string& path, std::string_view bytes,
                           const std::vector<std::string>& inputs) {
    auto f = AtomicFile::create(path, inputs);
    if (!f) return Error{f.error()};
    f.value().write(bytes);
    return f.value().commit();
}

Result<std::string> readRegularFile(const std::string& path, uint64_t maxBytes,
                                    std::string_view what, const std::string& insideDir) {
    const std::string name = std::string(what) + " '" + path + "'";
    if (!insideDir.empty()) {
        std::error_code ec, dirEc;
        const fs::path real = fs::canonical(path, ec);
        const fs::path dir = fs::canonical(insideDir, dirEc);
        if (ec || dirEc) return Error{"cannot read " + name + ": " + (ec ? ec : dirEc).message()};
        const auto rel = real.lexically_relative(dir);
        if (rel.empty() || *rel.begin() == "..")
            return Error{"refusing to read " + name + ": it leads outside the folder '" +
                         insideDir + "' (to '" + real.string() + "')"};
    }
    // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return Error{"cannot read " + name + ": " + std::strerror(errno)};
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return Error{"refusing to read " + name + ": not a regular file"};
    }
    if (static_cast<uint64_t>(st.st_size) > maxBytes) {
        ::close(fd);
        return Error{"refusing to read " + name + ": " + std::to_string(st.st_size) +
                     " bytes, more than the " + std::to_string(maxBytes) + " such a file may have"};
    }
    std::string out;
    out.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    // A file that grows while read stops at the cap.
    while (got < out.size()) {
        const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<size_t>(n);
    }
    ::close(fd);
    out.resize(got);
    return out;
}

Result<std::string> readMaybeGzipped(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) return Error{"cannot open " + path};
    std::string data;
    char buf[1 << 16];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0) data.append(buf, static_cast<size_t>(n));
    int err = 0;
    const char* msg = gzerror(f, &err);
    const bool bad = n < 0 || (err != Z_OK && err != Z_STREAM_END);
    const std::string why = bad && msg ? msg : "";
    gzclose(f);
    if (bad) return Error{path + ": damaged gzip data (" + why + ")"};
    return data;
}

}  // namespace ts
