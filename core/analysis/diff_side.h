#pragma once
// One side of a run diff read into memory: the profile, its steps, the steps in scope, and
// per slice its self time, whether it is an op (host or device) and the step it belongs to.
// Used by run_diff.cpp, diff_split.cpp and diff_align.cpp. No Qt.
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/profile_data.h"
#include "core/analysis/run_diff.h"
#include "core/analysis/step_analysis.h"

namespace ts::analysis {

enum class OpLane : uint8_t { None = 0, Host = 1, Device = 2 };

struct DiffSide {
    DiffSideInfo info;
    ProfileData data;
    StepAnalysis steps;
    std::vector<size_t> scope;    // indexes into steps.steps; empty: the profile has none
    std::vector<int64_t> self;    // per slice: duration minus direct children (same track)
    std::vector<OpLane> lane;     // per slice
    std::vector<int32_t> stepOf;  // per slice: index into steps.steps, -1 outside the scope
    std::vector<uint32_t> shape;  // per slice (grouping by shape): index into shapeTexts
    std::vector<std::string> shapeTexts{std::string()};
    int32_t alignedIndex = -1;           // index into steps.steps of the aligned step, -1: none
    int64_t spanStart = 0, spanEnd = 0;  // the ops' extent (scope of a profile without steps)

    /// Number of steps the figures are divided by (at least 1).
    double perStep() const { return scope.empty() ? 1.0 : static_cast<double>(scope.size()); }
    /// Whether slice i is an op inside the scope.
    bool inScope(size_t i) const {
        return lane[i] != OpLane::None && (steps.steps.empty() || stepOf[i] >= 0);
    }
};

/// Opens the session of `spec` read-only and reads one side. `which` ("A" / "B") prefixes
/// errors. With `shapes`, the input shapes of the ops in scope are read too.
Result<DiffSide> loadDiffSide(const DiffSideSpec& spec, const char* which, bool shapes,
                              JobControl* job);

/// The step split of both sides (means over their steps in scope) and the key of the
/// disjoint part that explains the change of step time ("" when none does).
std::vector<DiffSplitPart> diffSplit(const DiffSide& a, const DiffSide& b, std::string* explains);

/// Aligns the ops of the aligned step of each side, lane by lane.
DiffAlignment alignSteps(const DiffSide& a, const DiffSide& b, const NameMap& map, JobControl* job);

}  // namespace ts::analysis
