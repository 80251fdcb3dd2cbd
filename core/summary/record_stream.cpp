#include "core/summary/record_stream.h"

#include <cstring>

#include "core/engine/train/tb_events.h"

namespace ts::summary {

Result<std::unique_ptr<RecordStream>> RecordStream::open(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");  // reads plain files unchanged
    if (!f) return Error{"cannot open " + path};
    gzbuffer(f, 1 << 16);
    std::unique_ptr<RecordStream> s(new RecordStream());
    s->m_file = f;
    s->m_path = path;
    return s;
}

RecordStream::~RecordStream() {
    if (m_file) gzclose(m_file);
}

bool RecordStream::fill() {
    if (m_pos > 0 && m_pos >= m_buf.size() / 2) {  // drop what was consumed
        m_buf.erase(0, m_pos);
        m_base += m_pos;
        m_pos = 0;
    }
    char chunk[1 << 16];
    gzclearerr(m_file);  // a file still being written may have grown since the last EOF
    const int n = gzread(m_file, chunk, sizeof chunk);
    if (n < 0) {
        m_failed = true;
        return false;
    }
    if (n == 0) return false;
    m_buf.append(chunk, static_cast<size_t>(n));
    return true;
}

RecordStream::Outcome RecordStream::next(std::string_view& record, uint64_t& offset) {
    if (m_failed) return Outcome::ReadError;
    for (;;) {
        offset = m_base + m_pos;
        if (m_stopped) return Outcome::Pending;
        const std::string_view rest(m_buf.data() + m_pos, m_buf.size() - m_pos);
        if (rest.size() >= 12) {
            uint64_t len;
            std::memcpy(&len, rest.data(), 8);
            uint32_t lenCrc;
            std::memcpy(&lenCrc, rest.data() + 8, 4);
            if (engine::tb::maskedCrc(rest.data(), 8) != lenCrc) {
                m_stopped = true;
                return Outcome::Damaged;
            }
            if (len > kMaxRecordBytes) {
                m_stopped = true;
                return Outcome::TooLarge;
            }
            if (rest.size() >= 16 + len) {
                // The framing is RecordReader's; it checks both CRCs of this one record.
                engine::tb::RecordReader reader(rest.substr(0, 16 + len));
                const auto o = reader.next(record);
                m_pos += 16 + len;
                return o == engine::tb::RecordReader::Outcome::Record ? Outcome::Record
                                                                      : Outcome::BadCrc;
            }
        }
        if (!fill()) return m_failed ? Outcome::ReadError : Outcome::Pending;
    }
}

}  // namespace ts::summary
