#include "core/analysis/diff/scalar_diff.h"

#include <algorithm>
#include <map>

namespace ts::analysis {

std::vector<curves::ScalarPoint> differenceByStep(const curves::ScalarSeries& a,
                                                  const curves::ScalarSeries& b) {
    std::map<int64_t, double> inA;
    for (const auto& p : a.points) inA[p.step] = p.value;
    std::map<int64_t, curves::ScalarPoint> inB;
    for (const auto& p : b.points) inB[p.step] = p;
    std::vector<curves::ScalarPoint> out;
    for (const auto& [step, p] : inB) {
        auto it = inA.find(step);
        if (it == inA.end()) continue;
        out.push_back({step, p.wallTimeNs, p.value - it->second});
    }
    return out;
}

}  // namespace ts::analysis
