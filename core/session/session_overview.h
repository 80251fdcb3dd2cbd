#pragma once
// SessionOverview: everything the session sidebar and summary list, read in one go
// (a few small queries) so a view can build it on a worker thread.
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/store/trace_store.h"

namespace ts::session {

struct ImportProblem {
    int64_t sourceId = 0;
    std::string key;
    int64_t byteOffset = -1;
    std::string message;
    int64_t count = 0;  // problems with this key for this source
};

struct DumpFileInfo {
    int64_t id = 0;
    std::string path;
    int64_t tensors = 0;
};

struct RdrInfo {
    int64_t id = 0;
    std::string path;
    std::string reason;
    std::string failingOp;
};

struct SessionOverview {
    std::string path;
    int schemaVersion = 0;
    std::vector<store::SourceInfo> sources;
    std::vector<store::RunInfo> runs;
    std::vector<store::TableCount> counts;
    std::vector<ImportProblem> problems;  // grouped by (source, key), first offset kept
    std::vector<DumpFileInfo> dumps;
    std::vector<RdrInfo> rdr;
    int64_t logs = 0;
    int64_t overflowFindings = 0;

    int64_t count(const std::string& table) const;
};

/// Opens `path` read-only and reads its overview.
Result<SessionOverview> readOverview(const std::string& path);
Result<SessionOverview> readOverview(store::TraceStore& store);

}  // namespace ts::session
