#pragma once
// InputStream: the bytes of a trace file, whatever wraps them: plain, gzip (any suffix,
// detected by magic), or a .zip archive (the first .json member, else the first member;
// deflate via zlib raw inflate, stored members copied). Reads in chunks; never loads the
// whole file. Not thread-safe.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include <zlib.h>

#include "core/common/result.h"

namespace ts::importers {

class InputStream {
public:
    /// Opens `path`; errors: cannot open, damaged or empty zip.
    static Result<std::unique_ptr<InputStream>> open(const std::string& path);
    ~InputStream();
    InputStream(const InputStream&) = delete;
    InputStream& operator=(const InputStream&) = delete;

    /// Reads up to `n` decompressed bytes; 0 at the end or on error (see error()).
    size_t read(char* buf, size_t n);
    /// Bytes of the file on disk consumed so far (for progress).
    uint64_t fileOffset() const;
    /// Size of the file on disk.
    uint64_t fileSize() const { return m_fileSize; }
    /// Non-empty after a read error (e.g. a cut-off gzip stream).
    const std::string& error() const { return m_error; }
    /// "plain", "gzip" or "zip".
    const char* wrapper() const { return m_kind == Kind::Zip ? "zip" : m_gzip ? "gzip" : "plain"; }
    /// Name of the zip member read ("" unless zip).
    const std::string& member() const { return m_member; }

private:
    enum class Kind { Gz, Zip };
    InputStream() = default;
    Status openZip(const std::string& path);
    size_t readZip(char* buf, size_t n);

    Kind m_kind = Kind::Gz;
    bool m_gzip = false;
    gzFile m_gz = nullptr;
    FILE* m_file = nullptr;
    uint64_t m_fileSize = 0;
    std::string m_error;
    std::string m_member;
    // zip member state
    int m_method = 0;
    uint64_t m_compLeft = 0;
    uint64_t m_rawLeft = 0;
    uint64_t m_zipOffset = 0;
    z_stream m_z{};
    bool m_zInit = false;
    bool m_zEnd = false;
    std::string m_inBuf;
};

}  // namespace ts::importers
