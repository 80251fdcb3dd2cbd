#pragma once
// One rank of a cluster: where its data is (RankInput) and its steps with the time split the
// cluster view shows (RankProfile): step time, compute, communication, their overlap and
// idle time, per step. Definitions in docs/DISTRIBUTED.md, "Cluster view"; what counts as
// compute and communication in cluster_ops.h. No Qt.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/gpu/gpu_overview.h"
#include "core/analysis/gpu/hta.h"
#include "core/common/job_control.h"
#include "core/common/result.h"

namespace ts::store {
class TraceStore;
}

namespace ts::analysis {

/// Where a rank's data is: sources of one session (several when one rank wrote several
/// traces, e.g. one per profiler cycle).
struct RankInput {
    int64_t rank = -1;       // -1 until known (then assigned by order)
    std::string rankOrigin;  // distributedInfo | run config | file name | order
    std::optional<int64_t> worldSize;
    std::string sessionPath;
    std::vector<int64_t> sourceIds;  // empty: the session's newest profile source
    std::string label;               // short name shown for the rank (file or source label)
};

/// One step of one rank. Times in ns. overlapNs <= min(computeNs, commNs);
/// idleNs = dur - (compute + comm - overlap).
struct RankStep {
    int64_t number = 0;
    int64_t ts = 0, dur = 0;
    int64_t sliceId = 0;  // the step's marker slice; 0 when the step is the whole trace
    int64_t sourceId = 0;
    int64_t computeNs = 0, commNs = 0, overlapNs = 0, idleNs = 0;
    /// Communication not hidden by compute: in synchronous training, mostly waiting for
    /// the other ranks.
    int64_t waitNs() const { return commNs - overlapNs; }
    /// The rank's own time in the step: everything but the exposed communication.
    int64_t workNs() const { return dur - waitNs(); }
};

/// A rank's device figures under HTA's definitions and the studio's own per-step ones,
/// named apart (docs/DISTRIBUTED.md): HTA's temporal breakdown and comm-comp overlap (last
/// profiler step dropped, first to last kernel, memory copies non-compute), the studio's
/// figures summed over every joined step.
struct RankDeviceFigures {
    gpu::HtaTemporal hta;
    std::optional<double> htaOverlapPct;
    bool htaFiltered = false;
    int64_t htaRowsKept = 0, htaRowsDropped = 0;
    gpu::StepDeviceFigures studio;
    int64_t studioSteps = 0, studioStepsNs = 0;
    /// The rank's collective kernels (Kineto's collective arguments): "<collective>@<group>",
    /// start, end — matched across ranks by matchCollectives().
    struct CollectiveCall {
        std::string key;
        int64_t start = 0, end = 0;
    };
    std::vector<CollectiveCall> collectives;
    /// After matchCollectives(): the n-th call of each collective and group on every rank
    /// that has it is one collective; on this rank, wait = the latest start among those
    /// ranks - this rank's start (waiting for the last rank to arrive), transfer = this
    /// rank's end - that latest start.
    int64_t collectivesMatched = 0, collectiveWaitNs = 0, collectiveTransferNs = 0;
};

struct RankProfile {
    RankInput input;
    bool device = false;          // figures from device work (kernels, streams), else host ops
    std::string stepMarker;       // "ProfilerStep#N", "Iteration N" or "whole trace"
    std::vector<RankStep> steps;  // by step number (unique)
    int64_t slices = 0;           // slices read
    std::vector<std::string> warnings;
    std::optional<RankDeviceFigures> deviceFigures;  // GPU traces
};

/// Fills the wait / transfer of every rank's collectives (RankDeviceFigures above).
void matchCollectives(std::vector<RankProfile>& ranks);

/// Reads the rank's slices (the chunks of its sources' tracks, as the timeline reads them)
/// and measures every step. Steps: ProfilerStep#N, else msprof "Iteration N", else one
/// step (number 0) over the whole trace. A rank of msprof-analyze's
/// cluster_step_trace_time.csv (its source is that table) takes its steps from the table:
/// step = Computing + Communication(Not Overlapped) + Free, compute = Computing,
/// communication = Communication, overlap = Overlapped, idle = Free. GPU traces also get
/// their HTA and studio device figures. Errors: unknown source, no profile, damaged store,
/// cancelled.
Result<RankProfile> analyzeRank(store::TraceStore& store, const RankInput& input,
                                JobControl* job = nullptr);

}  // namespace ts::analysis
