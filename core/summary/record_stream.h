#pragma once
// RecordStream: the TFRecord framing of summary, lineage and TensorBoard event files read
// from disk a piece at a time (plain or gzip): each record is a little-endian uint64 length,
// the masked CRC-32C of the length, the payload and the masked CRC-32C of the payload
// (engine::tb::RecordReader checks both). A file that is still being written is read up to
// its last complete record; poll again later for the rest. Damage is reported with its byte
// offset: a bad payload CRC skips that record, a bad length CRC stops the reading (no way
// to find the next record), a file that ends inside a record is cut there. No Qt.
#include <zlib.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/common/result.h"

namespace ts::summary {

class RecordStream {
public:
    /// Opens the file; error when it cannot be opened.
    static Result<std::unique_ptr<RecordStream>> open(const std::string& path);
    ~RecordStream();
    RecordStream(const RecordStream&) = delete;
    RecordStream& operator=(const RecordStream&) = delete;

    enum class Outcome {
        Record,     // `record` is the next payload (valid until the next call)
        BadCrc,     // the record at `offset` failed its payload CRC and was skipped
        Damaged,    // the length at `offset` failed its CRC: nothing after it can be read
        TooLarge,   // the record at `offset` claims more than kMaxRecordBytes
        Pending,    // no complete record now (end of file, or a record still being written)
        ReadError,  // the file could not be read
    };
    /// The largest record accepted (a length beyond it is taken as damage, not allocated).
    static constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 30;

    Outcome next(std::string_view& record, uint64_t& offset);
    /// Bytes of an incomplete record held back at the end of what was read (0: none). At
    /// the end of a file no one writes any more, that is where the file was cut.
    uint64_t pendingBytes() const { return m_buf.size() - m_pos; }
    /// Offset of the first byte not consumed (the start of the pending record).
    uint64_t consumedOffset() const { return m_base + m_pos; }
    /// Bytes read from the file so far (for progress).
    uint64_t bytesRead() const { return m_base + m_buf.size(); }
    const std::string& path() const { return m_path; }

private:
    RecordStream() = default;
    bool fill();  // reads more into m_buf; false at the end (for now) or on error
    gzFile m_file = nullptr;
    std::string m_path;
    std::string m_buf;    // bytes from m_base on
    size_t m_pos = 0;     // consumed bytes of m_buf
    uint64_t m_base = 0;  // file offset of m_buf[0]
    bool m_failed = false, m_stopped = false;
};

}  // namespace ts::summary
