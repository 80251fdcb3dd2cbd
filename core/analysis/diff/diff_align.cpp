// Alignment of the ops of one step of each side (op_alignment.h), lane by lane: host ops in
// start order (parents before children), device ops in start order. Tokens are the ids of the
// fuzzy forms of the mapped names (DiffNames), shared by both sides.
#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "core/analysis/diff/diff_side.h"

namespace ts::analysis {
namespace {

/// Slice indexes of one lane of the aligned step (all ops in scope without steps), in order.
std::vector<size_t> laneOps(const DiffSide& s, OpLane lane) {
    std::vector<size_t> out;
    const ProfileData& d = s.data;
    for (size_t i = 0; i < d.slices.size(); ++i) {
        if (s.lane[i] != lane) continue;
        if (s.alignedIndex >= 0 ? s.stepOf[i] != s.alignedIndex : !s.inScope(i)) continue;
        out.push_back(i);
    }
    std::sort(out.begin(), out.end(), [&d](size_t x, size_t y) {
        const ProfileSlice &p = d.slices[x], &q = d.slices[y];
        if (p.ts != q.ts) return p.ts < q.ts;
        if (p.depth != q.depth) return p.depth < q.depth;
        return p.trackId != q.trackId ? p.trackId < q.trackId : p.id < q.id;
    });
    return out;
}

}  // namespace

int64_t DiffAlignment::firstPairNamed(const std::string& name) const {
    for (size_t k = 0; k < pairs.size(); ++k) {
        const auto& [i, j] = pairs[k];
        if (names[ops[0][i].name] == name || names[ops[1][j].name] == name)
            return static_cast<int64_t>(k);
    }
    return -1;
}

DiffAlignment alignSteps(const DiffSide& a, const DiffSide& b, const DiffNames& names,
                         JobControl* job) {
    DiffAlignment out;
    // Names used in the aligned steps, numbered in order of appearance.
    std::vector<uint32_t> used(names.size(), UINT32_MAX);
    auto nameOf = [&](uint32_t id) {
        if (used[id] == UINT32_MAX) {
            used[id] = static_cast<uint32_t>(out.names.size());
            out.names.push_back(names.text(id));
        }
        return used[id];
    };
    const DiffSide* sides[2] = {&a, &b};
    double seconds = 0;
    for (OpLane lane : {OpLane::Host, OpLane::Device}) {
        std::vector<uint32_t> tokens[2];
        const uint32_t base[2] = {static_cast<uint32_t>(out.ops[0].size()),
                                  static_cast<uint32_t>(out.ops[1].size())};
        for (int side = 0; side < 2; ++side) {
            const DiffSide& s = *sides[side];
            for (size_t i : laneOps(s, lane)) {
                const ProfileSlice& sl = s.data.slices[i];
                tokens[side].push_back(names.fuzzy(s.opName[i]));
                out.ops[side].push_back({sl.id, sl.trackId, sl.ts, sl.dur, sl.depth,
                                         nameOf(s.opName[i]),
                                         static_cast<uint8_t>(lane == OpLane::Device ? 1 : 0)});
            }
        }
        const auto t0 = std::chrono::steady_clock::now();
        const Alignment al = alignSequences(tokens[0], tokens[1], {}, job);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        out.exact = out.exact && al.exact;
        for (const auto& [i, j] : al.pairs) {
            out.pairs.emplace_back(base[0] + i, base[1] + j);
            if (out.ops[0][base[0] + i].name != out.ops[1][base[1] + j].name) ++out.fuzzyPairs;
        }
        for (uint32_t i : al.deleted) out.deleted.push_back(base[0] + i);
        for (uint32_t j : al.inserted) out.inserted.push_back(base[1] + j);
        for (AlignmentGap g : alignmentGaps(al, tokens[0].size(), tokens[1].size())) {
            g.aBegin += base[0], g.aEnd += base[0], g.bBegin += base[1], g.bEnd += base[1];
            out.gaps.push_back(g);
        }
    }
    out.seconds = seconds;
    return out;
}

}  // namespace ts::analysis
