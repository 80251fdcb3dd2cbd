#pragma once
// A SnapshotReport as one JSON object (what `trainscope-cli memory FILE --json` prints):
// the file (layout, protocol, counts, allocator settings), and per device the peak with the
// allocations alive at it grouped by site (with their frames), the allocator's state at the
// peak and at the snapshot (reserved, allocated, free, largest free piece), the leaks and
// the oom events. No Qt.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "core/memory/snapshot_report.h"

namespace ts::memory {

void writeSnapshotReport(rapidjson::Writer<rapidjson::StringBuffer>& w, const Snapshot& s,
                         const SnapshotReport& r, size_t framesPerStack = 12);

}  // namespace ts::memory
