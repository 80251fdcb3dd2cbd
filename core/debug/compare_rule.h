#pragma once
// The pass rules of a dump comparison. "cosine" is msaccucmp's: cosine similarity at or
// above a threshold (plus NaN/Inf at the same positions, one shape, optional max-rel/max-abs
// limits, checked by the caller). "combined" adds the share of elements within a relative
// error, after the "double thousandths" criterion of accuracy checkers: at least 99.9 % of
// the finite elements within 0.1 % of the golden value when both dumps are 32/64-bit, within
// 0.5 % when either side is half precision (float16, bfloat16), whose rounding alone reaches
// 0.05-0.4 %. docs/DUMPS.md states the rule. No Qt.
#include <string_view>

#include "core/debug/tensor_compare.h"

namespace ts::debug {

enum class PassRule { Cosine, Combined };
/// "cosine" | "combined".
const char* passRuleName(PassRule r);
/// Parses "cosine" | "combined"; false for anything else.
bool parsePassRule(std::string_view text, PassRule& out);

/// Share of finite elements that must be within the relative error of the rule.
inline constexpr double kMinShareWithin = 0.999;

/// True when either dtype is half precision ("float16", "bfloat16", "half").
bool isHalfPrecision(std::string_view dtypeA, std::string_view dtypeB);

/// The ratio part of the combined rule: share1e3 (full precision) or share5e3 (half
/// precision on either side) at least kMinShareWithin.
bool ratiosPass(const CompareFigures& f, std::string_view dtypeA, std::string_view dtypeB);

}  // namespace ts::debug
