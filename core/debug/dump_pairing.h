#pragma once
// Which tensor of dump A is compared with which tensor of dump B. By path (msaccucmp's rule:
// the same <op>/<seqid>/<io>/<slot>) or by alignment of the two op sequences, for dumps
// written by different frameworks or runs whose op counts differ: ops (units of
// <op>/<seqid>) are keyed by name — a user's name map (regex -> name) applied to the scope
// attribute or the op name, or the layer named in the scope (engine: ".../fc1-Dense/MatMul-op1"
// -> "fc1"; PyTorch hooks: "Net/fc1" -> "fc1"), else the op name — in their fuzzy form
// (numbering ignored), then aligned as ops are in a run diff (core/analysis/op_alignment.h).
// Consecutive ops with the same mapped or scope key form one unit (the engine's MatMul and
// BiasAdd of fc1 against PyTorch's Linear fc1): its inputs are the first op's, its outputs
// the last op's. Paired units compare inputs and outputs slot by slot. No Qt.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/diff/name_map.h"

namespace ts::debug {

/// A tensor of a dump as the pairing sees it (in the dump's execution order).
struct DumpTensorRef {
    std::string path;  // "Conv2d/1/output/0"
    std::string op;    // "Conv2d" ("" when not in dump layout)
    int64_t seqid = -1;
    std::string io;  // "input" | "output" | ""
    int slot = -1;
    std::string scope;  // the dataset's scope attribute ("" when absent)
};

enum class DumpKey { Op, Scope };
/// "op" | "scope".
const char* dumpKeyName(DumpKey k);

struct DumpAlignOptions {
    DumpKey key = DumpKey::Op;
    analysis::NameMap map;
};

struct TensorPairing {
    std::vector<std::pair<size_t, size_t>> pairs;     // (index in A, index in B), A's order
    std::vector<size_t> unit;                         // per pair: its unit (A's op) index
    std::vector<std::string> unitNamesA, unitNamesB;  // per unit index
    std::vector<size_t> unmatchedA, unmatchedB;       // tensors not compared
    int64_t units = 0;                                // units of A with a partner
    int64_t fuzzyUnits = 0;  // of those, pairs whose names differ (numbering, map)
};

/// Pairs tensors with identical paths (units: A's <op>/<seqid> groups).
TensorPairing pairByPath(const std::vector<DumpTensorRef>& a, const std::vector<DumpTensorRef>& b);
/// Pairs tensors by aligning the ops of A and B (see the top of this file).
TensorPairing pairByAlignment(const std::vector<DumpTensorRef>& a,
                              const std::vector<DumpTensorRef>& b, const DumpAlignOptions& o);

/// The layer a scope names: the last segment before the op instances ("<Type>-op<N>"),
/// without its "-<Class>" suffix, below a root ("Default/.../fc1-Dense/MatMul-op1" -> "fc1",
/// "Net/fc1" -> "fc1"); "grad:" in front for "Gradients/..." scopes; "" when the scope names
/// no layer below its root ("Default/ApplyMomentum-op10", "Net").
std::string scopeLayer(const std::string& scope);

}  // namespace ts::debug
