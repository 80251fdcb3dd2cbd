#pragma once
// Reads an RDR export folder (written by RunningDataRecorder) back into structures for
// the CLI and the studio. Needs rdr_index.json; any other file that is missing or
// malformed is noted in `problems` and the rest is still read.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/common/result.h"

namespace ts::rdr {

struct RdrOpRow {
    int64_t seqid = -1;
    std::string op, scope, inputs, outputs;
};

struct RdrStepOrder {
    int64_t epoch = -1, step = -1;
    uint64_t totalOps = 0;  // ops executed in the step (rows may hold only the last ones)
    std::vector<RdrOpRow> rows;
};

struct RdrAllocRow {
    std::string tensor;
    uint64_t bytes = 0, offset = 0;
    int64_t allocNs = 0;
    int64_t freeNs = -1;  // -1 while live or failed
    std::string status;   // "live", "freed", "FAILED"
};

struct RdrExport {
    std::string folder;  // the rdr folder that was read
    // rdr_index.json
    std::string reason, failingOp, time;
    std::string detail;  // the error text (exception message, stop reason); may be empty
    int64_t failingSeqid = -1, signal = 0, epoch = -1, step = -1, timeNs = 0, rankId = 0, pid = 0;
    int64_t failingStep = -1;  // the step whose order holds the failing op (-1: unknown)
    int mode = 0;
    std::vector<std::string> files;
    // the files
    std::string graphIr;
    RdrStepOrder current, previous;
    uint64_t poolInUse = 0, poolPeak = 0, poolCapacity = 0;
    std::vector<RdrAllocRow> allocations;
    std::vector<std::string> logLines;
    std::map<std::string, std::string> runState;  // epoch, step, loss, loss_scale
    std::string runConfig;                        // the run's config JSON text
    std::vector<std::string> problems;            // "exec_order.txt: missing", ...

    /// Row index of the failing op in current.rows (seqid first, then name), or -1; -1 too
    /// when the index says the op is in the previous step.
    int failingRow() const;
    /// Row index of the failing op in previous.rows when the index places it in the
    /// previous step (failing_step), else -1.
    int failingPreviousRow() const;
};

/// Export folders under `path`: the folder itself when it holds rdr_index.json (or the
/// index file's folder when `path` is the file), else <path>/rdr, <path>/rank_*/rdr and
/// <path>/*/rank_*/rdr holding one, sorted by rank. Empty when none.
std::vector<std::string> findRdrFolders(const std::string& path);

/// Reads the first export folder found under `path`; error when there is none or its
/// index is unreadable.
Result<RdrExport> readRdrExport(const std::string& path);

/// One point of the memory-in-use curve: after the event at `timeNs`, `bytes` are live.
struct RdrMemoryPoint {
    int64_t timeNs = 0;
    int64_t bytes = 0;
};

/// Bytes in use over time from the allocation table (allocations add, frees subtract,
/// failed allocations add nothing), sorted by time. The table keeps only the last
/// allocations: with `endInUse` >= 0 (the pool's bytes in use at the export) the curve is
/// lifted by what was live before the first kept row, so it ends at `endInUse`.
std::vector<RdrMemoryPoint> rdrMemoryCurve(const std::vector<RdrAllocRow>& rows,
                                           int64_t endInUse = -1);

}  // namespace ts::rdr
