#include "core/debug/compare_rule.h"

namespace ts::debug {

const char* passRuleName(PassRule r) {
    return r == PassRule::Combined ? "combined" : "cosine";
}

bool parsePassRule(std::string_view text, PassRule& out) {
    if (text == "cosine") {
        out = PassRule::Cosine;
        return true;
    }
    if (text == "combined") {
        out = PassRule::Combined;
        return true;
    }
    return false;
}

bool isHalfPrecision(std::string_view a, std::string_view b) {
    for (std::string_view d : {a, b})
        if (d == "float16" || d == "bfloat16" || d == "half") return true;
    return false;
}

bool ratiosPass(const CompareFigures& f, std::string_view dtypeA, std::string_view dtypeB) {
    const double share = isHalfPrecision(dtypeA, dtypeB) ? f.share5e3() : f.share1e3();
    return share >= kMinShareWithin;
}

}  // namespace ts::debug
