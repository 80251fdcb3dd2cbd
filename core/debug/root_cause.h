#pragma once
// The root-cause rule of numerical debugging: walking the ops of a dump comparison in
// execution order, the root cause is the first op whose inputs all still agree while one of
// its outputs disagrees — the op that made the difference, as opposed to the first failing
// tensor, which may be an input that already came in different (a parameter, the data, an op
// that was not dumped) or an op that only passed an earlier difference on. No Qt.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ts::debug {

/// One compared tensor pair, in A's execution order: the op (unit) it belongs to, whether
/// it is one of the op's inputs (else an output), and whether it passed.
struct PairVerdict {
    size_t unit = 0;
    bool input = false;
    bool pass = true;
};

struct RootCause {
    std::optional<size_t> unit;          // the root-cause op (index of its unit)
    std::optional<size_t> firstFailing;  // index of the first failing pair
    std::vector<size_t> others;          // later ops that satisfy the rule too
    bool firstFailingIsInput = false;
    bool anyInputs = false;  // whether the dumps hold inputs at all
    /// Why there is no root cause, or "" when there is one (or nothing fails).
    std::string note;
};

/// Applies the rule to `pairs` (units numbered in order of first appearance). `unitNames`
/// (by unit) and `pathOf` (by pair) name things in the note; either may be empty.
RootCause findRootCause(const std::vector<PairVerdict>& pairs,
                        const std::vector<std::string>& unitNames = {},
                        const std::vector<std::string>& pathOf = {});

}  // namespace ts::debug
