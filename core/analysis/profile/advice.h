#pragma once
// Advice: rules that name the biggest costs of a profile in the terms of the porting guide
// (../shared/seeds/003_*: 算子瓶颈 op bottleneck, copy瓶颈 copy bottleneck) and the MindSpore
// FAQ (../shared/seeds/001_*: 迭代间隙 iteration gap / data loading, 首个 step compile and
// warm-up). Each finding carries its figures and the slices that prove it. Findings are
// sorted by the time they cost, largest first. No Qt.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/profile/profile_data.h"
#include "core/analysis/profile/step_analysis.h"

namespace ts::analysis {

/// Op bottleneck: one op type takes more than this share of all op self time.
inline constexpr double kOpBottleneckShare = 0.40;
/// Copy bottleneck: copies / contiguous / format conversions exceed this share of op time.
inline constexpr double kCopyBottleneckShare = 0.10;
/// Data-loading bottleneck: iteration gap exceeds this share of step time (steady steps).
inline constexpr double kDataLoadingShare = 0.20;
/// First-step warm-up: see kWarmupFactor in step_analysis.h (first step > 2x median).
/// Evidence lists keep at most this many slices (the longest first).
inline constexpr size_t kMaxEvidence = 20;

enum class AdviceKind {
    OpBottleneck,
    CopyBottleneck,
    DataLoadingBottleneck,
    FirstStepWarmup,
    BiggestCost  // not a rule: costOverview()'s summary, present whatever the thresholds
};
/// Stable key: "op_bottleneck", "copy_bottleneck", "data_loading_bottleneck",
/// "first_step_warmup", "biggest_cost".
const char* adviceKindKey(AdviceKind k);

struct AdviceFinding {
    AdviceKind kind{};
    std::string title;        // e.g. "Op bottleneck: MatMul takes 62% of op self time"
    std::string explanation;  // what it means and what to try, in the seeds' terms
    double share = 0;         // the figure compared with the rule's threshold (0..1+)
    double threshold = 0;     // the rule's threshold
    int64_t costNs = 0;       // time attributed to the cause (used for ordering)
    std::vector<std::pair<std::string, std::string>> figures;  // label -> value
    std::vector<int64_t> evidence;                             // slice ids, longest first
    std::vector<std::string> evidenceLabels;                   // per evidence id: "name (duration)"
    std::vector<std::pair<int64_t, int64_t>> evidenceRanges;   // per evidence id: its step
    int64_t rangeStart = 0, rangeEnd = 0;                      // time range that shows the evidence
};

/// Op self time per op type (self = duration minus direct children on the same track),
/// over op slices (isOpCategory) inside steps (or everywhere when there are no steps).
struct OpSelfTime {
    std::string name;
    int64_t selfNs = 0;
    int64_t calls = 0;
    bool copy = false;
};
std::vector<OpSelfTime> opSelfTimes(const ProfileData& data, const StepAnalysis& steps);

/// Runs every rule; empty when nothing passes its threshold.
std::vector<AdviceFinding> computeAdvice(const ProfileData& data, const StepAnalysis& steps);

/// Where the time goes whatever the thresholds (kind BiggestCost): the op type with the most
/// self time in the title, the top op types and the steady steps' split as figures, that
/// op's longest calls as evidence. nullopt when the profile has no op slices.
std::optional<AdviceFinding> costOverview(const ProfileData& data, const StepAnalysis& steps);

}  // namespace ts::analysis
