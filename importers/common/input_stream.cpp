#include "importers/common/input_stream.h"

#include <cstring>
#include <filesystem>
#include <vector>

namespace ts::importers {
namespace {

uint32_t le16(const unsigned char* p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8;
}
uint32_t le32(const unsigned char* p) {
    return le16(p) | le16(p + 2) << 16;
}
uint64_t le64(const unsigned char* p) {
    return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32;
}

bool readAt(FILE* f, uint64_t off, void* buf, size_t n) {
    if (fseeko(f, static_cast<off_t>(off), SEEK_SET) != 0) return false;
    return fread(buf, 1, n, f) == n;
}

struct ZipEntry {
    std::string name;
    int method = 0;
    uint64_t compSize = 0, rawSize = 0, localOffset = 0;
};

// Walks the central directory; empty + error when the archive is damaged.
std::vector<ZipEntry> zipEntries(FILE* f, uint64_t size, std::string& error) {
    const uint64_t tail = std::min<uint64_t>(size, 65535 + 22);
    std::vector<unsigned char> buf(tail);
    if (tail < 22 || !readAt(f, size - tail, buf.data(), tail)) {
        error = "zip: file too short";
        return {};
    }
    int64_t eocd = -1;
    for (int64_t i = static_cast<int64_t>(tail) - 22; i >= 0; --i)
        if (le32(&buf[i]) == 0x06054b50) {
            eocd = i;
            break;
        }
    if (eocd < 0) {
        error = "zip: no end-of-central-directory record (damaged archive)";
        return {};
    }
    uint64_t count = le16(&buf[eocd + 10]);
    uint64_t cdSize = le32(&buf[eocd + 12]);
    uint64_t cdOff = le32(&buf[eocd + 16]);
    if (eocd >= 20 && le32(&buf[eocd - 20]) == 0x07064b50) {  // zip64 locator
        unsigned char rec[56];
        if (readAt(f, le64(&buf[eocd - 20 + 8]), rec, sizeof rec) && le32(rec) == 0x06064b50) {
            count = le64(rec + 32);
            cdSize = le64(rec + 40);
            cdOff = le64(rec + 48);
        }
    }
    if (cdOff + cdSize > size || cdSize > (1u << 30)) {
        error = "zip: central directory out of range";
        return {};
    }
    std::vector<unsigned char> cd(cdSize);
    if (!readAt(f, cdOff, cd.data(), cdSize)) {
        error = "zip: cannot read central directory";
        return {};
    }
    std::vector<ZipEntry> out;
    size_t p = 0;
    for (uint64_t i = 0; i < count && p + 46 <= cd.size(); ++i) {
        const unsigned char* h = &cd[p];
        if (le32(h) != 0x02014b50) break;
        const size_t nameLen = le16(h + 28), extraLen = le16(h + 30), commentLen = le16(h + 32);
        if (p + 46 + nameLen + extraLen > cd.size()) break;
        ZipEntry e;
        e.method = static_cast<int>(le16(h + 10));
        e.compSize = le32(h + 20);
        e.rawSize = le32(h + 24);
        e.localOffset = le32(h + 42);
        e.name.assign(reinterpret_cast<const char*>(h + 46), nameLen);
        // zip64 extra field: the 0xFFFFFFFF fields follow in order raw, comp, offset.
        for (size_t x = 46 + nameLen; x + 4 <= 46 + nameLen + extraLen;) {
            const uint32_t id = le16(h + x), len = le16(h + x + 2);
            if (id == 1) {
                size_t q = x + 4;
                if (e.rawSize == 0xFFFFFFFF && q + 8 <= x + 4 + len)
                    e.rawSize = le64(h + q), q += 8;
                if (e.compSize == 0xFFFFFFFF && q + 8 <= x + 4 + len)
                    e.compSize = le64(h + q), q += 8;
                if (e.localOffset == 0xFFFFFFFF && q + 8 <= x + 4 + len)
                    e.localOffset = le64(h + q);
            }
            x += 4 + len;
        }
        out.push_back(std::move(e));
        p += 46 + nameLen + extraLen + commentLen;
    }
    if (out.empty()) error = "zip: archive holds no files";
    return out;
}

}  // namespace

Result<std::unique_ptr<InputStream>> InputStream::open(const std::string& path) {
    std::unique_ptr<InputStream> s(new InputStream());
    std::error_code ec;
    s->m_fileSize = std::filesystem::file_size(path, ec);
    if (ec) return Error{"cannot open " + path + ": " + ec.message()};
    unsigned char magic[4] = {0, 0, 0, 0};
    if (FILE* f = fopen(path.c_str(), "rb")) {
        const size_t n = fread(magic, 1, 4, f);
        fclose(f);
        if (n == 4 && le32(magic) == 0x04034b50) {
            s->m_kind = Kind::Zip;
            if (auto st = s->openZip(path); !st) return Error{st.error()};
            return s;
        }
        s->m_gzip = n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    } else {
        return Error{"cannot open " + path};
    }
    s->m_gz = gzopen(path.c_str(), "rb");
    if (!s->m_gz) return Error{"cannot open " + path};
    gzbuffer(s->m_gz, 1 << 18);
    return s;
}

InputStream::~InputStream() {
    if (m_gz) gzclose(m_gz);
    if (m_zInit) inflateEnd(&m_z);
    if (m_file) fclose(m_file);
}

Status InputStream::openZip(const std::string& path) {
    m_file = fopen(path.c_str(), "rb");
    if (!m_file) return Error{"cannot open " + path};
    std::vector<ZipEntry> entries = zipEntries(m_file, m_fileSize, m_error);
    if (entries.empty()) return Error{m_error};
    const ZipEntry* pick = nullptr;
    for (const ZipEntry& e : entries)
        if (!e.name.ends_with("/") && e.name.ends_with(".json")) {
            pick = &e;
            break;
        }
    for (const ZipEntry& e : entries)
        if (!pick && !e.name.ends_with("/")) pick = &e;
    if (!pick) return Error{"zip: archive holds only folders"};
    if (pick->method != 0 && pick->method != 8)
        return Error{"zip: member " + pick->name + " uses compression method " +
                     std::to_string(pick->method) + " (only stored and deflate are read)"};
    unsigned char lh[30];
    if (!readAt(m_file, pick->localOffset, lh, sizeof lh) || le32(lh) != 0x04034b50)
        return Error{"zip: bad local header for " + pick->name};
    m_zipOffset = pick->localOffset + 30 + le16(lh + 26) + le16(lh + 28);
    if (fseeko(m_file, static_cast<off_t>(m_zipOffset), SEEK_SET) != 0)
        return Error{"zip: cannot seek to " + pick->name};
    m_member = pick->name;
    m_method = pick->method;
    m_compLeft = pick->compSize;
    m_rawLeft = pick->rawSize;
    if (m_method == 8) {
        if (inflateInit2(&m_z, -MAX_WBITS) != Z_OK) return Error{"zip: inflateInit failed"};
        m_zInit = true;
        m_inBuf.resize(1 << 18);
    }
    return {};
}

size_t InputStream::read(char* buf, size_t n) {
    if (!m_error.empty()) return 0;
    if (m_kind == Kind::Zip) return readZip(buf, n);
    const int got = gzread(m_gz, buf, static_cast<unsigned>(std::min<size_t>(n, 1u << 30)));
    if (got < 0) {
        int code = 0;
        m_error = std::string("decompression error: ") + gzerror(m_gz, &code);
        return 0;
    }
    if (got == 0 && m_gzip && !gzeof(m_gz)) m_error = "gzip stream ends early";
    return static_cast<size_t>(got);
}

size_t InputStream::readZip(char* buf, size_t n) {
    if (m_method == 0) {
        const size_t want = static_cast<size_t>(std::min<uint64_t>(n, m_compLeft));
        const size_t got = want ? fread(buf, 1, want, m_file) : 0;
        m_compLeft -= got;
        if (got < want) m_error = "zip member ends early (truncated archive)";
        return got;
    }
    m_z.next_out = reinterpret_cast<Bytef*>(buf);
    m_z.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    while (m_z.avail_out > 0 && !m_zEnd) {
        if (m_z.avail_in == 0) {
            const size_t want = static_cast<size_t>(std::min<uint64_t>(m_inBuf.size(), m_compLeft));
            const size_t got = want ? fread(m_inBuf.data(), 1, want, m_file) : 0;
            m_compLeft -= got;
            if (got == 0) {
                m_error = "zip member ends early (truncated archive)";
                break;
            }
            m_z.next_in = reinterpret_cast<Bytef*>(m_inBuf.data());
            m_z.avail_in = static_cast<uInt>(got);
        }
        const int rc = inflate(&m_z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            m_zEnd = true;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            m_error = std::string("zip: inflate error: ") + (m_z.msg ? m_z.msg : "damaged data");
            break;
        }
    }
    return static_cast<size_t>(reinterpret_cast<char*>(m_z.next_out) - buf);
}

uint64_t InputStream::fileOffset() const {
    if (m_kind == Kind::Zip) return m_file ? static_cast<uint64_t>(ftello(m_file)) : 0;
    return m_gz ? static_cast<uint64_t>(gzoffset(m_gz)) : 0;
}

}  // namespace ts::importers
