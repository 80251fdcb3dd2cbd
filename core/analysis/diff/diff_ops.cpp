// The op table of a run diff: per mapped name (and input shapes) the figures of both sides
// per step; names found on one side only are joined with the other side's one-sided names of
// the same fuzzy form (MatMul-op12 in A with MatMul-op13 in B), else they stay added/removed.
#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "core/analysis/diff/diff_side.h"

namespace ts::analysis {
namespace {

/// Figures of one name (and shapes) on one side; raw names are name ids of that side.
struct Acc {
    double calls = 0, total = 0, self = 0;
    int64_t catId = -1;
    std::vector<int64_t> rawNames;  // at most kMaxNames distinct
    static constexpr size_t kMaxNames = 8;
    void addName(int64_t id) {
        if (rawNames.size() < kMaxNames &&
            std::find(rawNames.begin(), rawNames.end(), id) == rawNames.end())
            rawNames.push_back(id);
    }
    void merge(const Acc& o) {
        calls += o.calls, total += o.total, self += o.self;
        if (catId < 0) catId = o.catId;
        for (int64_t id : o.rawNames) addName(id);
    }
};

uint64_t keyOf(uint32_t name, uint32_t shape) {
    return (static_cast<uint64_t>(name) << 32) | shape;
}

std::unordered_map<uint64_t, Acc> accumulate(const DiffSide& s, DiffGroupBy by) {
    std::unordered_map<uint64_t, Acc> out;
    const ProfileData& d = s.data;
    const bool shapes = by == DiffGroupBy::Shape && !s.shape.empty();
    for (size_t i = 0; i < d.slices.size(); ++i) {
        if (!s.inScope(i)) continue;
        const ProfileSlice& sl = d.slices[i];
        Acc& a = out[keyOf(s.opName[i], shapes ? s.shape[i] : 0)];
        a.calls += 1;
        a.total += static_cast<double>(sl.dur);
        a.self += static_cast<double>(s.self[i]);
        if (a.catId < 0) a.catId = sl.catId;
        a.addName(sl.nameId);
    }
    return out;
}

class RowMaker {
public:
    RowMaker(const DiffSide& a, const DiffSide& b, const std::vector<std::string>& shapeTexts)
        : m_shapeTexts(shapeTexts) {
        m_sides[0] = &a;
        m_sides[1] = &b;
    }

    /// A row named `name`; `shape` indexes the shape texts common to both sides.
    OpDiffRow make(const std::string& name, uint32_t shape, const Acc& a, const Acc& b) const {
        OpDiffRow r;
        r.name = name;
        const Acc* acc[2] = {&a, &b};
        if (shape < m_shapeTexts.size()) r.shapes = m_shapeTexts[shape];
        for (int k = 0; k < 2; ++k) {
            const DiffSide& s = *m_sides[k];
            const double n = s.perStep();
            r.calls[k] = acc[k]->calls / n;
            r.totalNs[k] = acc[k]->total / n;
            r.selfNs[k] = acc[k]->self / n;
            r.avgNs[k] = acc[k]->calls > 0 ? acc[k]->total / acc[k]->calls : 0;
            if (r.category.empty() && acc[k]->catId >= 0) r.category = s.data.str(acc[k]->catId);
            auto& names = k == 0 ? r.namesA : r.namesB;
            for (int64_t id : acc[k]->rawNames)
                if (s.data.str(id) != r.name) names.push_back(s.data.str(id));
            std::sort(names.begin(), names.end());
        }
        r.deltaNs = r.selfNs[1] - r.selfNs[0];
        if (r.selfNs[0] > 0)
            r.ratio = r.selfNs[1] / r.selfNs[0];
        else
            r.ratio = r.selfNs[1] > 0 ? std::numeric_limits<double>::infinity()
                                      : std::numeric_limits<double>::quiet_NaN();
        return r;
    }

private:
    const DiffSide* m_sides[2];
    const std::vector<std::string>& m_shapeTexts;
};

}  // namespace

std::vector<OpDiffRow> diffOpTable(const DiffSide& a, const DiffSide& b, const DiffNames& names,
                                   DiffGroupBy by) {
    // Shapes are indexes into each side's own texts: compare them as texts across sides.
    const bool shapes = by == DiffGroupBy::Shape;
    std::unordered_map<std::string, uint32_t> shapeIds;
    std::vector<std::string> shapeTexts;  // common to both sides
    std::vector<uint32_t> shapeOf[2];
    for (int k = 0; k < 2; ++k) {
        for (const auto& t : (k == 0 ? a : b).shapeTexts) {
            auto [it, fresh] = shapeIds.emplace(t, static_cast<uint32_t>(shapeTexts.size()));
            if (fresh) shapeTexts.push_back(t);
            shapeOf[k].push_back(it->second);
        }
    }
    auto common = [&](int side, uint64_t key) {
        const uint32_t shape = static_cast<uint32_t>(key & 0xffffffffu);
        return shapes ? keyOf(static_cast<uint32_t>(key >> 32), shapeOf[side][shape]) : key;
    };
    std::unordered_map<uint64_t, std::pair<Acc, Acc>> both;  // by (name, common shape)
    for (int k = 0; k < 2; ++k)
        for (auto& [key, acc] : accumulate(k == 0 ? a : b, by)) {
            const uint64_t c = common(k, key);
            (k == 0 ? both[c].first : both[c].second) = std::move(acc);
        }
    const RowMaker maker(a, b, shapeTexts);
    auto shapeOfKey = [&](uint64_t key) {
        return shapes ? static_cast<uint32_t>(key & 0xffffffffu) : UINT32_MAX;
    };
    std::vector<OpDiffRow> rows;
    struct Group {
        Acc acc[2];
        std::vector<uint64_t> keys;
    };
    std::unordered_map<uint64_t, Group> fuzzy;  // by (fuzzy name, common shape)
    for (const auto& [key, pair] : both) {
        const uint32_t name = static_cast<uint32_t>(key >> 32);
        if (pair.first.calls > 0 && pair.second.calls > 0) {
            rows.push_back(maker.make(names.text(name), shapeOfKey(key), pair.first, pair.second));
            continue;
        }
        Group& g = fuzzy[keyOf(names.fuzzy(name), static_cast<uint32_t>(key & 0xffffffffu))];
        g.acc[0].merge(pair.first);
        g.acc[1].merge(pair.second);
        g.keys.push_back(key);
    }
    for (const auto& [fk, g] : fuzzy) {
        if (g.acc[0].calls > 0 && g.acc[1].calls > 0) {
            OpDiffRow r = maker.make(names.fuzzyText(static_cast<uint32_t>(fk >> 32)),
                                     shapeOfKey(fk), g.acc[0], g.acc[1]);
            r.fuzzy = true;
            rows.push_back(std::move(r));
            continue;
        }
        for (uint64_t key : g.keys) {  // not joined: each name keeps its own row
            const auto& pair = both[key];
            rows.push_back(maker.make(names.text(static_cast<uint32_t>(key >> 32)), shapeOfKey(key),
                                      pair.first, pair.second));
        }
    }
    return rows;
}

}  // namespace ts::analysis
