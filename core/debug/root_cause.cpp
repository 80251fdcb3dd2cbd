#include "core/debug/root_cause.h"

#include <algorithm>

namespace ts::debug {

RootCause findRootCause(const std::vector<PairVerdict>& pairs,
                        const std::vector<std::string>& unitNames,
                        const std::vector<std::string>& pathOf) {
    RootCause rc;
    size_t units = 0;
    for (const auto& p : pairs) units = std::max(units, p.unit + 1);
    struct Unit {
        size_t inputs = 0, inputsFailing = 0, outputsFailing = 0;
        size_t first = 0;  // first pair of the unit
        bool seen = false;
    };
    std::vector<Unit> u(units);
    std::vector<size_t> order;  // units by first pair
    for (size_t i = 0; i < pairs.size(); ++i) {
        const PairVerdict& p = pairs[i];
        Unit& x = u[p.unit];
        if (!x.seen) x.seen = true, x.first = i, order.push_back(p.unit);
        if (p.input) {
            ++x.inputs;
            x.inputsFailing += p.pass ? 0 : 1;
            rc.anyInputs = true;
        } else {
            x.outputsFailing += p.pass ? 0 : 1;
        }
        if (!p.pass && !rc.firstFailing) {
            rc.firstFailing = i;
            rc.firstFailingIsInput = p.input;
        }
    }
    for (size_t k : order) {
        const Unit& x = u[k];
        if (x.inputs == 0 || x.inputsFailing > 0 || x.outputsFailing == 0) continue;
        if (!rc.unit)
            rc.unit = k;
        else
            rc.others.push_back(k);
    }
    if (rc.unit || !rc.firstFailing) return rc;
    auto unitName = [&](size_t k) {
        return k < unitNames.size() ? unitNames[k] : "op #" + std::to_string(k);
    };
    const size_t f = *rc.firstFailing;
    const std::string tensor = f < pathOf.size() ? pathOf[f] : "pair #" + std::to_string(f);
    if (!rc.anyInputs)
        rc.note =
            "the dumps hold no inputs (dump_mode output): the rule needs each op's inputs; "
            "the first failing tensor is " +
            tensor;
    else if (rc.firstFailingIsInput)
        rc.note = "the first failing tensor, " + tensor + ", is an input of " +
                  unitName(pairs[f].unit) +
                  ": the difference comes in from outside the dumped ops (a parameter, the "
                  "data, or an op that was not dumped), and no op after it has agreeing inputs "
                  "with a disagreeing output";
    else
        rc.note = "no op has all its inputs agreeing while an output disagrees: " +
                  unitName(pairs[f].unit) + " fails first, but its inputs were not dumped";
    return rc;
}

}  // namespace ts::debug
