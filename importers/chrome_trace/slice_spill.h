#pragma once
// SliceSpill: where the Chrome importer's builder puts its slices once it holds more than its
// window (ChromeTraceBuilder::kDefaultWindow; TRAINSCOPE_IMPORT_WINDOW): sorted runs of
// fixed-size records in a temporary file beside the session, unlinked at once so nothing is
// left after a crash, read back run by run and merged when the import ends. So an import
// holds at most a window of slices, however many the file has (a 7 MB zip of 2 GB of events).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/result.h"

namespace ts::importers::chrome {

/// A slice as the builder holds it (48 bytes).
struct HeldSlice {
    int64_t ts, dur, nameId, catId, argId;
    int32_t flags;
    uint32_t seq;  // order of arrival within the track
};
static_assert(sizeof(HeldSlice) == 48);

/// Sort order of a track: by start, longer first, then arrival.
inline bool heldBefore(const HeldSlice& a, const HeldSlice& b) {
    if (a.ts != b.ts) return a.ts < b.ts;
    if (a.dur != b.dur) return a.dur > b.dur;
    return a.seq < b.seq;
}

class SliceSpill {
public:
    struct Run {
        uint64_t offset = 0, count = 0;  // in records
    };
    /// A file in `folder` (the session's; the system's temp folder when it cannot hold one).
    static Result<SliceSpill> open(const std::string& folder);
    SliceSpill(SliceSpill&& o) noexcept;
    SliceSpill& operator=(SliceSpill&& o) noexcept;
    SliceSpill(const SliceSpill&) = delete;
    ~SliceSpill();

    /// Appends `n` slices (sorted by the caller) as one run.
    Result<Run> write(const HeldSlice* s, size_t n);
    uint64_t records() const { return m_records; }

    /// Reads one run in order through a buffer of a few thousand records.
    class Reader {
    public:
        Reader(const SliceSpill& spill, Run run) : m_fd(spill.m_fd), m_run(run) {}
        /// The next slice, or false at the end of the run (or on a read error: see error()).
        bool next(HeldSlice& out);
        const std::string& error() const { return m_error; }

    private:
        int m_fd;
        Run m_run;
        uint64_t m_read = 0;  // records taken from the file
        std::vector<HeldSlice> m_buf;
        size_t m_pos = 0;
        std::string m_error;
    };

private:
    SliceSpill() = default;
    int m_fd = -1;
    uint64_t m_records = 0;
};

}  // namespace ts::importers::chrome
