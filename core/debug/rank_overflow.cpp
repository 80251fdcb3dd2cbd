#include "core/debug/rank_overflow.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace ts::debug {

int64_t rankFromPath(const std::string& path) {
    int64_t found = -1;
    std::string lower = path;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (size_t k = lower.find("rank"); k != std::string::npos; k = lower.find("rank", k + 1)) {
        size_t i = k + 4;
        if (i < lower.size() &&
            (lower[i] == '_' || lower[i] == '-' || lower[i] == '.' || lower[i] == ' '))
            ++i;
        size_t j = i;
        while (j < lower.size() && std::isdigit(static_cast<unsigned char>(lower[j]))) ++j;
        if (j > i && j - i < 10) found = std::stoll(lower.substr(i, j - i));
    }
    return found;
}

RankOverflowOrder orderRankFindings(std::vector<RankFirstFinding> firsts) {
    RankOverflowOrder out;
    for (auto& f : firsts) (f.found ? out.ranks : out.clean).push_back(std::move(f));
    std::stable_sort(out.ranks.begin(), out.ranks.end(),
                     [](const RankFirstFinding& a, const RankFirstFinding& b) {
                         const bool ta = !std::isnan(a.timeS), tb = !std::isnan(b.timeS);
                         if (ta != tb) return ta;
                         if (ta && a.timeS != b.timeS) return a.timeS < b.timeS;
                         if (a.step != b.step) return a.step < b.step;
                         return a.rank < b.rank;
                     });
    std::sort(out.clean.begin(), out.clean.end(),
              [](const RankFirstFinding& a, const RankFirstFinding& b) { return a.rank < b.rank; });
    for (const auto& f : out.ranks) out.timed &= !std::isnan(f.timeS);
    if (out.ranks.empty()) {
        out.summary = "no rank saw NaN/Inf";
        return out;
    }
    for (size_t i = 0; i < out.ranks.size() && !out.origin; ++i)
        if (!out.ranks[i].collective) out.origin = i;
    if (!out.origin) out.origin = 0;
    const RankFirstFinding& o = out.ranks[*out.origin];
    size_t through = 0, own = 0;
    for (size_t i = 0; i < out.ranks.size(); ++i) {
        const RankFirstFinding& f = out.ranks[i];
        if (i == *out.origin)
            out.verdicts.push_back(f.collective ? "first (at a collective: its source is not in "
                                                  "these inputs)"
                                                : "first: produced it in " + f.op);
        else if (f.collective)
            ++through, out.verdicts.push_back("reached it through " + f.op);
        else
            ++own, out.verdicts.push_back("its own NaN/Inf in " + f.op +
                                          " (not through a collective)");
    }
    char head[256];
    std::snprintf(head, sizeof head, "rank %lld saw NaN/Inf first (%s)",
                  static_cast<long long>(o.rank), o.path.c_str());
    out.summary = head;
    if (through)
        out.summary +=
            "; it reached " + std::to_string(through) + " other rank(s) through a collective";
    if (own) out.summary += "; " + std::to_string(own) + " rank(s) produced their own";
    if (!out.clean.empty())
        out.summary += "; " + std::to_string(out.clean.size()) + " rank(s) clean";
    if (!out.timed) out.summary += " (some findings have no time: ordered by step and rank)";
    return out;
}

}  // namespace ts::debug
