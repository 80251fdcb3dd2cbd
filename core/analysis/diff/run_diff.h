#pragma once
// Run against run: what changed between two profiles (this commit against the last, NPU
// against GPU, rank 3 against rank 0, a run before and after a setting). Two profiles (a run
// or a source of a session each; the same session or two), optionally one step of each,
// optionally a name map, give:
//  - per op name (or name and input shapes): calls, total, self and avg in A and B, the
//    change of self time, the ratio, and a class (added, removed, slower, faster, unchanged
//    within a noise band taken from the steps' spread), ranked by the size of the change;
//  - the step split side by side (iteration gap, forward, backward, optimizer, callbacks,
//    CPU ops, idle; communication, kernels and device idle beside them) and which part
//    explains the change of step time;
//  - the ops of one step of each side aligned by their order (op_alignment.h), so an op
//    inserted in B is "inserted" without shifting the pairs after it.
// Decisions and formulas: docs/DIFF.md. No Qt; the Diff view and `trainscope-cli diff`
// share it.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/diff/name_map.h"
#include "core/analysis/diff/op_alignment.h"
#include "core/analysis/profile/step_analysis.h"
#include "core/common/job_control.h"
#include "core/common/result.h"

namespace ts::analysis {

/// Where one side of a diff comes from.
struct DiffSideSpec {
    std::string path;                 // the session file
    std::optional<int64_t> sourceId;  // :source=N
    std::optional<int64_t> runId;     // :run=N (its profile); neither: the newest profile
    std::optional<int64_t> step;      // one ProfilerStep#N (--base-step for A, --step for B)
};

enum class DiffGroupBy { Name, Shape };

struct RunDiffOptions {
    NameMap map;  // applied to the op names of both sides
    DiffGroupBy by = DiffGroupBy::Name;
};

/// Noise band: an op is unchanged when its self time per step changes by a factor of at most
/// 1 + band either way (B/A and A/B both <= 1 + band), or by at most kDiffMinStepShare x the
/// longer step in absolute terms, where band = max(kDiffMinNoise, kDiffNoiseMads x the larger
/// relative spread (MAD / median) of the two sides' steady step times).
inline constexpr double kDiffMinNoise = 0.05;
inline constexpr double kDiffNoiseMads = 3.0;
inline constexpr double kDiffMinStepShare = 0.001;

enum class OpChange { Added, Removed, Slower, Faster, Unchanged };
/// "added", "removed", "slower", "faster", "unchanged".
const char* opChangeKey(OpChange c);

/// One row of the op table. Figures are per step (means over the steps in scope).
struct OpDiffRow {
    std::string name;      // mapped op name; its fuzzy form when one-sided names were joined
    std::string shapes;    // input shapes as JSON text (grouping by shape), else ""
    std::string category;  // slice category (of A when both have the op)
    std::vector<std::string> namesA, namesB;  // original names when they differ from `name`
    double calls[2] = {0, 0};
    double totalNs[2] = {0, 0};
    double selfNs[2] = {0, 0};
    double avgNs[2] = {0, 0};  // total / calls (per call)
    double deltaNs = 0;        // self B - self A
    double ratio = 0;          // self B / self A; +inf when A has none, NaN when neither
    OpChange change = OpChange::Unchanged;
    bool fuzzy = false;  // joined by fuzzy name (numbering ignored)
};

/// One part of the step split, side by side (means per step).
struct DiffSplitPart {
    std::string key;    // iteration_gap, forward, backward, optimizer, callbacks, cpu_ops,
                        // idle | communication, kernels, device_idle
    std::string label;  // for people
    double ns[2] = {0, 0};
    bool disjoint = true;  // a part of the step's partition; false: overlaps the others
};

struct DiffSideInfo {
    std::string path;
    int64_t sourceId = 0;
    std::string label, kind;
    std::optional<int64_t> runId;
    std::optional<int64_t> step;  // the step asked for
    std::vector<int64_t> steps;   // numbers of the steps in scope
    int64_t profileSteps = 0;     // ProfilerStep#N slices of the profile
    bool warmupSkipped = false;   // the first step was left out as warm-up
    double stepNs = 0;            // mean duration of the steps in scope (span without steps)
    double spread = 0;            // MAD / median of the steady steps (0 with fewer than 3)
    StepSplit split = StepSplit::Ops;
    int64_t opSlices = 0;      // op slices in scope
    int64_t alignedStep = -1;  // ProfilerStep number aligned, -1: the whole profile
    int64_t alignedTs = 0, alignedDur = 0, alignedSliceId = 0;
};

/// One op of an aligned step.
struct AlignedOp {
    int64_t sliceId = 0, trackId = 0, ts = 0, dur = 0;
    int32_t depth = 0;
    uint32_t name = 0;  // index into DiffAlignment::names (mapped name)
    uint8_t lane = 0;   // 0: host ops, 1: device ops (kernels, copies on device streams)
};

struct DiffAlignment {
    std::vector<AlignedOp> ops[2];                     // A, B: host lane, then device lane
    std::vector<std::pair<uint32_t, uint32_t>> pairs;  // indexes into ops[0], ops[1]
    std::vector<uint32_t> deleted;                     // ops[0] without partner
    std::vector<uint32_t> inserted;                    // ops[1] without partner
    std::vector<AlignmentGap> gaps;  // runs of unpaired ops, in indexes of ops[0]/ops[1]
    std::vector<std::string> names;
    int64_t fuzzyPairs = 0;  // pairs whose mapped names differ (numbering only)
    bool exact = true;       // no search hit the cost cap
    double seconds = 0;      // time the alignment itself took
    /// Index of the first pair whose A or B op is named `name`, -1 when none.
    int64_t firstPairNamed(const std::string& name) const;
};

/// The outermost op or user annotation that explains the largest op change (an aten::mm
/// slower inside a record_function("slow_block"): slow_block): an enclosing slice present
/// around every call of the changed op whose total time per step changed by at least
/// kDiffAttributionShare of the op's change, in the same direction. The innermost such user
/// annotation wins (the user's name for that piece of code); without one, the outermost op.
struct DiffAttribution {
    std::string name;      // "" when nothing encloses the change (the op itself explains it)
    std::string category;  // its slice category (user_annotation, cpu_op, ...)
    bool annotation = false;
    double totalNs[2] = {0, 0};  // its total time per step in A and B
    double deltaNs = 0;          // total B - total A
    std::string op;              // the changed op it holds
};
inline constexpr double kDiffAttributionShare = 0.8;

struct RunDiff {
    DiffSideInfo a, b;
    std::vector<OpDiffRow> ops;   // ranked by |deltaNs|, largest first
    DiffAttribution attribution;  // of the largest op change (see DiffAttribution)
    std::vector<DiffSplitPart> split;
    std::string splitExplains;  // key of the split part that explains the change ("" none)
    std::string explains;       // one sentence: what changed and what explains it
    double noiseBand = kDiffMinNoise;
    double floorNs = 0;
    DiffAlignment aligned;
};

/// Compares B against A. Errors: a session that cannot be opened or has no profile, an
/// unknown run/source, a step that does not exist ("A has no step 7 (steps 1-5)"), A and B
/// the same profile and the same steps, cancelled.
Result<RunDiff> diffRuns(const DiffSideSpec& a, const DiffSideSpec& b,
                         const RunDiffOptions& options, JobControl* job = nullptr);

/// Parses "FILE[:run=N|:source=N]" (the CLI's and the view's spelling of a side).
Result<DiffSideSpec> parseDiffSide(const std::string& text);

}  // namespace ts::analysis
