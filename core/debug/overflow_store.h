#pragma once
// Overflow findings and dump files in the session store (tables overflow_findings and
// dump_files, schema v3). The training run writes them; the Overflow view and the CLI read
// them back. Every function takes an open TraceStore and uses it from the calling thread.
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/store/trace_store.h"

namespace ts::debug {

/// One row of overflow_findings.
struct OverflowRecord {
    int64_t id = 0;
    int64_t runId = 0;
    int64_t step = 0;
    std::string op;      // op type, the dump group name ("MatMulGrad"); "LossScale" for
                         // a skipped loss-scale step
    std::string scope;   // full scope name (Gradients/Default/.../MatMul-op3)
    int64_t seqid = -1;  // per-step execution count of the op type (-1: none)
    std::string tensor;  // "output/0", "input/1", "gradients"
    uint64_t nan = 0, posinf = 0, neginf = 0;
    std::string origin = "op";  // "op" | "loss_scale"
    int64_t ts = 0;             // wall clock, ns since the epoch
    /// Dataset path in the overflow dump, "<op>/<seqid>/<tensor>" ("" for loss-scale rows).
    std::string datasetPath() const;
};

/// One row of dump_files.
struct DumpFileRecord {
    int64_t id = 0;
    int64_t runId = 0;
    std::string path;
    int64_t step = -1;  // -1: the file covers the whole run
    int64_t createdAt = 0;
};

/// Inserts findings in one transaction (or inside the caller's open one).
Status insertOverflowFindings(store::TraceStore& st, const std::vector<OverflowRecord>& rows);
Status insertDumpFile(store::TraceStore& st, int64_t runId, const std::string& path, int64_t step);

/// Findings of one run (runId 0: of every run) in the order they were found, at most `limit`.
Result<std::vector<OverflowRecord>> readOverflowFindings(store::TraceStore& st, int64_t runId,
                                                         int64_t limit = 100000);
/// Dump files of one run (runId 0: all), oldest first.
Result<std::vector<DumpFileRecord>> readDumpFiles(store::TraceStore& st, int64_t runId);

}  // namespace ts::debug
