#pragma once
// SummaryFile: a MindSpore summary file or a TensorBoard event file read record by record
// into SummaryEvents (summary_event.h), whole or as it grows (a run still writing it). It
// counts what it saw — records, damaged records (with their offsets), records that are not
// Events — so an importer can say exactly what it dropped. No Qt.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/job_control.h"
#include "core/common/result.h"
#include "core/summary/record_stream.h"
#include "core/summary/summary_event.h"

namespace ts::summary {

struct SummaryFileCounts {
    int64_t records = 0;      // framed records read (good or not)
    int64_t badCrc = 0;       // payload CRC mismatches (skipped)
    int64_t undecodable = 0;  // framed and checked, but not an Event of the dialect
    bool damaged = false;     // a length failed its CRC (or was absurd): reading stopped there
    uint64_t damagedAt = 0;
    std::string fileVersion;
};

class SummaryFile {
public:
    /// Opens `path`. The dialect comes from `dialect`, else the file name, else the first
    /// record (sniffDialect); a file of neither dialect is an error at its first record.
    static Result<std::unique_ptr<SummaryFile>> open(const std::string& path,
                                                     std::optional<Dialect> dialect = {});
    /// Reads every complete record there is now, calling `onEvent` for each decoded event
    /// (return false to stop early). Returns an error only when the file cannot be read or
    /// its first record is of neither dialect.
    Status poll(const std::function<bool(SummaryEvent&&)>& onEvent, JobControl* job = nullptr);

    std::optional<Dialect> dialect() const { return m_dialect; }
    const SummaryFileCounts& counts() const { return m_counts; }
    /// "byte 1234: record payload fails its CRC (skipped)", ... (at most 100 kept).
    const std::vector<std::string>& problems() const { return m_problems; }
    /// Bytes of an incomplete last record: once the writer is done, where the file is cut.
    uint64_t pendingBytes() const { return m_stream->pendingBytes(); }
    uint64_t pendingOffset() const { return m_stream->consumedOffset(); }
    uint64_t bytesRead() const { return m_stream->bytesRead(); }
    const std::string& path() const { return m_stream->path(); }

private:
    SummaryFile() = default;
    void problem(uint64_t offset, const std::string& what);
    std::unique_ptr<RecordStream> m_stream;
    std::optional<Dialect> m_dialect;
    std::optional<EventDecoder> m_decoder;
    SummaryFileCounts m_counts;
    std::vector<std::string> m_problems;
};

}  // namespace ts::summary
