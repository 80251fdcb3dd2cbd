#pragma once
// Sequence alignment of two op sequences (one step of run A against one step of run B), so
// that an op inserted or removed in B does not shift every pair after it. Ops are compared
// by token id (interned, already name-mapped and fuzzy-normalised: see name_map.h); the
// alignment is a longest common subsequence of the two token sequences.
//
// Algorithm: Myers' O((N+M)·D) difference algorithm in its linear-space form (divide and
// conquer on the "middle snake"), after trimming the common prefix and suffix and dropping
// tokens that occur on one side only (they can never pair). Memory is O(N+M). The cost of
// one middle-snake search is capped at `maxCost` edit steps (default max(256, sqrt(N+M+3)),
// as git's xdiff does); past the cap the search splits at the diagonal that got furthest,
// which keeps the whole alignment O((N+M)·maxCost) at worst and may then miss the minimal
// edit script by a little (Alignment::exact tells). No Qt.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/common/job_control.h"

namespace ts::analysis {

struct AlignOptions {
    /// Edit steps one middle-snake search may take before it splits heuristically; 0 picks
    /// max(kMinAlignCost, sqrt(N+M+3)).
    int64_t maxCost = 0;
};

/// The smallest automatic cost cap (git's XDL_MAX_COST_MIN).
inline constexpr int64_t kMinAlignCost = 256;

struct Alignment {
    /// (index in A, index in B) of every pair; increasing in both.
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    std::vector<uint32_t> deleted;   // indexes of A without a partner, increasing
    std::vector<uint32_t> inserted;  // indexes of B without a partner, increasing
    /// False when a search hit the cost cap and split heuristically (the pairs are still a
    /// common subsequence, maybe not the longest).
    bool exact = true;
};

/// Aligns `a` and `b` (equal ids pair). Cancellation through `job` returns what is aligned
/// so far with the rest unpaired (the caller checks job->cancelled()).
Alignment alignSequences(std::span<const uint32_t> a, std::span<const uint32_t> b,
                         const AlignOptions& options = {}, JobControl* job = nullptr);

/// A run of unpaired ops between two pairs: A[aBegin, aEnd) deleted, B[bBegin, bEnd)
/// inserted at the same place.
struct AlignmentGap {
    uint32_t aBegin = 0, aEnd = 0, bBegin = 0, bEnd = 0;
};
/// The gaps of an alignment of sequences of lengths `n` and `m`, in order.
std::vector<AlignmentGap> alignmentGaps(const Alignment& al, size_t n, size_t m);

}  // namespace ts::analysis
