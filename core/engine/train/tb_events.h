#pragma once
// TensorBoard event files: TFRecord framing (uint64 length, masked CRC32C of the length,
// data, masked CRC32C of the data) around Event protos (wall_time = 1, step = 2,
// file_version = 3, summary = 5 { value = 1 { tag = 1, simple_value = 2, tensor = 8 } }).
// The writer is used by SummaryCollector; the decoder by importers/tfevents.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/result.h"

namespace ts::engine::tb {

uint32_t crc32c(const void* data, size_t n);
uint32_t maskedCrc(const void* data, size_t n);

/// One scalar of an event (simple_value or a scalar float/double/int tensor summary).
struct ScalarValue {
    std::string tag;
    double value = 0;
};

struct Event {
    double wallTime = 0;
    int64_t step = 0;
    std::string fileVersion;           // set on the first event of a file
    std::vector<ScalarValue> scalars;  // summary values that are scalars
    int nonScalarValues = 0;           // images, histograms, non-scalar tensors (skipped)
};

/// Decodes an Event proto; nullopt when malformed.
std::optional<Event> decodeEvent(std::string_view bytes);
std::string encodeScalarEvent(double wallTime, int64_t step, const std::string& tag, float value);
std::string encodeVersionEvent(double wallTime);

/// Appends TFRecord-framed events to `<dir>/events.out.tfevents.<time>.<host>`.
class EventWriter {
public:
    static Result<std::unique_ptr<EventWriter>> open(const std::string& dir);
    ~EventWriter();
    EventWriter(const EventWriter&) = delete;
    EventWriter& operator=(const EventWriter&) = delete;
    void addScalar(const std::string& tag, int64_t step, float value);
    void flush();
    const std::string& path() const { return m_path; }

private:
    EventWriter() = default;
    void writeRecord(const std::string& data);
    std::FILE* m_file = nullptr;
    std::string m_path;
};

/// Reads TFRecord records one by one; reports truncation and CRC mismatches. A bad length
/// CRC ends the reading (BadCrc, then End); a bad data CRC skips that record only.
class RecordReader {
public:
    explicit RecordReader(std::string_view data) : m_d(data) {}
    enum class Outcome { Record, End, Truncated, BadCrc };
    Outcome next(std::string_view& record);
    size_t offset() const { return m_pos; }

private:
    std::string_view m_d;
    size_t m_pos = 0;
};

}  // namespace ts::engine::tb
