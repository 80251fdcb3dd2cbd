#pragma once
// A MindSpore graph (anf_ir.proto's GraphProto: a summary file's graph_def, an RDR export's
// *.pb) as the graph view shows it: every node with its op type, scope, full name, inputs,
// output type and shape and attributes rendered as text, the parameters and constants, and
// the scope tree ("Default" > "network-WithLossCell" > "_backbone-LeNet5" > "conv1-Conv2d" >
// nodes). Rendering is bounded: nested values stop at a depth of 8 and 512 characters.
// No Qt.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/common/result.h"

namespace ts::summary {

struct GraphNode {
    std::string name;      // the node's id in the graph ("12", or a parameter's name)
    std::string opType;    // "Conv2D"; "Parameter" / "Const" for those
    std::string scope;     // "Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d"
    std::string fullName;  // scope + "/" + op instance ("…/Conv2D-op12"); "" when unknown
    std::vector<std::string> inputs;  // names of nodes, parameters or constants ("^x": control)
    std::string outputType;           // "float32 [32, 6, 28, 28]", "tuple(float32 [32], ...)"
    std::vector<std::pair<std::string, std::string>> attributes;
    /// The name the scope tree and searches use: fullName, else scope/opType-name.
    std::string displayPath() const;
};

struct GraphModel {
    std::string name;
    std::vector<GraphNode> nodes;       // in graph (topological) order
    std::vector<GraphNode> parameters;  // opType "Parameter"
    std::vector<GraphNode> constants;   // opType "Const"
    std::vector<std::string> outputs;
};

/// Decodes a serialized GraphProto; error on damaged bytes.
Result<GraphModel> decodeGraph(std::string_view serialized);

/// The scope tree: node 0 is the root (name ""); each node lists child scopes and the graph
/// nodes (indexes into GraphModel::nodes) directly in it.
struct ScopeTreeNode {
    std::string name, path;
    std::vector<size_t> children;
    std::vector<size_t> graphNodes;
    size_t totalNodes = 0;  // graph nodes in this scope and below
};
std::vector<ScopeTreeNode> buildScopeTree(const GraphModel& g);

/// Indexes of the nodes whose display path, op type or name contains `text` (case
/// insensitive), in graph order.
std::vector<size_t> searchGraph(const GraphModel& g, std::string_view text);

}  // namespace ts::summary
