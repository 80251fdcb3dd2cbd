#include "core/memory/byte_source.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace ts::memory {

namespace {

constexpr size_t kChunk = 1 << 20;

class GzFileSource : public ByteSource {
public:
    GzFileSource(gzFile f, uint64_t size, bool compressed)
        : m_f(f), m_size(size), m_compressed(compressed) {}
    ~GzFileSource() override { gzclose(m_f); }
    uint64_t size() const override { return m_compressed ? 0 : m_size; }

protected:
    size_t fill(char* buf, size_t capacity) override {
        const int n = gzread(m_f, buf, static_cast<unsigned>(capacity));
        if (n < 0) {
            int code = 0;
            const char* msg = gzerror(m_f, &code);
            m_error = std::string("cannot read the file: ") + (msg ? msg : "zlib error");
            return 0;
        }
        return static_cast<size_t>(n);
    }

private:
    gzFile m_f;
    uint64_t m_size;
    bool m_compressed;
};

class MemorySource : public ByteSource {
public:
    explicit MemorySource(std::string_view bytes) : m_bytes(bytes) {}
    uint64_t size() const override { return m_bytes.size(); }

protected:
    size_t fill(char* buf, size_t capacity) override {
        const size_t n = std::min(capacity, m_bytes.size() - m_pos);
        std::memcpy(buf, m_bytes.data() + m_pos, n);
        m_pos += n;
        return n;
    }

private:
    std::string_view m_bytes;
    size_t m_pos = 0;
};

}  // namespace

bool ByteSource::refill() {
    if (m_buf.size() != kChunk) m_buf.resize(kChunk);
    const size_t n = fill(m_buf.data(), m_buf.size());
    m_buf.resize(n);
    m_pos = 0;
    return n > 0;
}

bool ByteSource::read(size_t n, std::string& out) {
    while (n > 0) {
        if (m_pos == m_buf.size() && !refill()) return false;
        const size_t take = std::min(n, m_buf.size() - m_pos);
        out.append(m_buf.data() + m_pos, take);
        m_pos += take;
        m_offset += take;
        n -= take;
    }
    return true;
}

bool ByteSource::readLine(std::string& out, size_t limit) {
    while (out.size() <= limit) {
        const int c = get();
        if (c < 0) return false;
        if (c == '\n') return true;
        out.push_back(static_cast<char>(c));
    }
    return false;
}

Result<std::unique_ptr<ByteSource>> openFileSource(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return Error{"no such file: " + path};
    const uint64_t size = std::filesystem::file_size(path, ec);
    bool compressed = false;
    if (FILE* f = std::fopen(path.c_str(), "rb")) {
        unsigned char magic[2] = {0, 0};
        compressed = std::fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
        std::fclose(f);
    } else {
        return Error{"cannot open " + path + ": " + std::strerror(errno)};
    }
    gzFile g = gzopen(path.c_str(), "rb");
    if (!g) return Error{"cannot open " + path};
    gzbuffer(g, 1 << 17);
    return std::unique_ptr<ByteSource>(new GzFileSource(g, size, compressed));
}

std::unique_ptr<ByteSource> memorySource(std::string_view bytes) {
    return std::make_unique<MemorySource>(bytes);
}

}  // namespace ts::memory
