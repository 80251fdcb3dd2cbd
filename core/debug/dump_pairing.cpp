#include "core/debug/dump_pairing.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/analysis/diff/op_alignment.h"

namespace ts::debug {
namespace {

/// The tensors of one <op>/<seqid> (or one tensor outside the dump layout).
struct Unit {
    std::string op, scope, label;
    std::vector<size_t> tensors;
};

std::vector<Unit> unitsOf(const std::vector<DumpTensorRef>& t, std::vector<size_t>* unitOf) {
    std::vector<Unit> units;
    std::map<std::pair<std::string, int64_t>, size_t> index;
    if (unitOf) unitOf->assign(t.size(), 0);
    for (size_t i = 0; i < t.size(); ++i) {
        const DumpTensorRef& x = t[i];
        size_t u = units.size();
        if (!x.op.empty()) {
            auto [it, fresh] = index.emplace(std::make_pair(x.op, x.seqid), units.size());
            u = it->second;
            if (fresh) units.push_back({x.op, x.scope, x.op + "/" + std::to_string(x.seqid), {}});
        } else {
            units.push_back({x.path, x.scope, x.path, {}});
        }
        if (units[u].scope.empty()) units[u].scope = x.scope;
        units[u].tensors.push_back(i);
        if (unitOf) (*unitOf)[i] = u;
    }
    return units;
}

/// Consecutive units with one key (from the map or the scope) taken as one.
struct Group {
    uint32_t key = 0;
    size_t first = 0, last = 0;  // unit indexes
    std::string label;
};

std::vector<Group> groupsOf(const std::vector<Unit>& units, const DumpAlignOptions& o,
                            analysis::NameKeys& keys) {
    std::vector<Group> groups;
    bool lastMerges = false;
    for (size_t k = 0; k < units.size(); ++k) {
        const Unit& u = units[k];
        std::string name;
        bool merges = false, hit = false;
        if (!o.map.empty()) {
            if (!u.scope.empty()) name = o.map.apply(u.scope, &hit);
            if (!hit) name = o.map.apply(u.op, &hit);
            merges = hit;
            if (!hit) name.clear();
        }
        if (name.empty() && o.key == DumpKey::Scope) {
            name = scopeLayer(u.scope);
            merges = !name.empty();
        }
        if (name.empty()) name = u.op;
        const uint32_t key = keys.key(name);
        if (merges && lastMerges && !groups.empty() && groups.back().key == key) {
            Group& g = groups.back();
            g.last = k;
            g.label = keys.keyText(key) + " (" + units[g.first].label + " … " + u.label + ")";
            continue;
        }
        groups.push_back({key, k, k, u.label});
        lastMerges = merges;
    }
    return groups;
}

/// Slot -> tensor index of the unit's tensors of one direction ("" for non-layout tensors).
std::map<int, size_t> slots(const std::vector<DumpTensorRef>& t, const Unit& u,
                            const std::string& io) {
    std::map<int, size_t> out;
    for (size_t i : u.tensors)
        if (t[i].io == io) out.emplace(t[i].slot, i);
    return out;
}

void fillUnmatched(TensorPairing& p, size_t na, size_t nb) {
    std::vector<uint8_t> usedA(na, 0), usedB(nb, 0);
    for (const auto& [i, j] : p.pairs) usedA[i] = usedB[j] = 1;
    for (size_t i = 0; i < na; ++i)
        if (!usedA[i]) p.unmatchedA.push_back(i);
    for (size_t j = 0; j < nb; ++j)
        if (!usedB[j]) p.unmatchedB.push_back(j);
}

}  // namespace

const char* dumpKeyName(DumpKey k) {
    return k == DumpKey::Scope ? "scope" : "op";
}

std::string scopeLayer(const std::string& scope) {
    std::string s = scope, prefix;
    if (s.rfind("Gradients/", 0) == 0) s = s.substr(10), prefix = "grad:";
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i)
        if (i == s.size() || s[i] == '/') {
            if (i > start) parts.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    // Op instances ("<Type>-op<N>") at the end: the backward op under its forward op, too.
    auto isOpInstance = [](const std::string& seg) {
        const size_t k = seg.rfind("-op");
        return k != std::string::npos && k + 3 < seg.size() &&
               std::all_of(seg.begin() + static_cast<long>(k) + 3, seg.end(),
                           [](char c) { return c >= '0' && c <= '9'; });
    };
    while (!parts.empty() && isOpInstance(parts.back())) parts.pop_back();
    // A layer sits below a root (the network, "Default", "Net"); the root alone is none.
    if (parts.size() < 2) return {};
    std::string layer = parts.back();
    const size_t dash = layer.rfind('-');
    if (dash != std::string::npos && dash > 0) layer = layer.substr(0, dash);
    return prefix + layer;
}

TensorPairing pairByPath(const std::vector<DumpTensorRef>& a, const std::vector<DumpTensorRef>& b) {
    TensorPairing p;
    std::vector<size_t> unitOf;
    const auto units = unitsOf(a, &unitOf);
    for (const auto& u : units) p.unitNamesA.push_back(u.label);
    p.unitNamesB = p.unitNamesA;
    std::unordered_map<std::string, size_t> inB;
    for (size_t j = 0; j < b.size(); ++j) inB.emplace(b[j].path, j);
    std::vector<uint8_t> unitPaired(units.size(), 0);
    for (size_t i = 0; i < a.size(); ++i) {
        auto it = inB.find(a[i].path);
        if (it == inB.end()) continue;
        p.pairs.emplace_back(i, it->second);
        p.unit.push_back(unitOf[i]);
        unitPaired[unitOf[i]] = 1;
    }
    for (uint8_t u : unitPaired) p.units += u;
    fillUnmatched(p, a.size(), b.size());
    return p;
}

TensorPairing pairByAlignment(const std::vector<DumpTensorRef>& a,
                              const std::vector<DumpTensorRef>& b, const DumpAlignOptions& o) {
    TensorPairing p;
    analysis::NameKeys keys(nullptr, true);
    const auto unitsA = unitsOf(a, nullptr), unitsB = unitsOf(b, nullptr);
    const auto groupsA = groupsOf(unitsA, o, keys), groupsB = groupsOf(unitsB, o, keys);
    std::vector<uint32_t> ta, tb;
    for (const auto& g : groupsA) ta.push_back(g.key);
    for (const auto& g : groupsB) tb.push_back(g.key);
    const analysis::Alignment al = analysis::alignSequences(ta, tb);
    std::vector<std::pair<std::pair<size_t, size_t>, size_t>> found;  // ((i, j), unit)
    for (const auto& [ga, gb] : al.pairs) {
        const Group &x = groupsA[ga], &y = groupsB[gb];
        const size_t unit = p.unitNamesA.size();
        p.unitNamesA.push_back(x.label);
        p.unitNamesB.push_back(y.label);
        ++p.units;
        if (unitsA[x.first].op != unitsB[y.first].op || x.last != x.first || y.last != y.first)
            ++p.fuzzyUnits;
        // Inputs of the first op, outputs of the last op, slot by slot; tensors outside the
        // dump layout (io "") pair with each other.
        for (const auto& [io, ua, ub] :
             {std::tuple{std::string("input"), &unitsA[x.first], &unitsB[y.first]},
              std::tuple{std::string("output"), &unitsA[x.last], &unitsB[y.last]},
              std::tuple{std::string(), &unitsA[x.first], &unitsB[y.first]}}) {
            const auto sa = slots(a, *ua, io), sb = slots(b, *ub, io);
            for (const auto& [slot, i] : sa) {
                auto it = sb.find(slot);
                if (it != sb.end()) found.push_back({{i, it->second}, unit});
            }
        }
    }
    std::sort(found.begin(), found.end());
    for (const auto& [ij, unit] : found) {
        p.pairs.push_back(ij);
        p.unit.push_back(unit);
    }
    fillUnmatched(p, a.size(), b.size());
    return p;
}

}  // namespace ts::debug
