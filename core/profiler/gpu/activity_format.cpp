#include "core/profiler/gpu/activity_format.h"

#include <cerrno>
#include <cstring>

namespace ts::profiler::gpu {

ActivityWriter::~ActivityWriter() {
    close();
}

bool ActivityWriter::open(const std::string& path, std::string* error) {
    std::lock_guard lock(m_mutex);
    if (m_file) std::fclose(m_file);
    m_strings.clear();
    m_file = std::fopen(path.c_str(), "wb");
    if (!m_file) {
        if (error) *error = "cannot create " + path + ": " + std::strerror(errno);
        return false;
    }
    char header[kActivityHeaderBytes] = {};
    std::memcpy(header, kActivityMagic, sizeof kActivityMagic);
    const uint32_t version = kActivityVersion;
    std::memcpy(header + 8, &version, 4);
    std::fwrite(header, 1, sizeof header, m_file);
    m_bytes = sizeof header;
    return true;
}

uint32_t ActivityWriter::strLocked(std::string_view s) {
    if (s.empty() || !m_file) return 0;
    auto it = m_strings.find(std::string(s));
    if (it != m_strings.end()) return it->second;
    const auto id = static_cast<uint32_t>(m_strings.size() + 1);
    m_strings.emplace(std::string(s), id);
    std::string payload(sizeof id, '\0');
    std::memcpy(payload.data(), &id, sizeof id);
    payload.append(s);
    writeLocked(RecordType::String, payload.data(), static_cast<uint32_t>(payload.size()));
    return id;
}

uint32_t ActivityWriter::str(std::string_view s) {
    std::lock_guard lock(m_mutex);
    return strLocked(s);
}

void ActivityWriter::writeLocked(RecordType type, const void* payload, uint32_t bytes) {
    if (!m_file) return;
    const uint32_t head[2] = {static_cast<uint32_t>(type), bytes};
    std::fwrite(head, sizeof head, 1, m_file);
    if (bytes) std::fwrite(payload, 1, bytes, m_file);
    m_bytes += sizeof head + bytes;
}

void ActivityWriter::write(RecordType type, const void* payload, uint32_t bytes) {
    std::lock_guard lock(m_mutex);
    writeLocked(type, payload, bytes);
}

void ActivityWriter::note(std::string_view text) {
    std::lock_guard lock(m_mutex);
    NoteRecord n;
    n.textId = strLocked(text);
    writeLocked(RecordType::Note, &n, sizeof n);
}

void ActivityWriter::flush() {
    std::lock_guard lock(m_mutex);
    if (m_file) std::fflush(m_file);
}

void ActivityWriter::close() {
    std::lock_guard lock(m_mutex);
    if (m_file) std::fclose(m_file);
    m_file = nullptr;
}

uint64_t ActivityWriter::bytesWritten() const {
    std::lock_guard lock(m_mutex);
    return m_bytes;
}

}  // namespace ts::profiler::gpu
