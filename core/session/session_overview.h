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
    int64_t count = 0;        // problems with this key for this source
    bool expected = false;    // an expected skip (core/store/import_problems.h): shown quietly
    std::string explanation;  // what the key means ("" when unknown)
};

/// One import_log record: where in the file, in which phase, and what it said.
struct ImportProblemRecord {
    int64_t byteOffset = -1;  // -1 when the importer knew no position
    std::string phase;
    std::string message;
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
    /// Records of real problems / of expected skips, over every source.
    int64_t problemCount() const;
    int64_t expectedSkipCount() const;
};

/// Opens `path` read-only and reads its overview.
Result<SessionOverview> readOverview(const std::string& path);
Result<SessionOverview> readOverview(store::TraceStore& store);

/// The records of one (source, key) group in file order, at most `limit` of them.
Result<std::vector<ImportProblemRecord>> readImportProblemRecords(const std::string& path,
                                                                  int64_t sourceId,
                                                                  const std::string& key,
                                                                  int64_t limit = 1000);

}  // namespace ts::session
