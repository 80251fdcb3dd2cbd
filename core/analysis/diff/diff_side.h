#pragma once
// One side of a run diff read into memory: the profile, its steps, the steps in scope, and
// per slice its self time, whether it is an op (host or device) and the step it belongs to.
// Used by run_diff.cpp, diff_split.cpp and diff_align.cpp. No Qt.
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/analysis/diff/run_diff.h"
#include "core/analysis/profile/profile_data.h"
#include "core/analysis/profile/step_analysis.h"

namespace ts::analysis {

enum class OpLane : uint8_t { None = 0, Host = 1, Device = 2 };

/// The op names of both sides of a diff, interned once: mapped names (ids) and their fuzzy
/// keys (ids of a second table), so a step of 100,000 distinctly numbered ops costs one map
/// and one fuzzy form per name, not one per use.
class DiffNames {
public:
    /// Id of a mapped name.
    uint32_t intern(const std::string& mapped);
    /// Room for `n` names.
    void reserve(size_t n);
    const std::string& text(uint32_t id) const { return m_text[id]; }
    /// Id of the fuzzy form of mapped name `id`.
    uint32_t fuzzy(uint32_t id) const { return m_fuzzyOf[id]; }
    const std::string& fuzzyText(uint32_t key) const { return m_fuzzyText[key]; }
    /// Whether mapped name `id` is a collective (isCommunicationName of its fuzzy form, which
    /// keeps every letter: computed once per fuzzy name).
    bool communication(uint32_t id) const { return m_fuzzyComm[m_fuzzyOf[id]] != 0; }
    size_t size() const { return m_text.size(); }

private:
    std::deque<std::string> m_text, m_fuzzyText;  // stable addresses for the views below
    std::unordered_map<std::string_view, uint32_t> m_id, m_fuzzyId;
    std::vector<uint32_t> m_fuzzyOf;
    std::vector<uint8_t> m_fuzzyComm;
    std::string m_buffer;
};

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
    std::vector<uint32_t> opName;        // per op slice: DiffNames id of its mapped name (nameOps)
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

/// Maps and interns the names of the side's ops (fills s.opName), once per distinct name.
void nameOps(DiffSide& s, const NameMap& map, DiffNames& names);

/// The op table of B against A: per mapped name (and shapes), figures per step, ratio and
/// delta (classes are set by the caller); one-sided names joined by their fuzzy form.
std::vector<OpDiffRow> diffOpTable(const DiffSide& a, const DiffSide& b, const DiffNames& names,
                                   DiffGroupBy by);

/// The step split of both sides (means over their steps in scope) and the key of the
/// disjoint part that explains the change of step time ("" when none does).
std::vector<DiffSplitPart> diffSplit(const DiffSide& a, const DiffSide& b, const DiffNames& names,
                                     std::string* explains);

/// Aligns the ops of the aligned step of each side, lane by lane.
DiffAlignment alignSteps(const DiffSide& a, const DiffSide& b, const DiffNames& names,
                         JobControl* job);

/// What encloses the largest change `top` (see DiffAttribution): looked for on the side
/// where the op takes longer.
DiffAttribution attributeChange(const DiffSide& a, const DiffSide& b, const DiffNames& names,
                                const OpDiffRow& top);

}  // namespace ts::analysis
